#!/bin/sh
# Runs the same engine match through argus serve and, when they are installed, through
# fastchess and cutechess-cli, with an instant UCI engine (scripts/instant_uci.rs) and
# the same openings, and prints one table: games per minute, plies per game, the
# manager's CPU per ply, peak RSS, relay latency (p50/p99, at concurrency 1: from one
# engine's bestmove to the other's next go, by the engines' own stamps) and the games
# lost on time (each counted once, from the PGN).
#
#   scripts/bench-managers.sh [GAMES] [TC] [CONCURRENCY ...]
#   FASTCHESS=/path/to/fastchess CUTECHESS=/path/to/cutechess-cli scripts/bench-managers.sh 100 0.2+0.002 1 8 32
#
# The rows argus-ft and fastchess-ft (the latter when FASTCHESS is set) play fishtest's
# worker command line, as the worker builds it, through argus started under the name
# fastchess (a symlink in the work folder) and through fastchess itself: adjudication,
# a shuffled book, the PGN's CRC after every game, the PV checks. Their games end by
# draw adjudication (the instant engine's score is always 0), sooner than the plain
# rows', at about the same ply under both managers since argus counts -draw as they do
# (dce7096; compare them by the ply all the same: plies/game is in the table). The last three columns read what a manager printed:
# the "Finished game" lines, how many of those say "loses on time", and whether
# "Finished match" was printed (fastchess's output; "-" for argus serve).
#
# ARGUS_BASE=/path/to/an/older/argus runs that build too (as argus-base), to compare a
# change with what it changes in the same run.
#
# TMPDIR=/dev/shm puts the work folder, argus serve's --out and argus fastchess's match
# folder on tmpfs. argus serve creates two files a game (the journal and the game's
# PGN), argus fastchess one (the journal), the peers none, and on some filesystems a new
# file is dear (docs/performance.md, "The fishtest line").
#
# Needs python3 (Linux: it reads the manager's /proc/PID/stat). The runs alternate manager by manager
# for each concurrency, so that a machine that slows down slows all alike.
set -eu
GAMES=${1:-100}
TC=${2:-0.2+0.002}
shift 2 2>/dev/null || shift $#
CONCURRENCY=${*:-1 8}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# argus as it is installed (Cargo.toml's dist profile: one optimised unit of code).
cargo build --profile dist --quiet --manifest-path "$ROOT/Cargo.toml" --bin argus --example instant-uci
ARGUS="$ROOT/target/dist/argus"
ENGINE="$ROOT/target/dist/examples/instant-uci"
# The openings of docs/openings.epd without its comments, which not every manager reads.
OPENINGS="$WORK/openings.epd"
grep -v '^#' "$ROOT/docs/openings.epd" | grep -v '^[[:space:]]*$' > "$OPENINGS"
# fishtest's worker runs testing/fastchess, with the engines in a folder of their own
# (cmd= and dir=): argus is run under that name, as a worker would run it.
ln -s "$ARGUS" "$WORK/fastchess"
ENGINE_DIR=$(dirname "$ENGINE")
ENGINE_CMD=$(basename "$ENGINE")
THREADS=$(nproc)

# Plays fishtest's worker command line through MANAGER (fastchess, or argus under its
# name): the words and their order as the worker builds them, with the instant engine
# for Stockfish. The engine ignores the setoption of Hash and Threads, as it ignores
# every command it does not know, so the options stay as fishtest sends them. Both
# managers refuse more games at once than the machine's threads unless
# -force-concurrency is given (the worker never asks for more); it is added only then.
fishtest() { # NAME CONCURRENCY MANAGER
    ft_name=$1 ft_conc=$2 ft_manager=$3
    force=
    if [ "$ft_conc" -gt "$THREADS" ]; then force=-force-concurrency; fi
    run "$ft_name" "$ft_conc" "$WORK/$ft_name-$ft_conc.pgn" "$ft_manager" \
        -testEnv -recover -repeat -games 2 -rounds $((GAMES / 2)) \
        -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 -report penta=true \
        -pgnout file="$WORK/$ft_name-$ft_conc.pgn" append=false -crc32 pgn=true \
        -site https://tests.example.org/tests/view/abc \
        -event "Batch 7: New-1a2b3c4d5e vs Base-0f9e8d7c6b" -srand 12345 \
        -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 \
        -variant standard -concurrency "$ft_conc" $force \
        -openings file="$OPENINGS" format=epd order=random plies=16 start=1 -check-mate-pvs \
        -engine name=New-1a2b3c4d5e tc="$TC" cmd="$ENGINE_CMD" dir="$ENGINE_DIR" option.Hash=16 \
        -engine name=Base-0f9e8d7c6b tc="$TC" cmd="$ENGINE_CMD" dir="$ENGINE_DIR" option.Hash=8 \
        -each proto=uci option.Threads=1
}

# Runs COMMAND and writes to TIMEFILE: wall seconds, the manager's own user and system
# CPU seconds, its children's (the engines it started and reaped), and its peak RSS in
# kB. The manager's own CPU is read from /proc/PID/stat once it has exited and before it
# is reaped (waitid with WNOWAIT): utime and stime there are the manager's threads
# alone, cutime and cstime its reaped children's, so the engines' CPU is never charged
# to the manager (GNU time's figures are the sum of both). The peak RSS is the
# manager's VmHWM, sampled while it runs.
measure() { # TIMEFILE COMMAND...
    python3 - "$@" <<'EOF'
import os, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
tick = os.sysconf("SC_CLK_TCK")
start = time.monotonic()
child = subprocess.Popen(cmd)
hwm = 0
def sample():
    global hwm
    try:
        for line in open(f"/proc/{child.pid}/status"):
            if line.startswith("VmHWM:"):
                hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
while True:
    sample()
    # Has it exited? It is left to be reaped below, so that its stat is still there.
    info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
    if info is not None:
        break
    time.sleep(0.05)
wall = time.monotonic() - start
stat = open(f"/proc/{child.pid}/stat").read()
fields = stat.rsplit(")", 1)[1].split()
utime, stime, cutime, cstime = (int(v) / tick for v in fields[11:15])
child.wait()
with open(out, "w") as f:
    f.write(f"{wall} {utime} {stime} {cutime + cstime} {hwm}\n")
EOF
}

run() { # NAME CONCURRENCY PGN COMMAND...
    name=$1 conc=$2 pgn=$3; shift 3
    log="$WORK/$name-$conc.log"; : > "$log"
    # In the work folder: fastchess writes its config.json where it runs.
    (cd "$WORK" && INSTANT_UCI_LOG="$log" measure "$WORK/$name-$conc.time" "$@" \
        > "$WORK/$name-$conc.out" 2>&1) || true
    python3 - "$name" "$conc" "$log" "$WORK/$name-$conc.time" "$pgn" "$WORK/$name-$conc.out" <<'EOF'
import sys, re
name, conc, log, timef, pgn, outf = sys.argv[1:]
wall, user, sys_, children, rss_kb = open(timef).read().split()[-5:]
events = []
for line in open(log):
    parts = line.split()
    if len(parts) != 3 or not parts[2].isdigit() or parts[0] == "cpu":
        continue
    kind, pid, value = parts
    events.append((int(value), kind, pid))
events.sort()
plies = sum(1 for e in events if e[1] == "bestmove")
# The relay: from one engine's bestmove to the other engine's next go, in one pass
# (a bestmove before that go ends the wait).
relay = []
if conc == "1":
    waiting = None
    for t, kind, pid in events:
        if kind == "bestmove":
            waiting = (t, pid)
        elif kind == "go" and waiting is not None and pid != waiting[1]:
            relay.append(t - waiting[0])
            waiting = None
try:
    text = open(pgn).read()
except OSError:
    text = ""
games = len(re.findall(r'^\[Result ', text, re.M))
# Games lost on time, each counted once: a game's Termination tag and its last comment
# may both say so.
losses = sum(1 for game in re.split(r'^(?=\[Event )', text, flags=re.M)
             if re.search(r'time forfeit|loses on time|flag fell|Flag fell', game))
# What the manager printed: fastchess's "Finished game N (...): RESULT {REASON}" lines,
# those lost on time, and its "Finished match" (argus serve and cutechess-cli print
# neither: "-").
try:
    out = open(outf, errors="replace").read()
except OSError:
    out = ""
finished = re.findall(r'^Finished game .*$', out, re.M)
if finished or re.search(r'^Finished match', out, re.M):
    out_games = str(len(finished))
    out_losses = str(sum(1 for line in finished if "loses on time" in line))
    out_end = "yes" if re.search(r'^Finished match$', out, re.M) else "no"
else:
    out_games = out_losses = out_end = "-"
manager_cpu_ms = (float(user) + float(sys_)) * 1000
engine_cpu_ms = float(children) * 1000
def pct(p):
    if not relay:
        return "-"
    s = sorted(relay)
    return f"{s[min(len(s) - 1, int(p * len(s)))]}"
sys_share = float(sys_) * 1000 / max(manager_cpu_ms, 0.001) * 100
print(f"{name:12} {conc:>4} {games:>6} {games / max(float(wall), 0.001) * 60:>9.0f} "
      f"{plies / max(games, 1):>10.0f} {manager_cpu_ms / max(plies, 1):>14.3f} {sys_share:>5.0f} {engine_cpu_ms / max(plies, 1):>18.3f} "
      f"{int(rss_kb) / 1024:>7.1f} {pct(0.5):>12} {pct(0.99):>7} {losses:>7} "
      f"{out_games:>9} {out_losses:>11} {out_end:>6}")
EOF
}

echo "match: $GAMES games at $TC, instant UCI engine, openings $OPENINGS"
echo "manager      conc  games  games/min  plies/game  own cpu ms/ply  sys %  engines cpu ms/ply  rss MB  relay p50 µs  p99 µs  losses  finished  out losses  match"
for conc in $CONCURRENCY; do
    run argus "$conc" "$WORK/argus-$conc/games.pgn" "$ARGUS" serve \
        --engine name=A cmd="$ENGINE" proto=uci --engine name=B cmd="$ENGINE" proto=uci \
        --games "$GAMES" --concurrency "$conc" --tc "$TC" --openings "$OPENINGS" \
        --out "$WORK/argus-$conc"
    if [ -n "${ARGUS_BASE:-}" ]; then
        run argus-base "$conc" "$WORK/argus-base-$conc/games.pgn" "$ARGUS_BASE" serve \
            --engine name=A cmd="$ENGINE" proto=uci --engine name=B cmd="$ENGINE" proto=uci \
            --games "$GAMES" --concurrency "$conc" --tc "$TC" --openings "$OPENINGS" \
            --out "$WORK/argus-base-$conc"
    fi
    if [ -n "${FASTCHESS:-}" ]; then
        run fastchess "$conc" "$WORK/fastchess-$conc.pgn" "$FASTCHESS" \
            -engine cmd="$ENGINE" name=A -engine cmd="$ENGINE" name=B \
            -each proto=uci tc="$TC" -rounds $((GAMES / 2)) -games 2 -repeat \
            -concurrency "$conc" -force-concurrency \
            -openings file="$OPENINGS" format=epd order=sequential \
            -pgnout file="$WORK/fastchess-$conc.pgn"
    fi
    if [ -n "${CUTECHESS:-}" ]; then
        run cutechess "$conc" "$WORK/cutechess-$conc.pgn" "$CUTECHESS" \
            -engine cmd="$ENGINE" name=A -engine cmd="$ENGINE" name=B \
            -each proto=uci tc="$TC" -rounds $((GAMES / 2)) -games 2 -repeat \
            -concurrency "$conc" -openings file="$OPENINGS" format=epd order=sequential \
            -pgnout "$WORK/cutechess-$conc.pgn"
    fi
    fishtest argus-ft "$conc" "$WORK/fastchess"
    if [ -n "${FASTCHESS:-}" ]; then
        fishtest fastchess-ft "$conc" "$FASTCHESS"
    fi
done
