#!/usr/bin/env bash
# A soak test of argus: many games between two `argus client --engine random` players
# through `argus serial`, over socat null modems (pty pairs) as in
# scripts/engine-match.sh; optionally through simulated noisy lines (`argus wire`) and
# with the referee killed (SIGKILL) at random moments and resumed from its journal.
# Then it checks the outcome and exits 1 on any mismatch:
#
#   - the referee finished the match (exit 0) and both clients got `disconnect`;
#   - games asked = games in the PGN = `game_over` records in the journal, the PGN
#     file is those records, every game is legal and ended normally where the rules end
#     it, with argus's result and reason (scripts/soak_check.rs, `soak-check`);
#   - `argus replay JOURNAL --pgn X` reproduces the PGN byte for byte;
#
# and reports the wall time and the referee's peak RSS (max over its restarts).
#
#   scripts/soak.sh [--games N] [--tc TC] [--out DIR] [--noise RATE] [--baud N]
#                   [--kills K [--at-game-end]] [--seed S] [--timeout SECS]
#
#   --games N       games in the match (default 100)
#   --tc TC         time control (default 10+0.1; random movers play at once)
#   --out DIR       keep the PGN, the journal and the logs in DIR (must not hold a
#                   soak already); by default a temporary directory, removed when
#                   every check passes
#   --noise RATE    put `argus wire --noise RATE` between each client and the referee
#   --baud N        the simulated line's rate, given to the wires, the referee and the
#                   clients (default 115200 with --noise; alone, it adds clean wires)
#   --kills K       SIGKILL the referee K times at random moments and resume it with
#                   `argus serial --resume JOURNAL` (fewer if the match ends first)
#   --at-game-end   move each kill back to the last moment a game ended: cut the
#                   journal and the PGN to what a kill there leaves on disk, just
#                   before the game's game_over line (odd kills) or between it and the
#                   PGN append (even kills). Random kills almost never land in those
#                   few microseconds; this puts them there.
#   --seed S        seeds the random movers, the noise and the kill delays (default 1)
#   --timeout SECS  give up after SECS (default 120 + 10 per game)
#
# Needs socat and GNU time (/usr/bin/time; Debian packages socat and time). Set ARGUS to
# use another argus binary instead of building this tree's.
set -euo pipefail

usage() { sed -n '/^#   scripts\/soak.sh/,/^# Needs/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'; }

games=100
tc=10+0.1
out=""
noise=""
baud=""
kills=0
at_game_end=0
seed=1
timeout=""
while [ $# -gt 0 ]; do
  case $1 in
    --games | --tc | --out | --noise | --baud | --kills | --seed | --timeout)
      [ $# -ge 2 ] || { echo "soak: $1 needs a value" >&2; exit 2; }
      case $1 in
        --games) games=$2 ;;
        --tc) tc=$2 ;;
        --out) out=$2 ;;
        --noise) noise=$2 ;;
        --baud) baud=$2 ;;
        --kills) kills=$2 ;;
        --seed) seed=$2 ;;
        --timeout) timeout=$2 ;;
      esac
      shift 2
      ;;
    --at-game-end) at_game_end=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "soak: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
for n in "$games" "$kills" "$seed" ${baud:+"$baud"} ${timeout:+"$timeout"}; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "soak: $n is not a whole number" >&2; exit 2; }
done
[ "$games" -ge 1 ] || { echo "soak: --games must be at least 1" >&2; exit 2; }
if [ -n "$noise" ] && [ -z "$baud" ]; then baud=115200; fi
timeout=${timeout:-$((120 + 10 * games))}

command -v socat >/dev/null || { echo "soak: socat is not installed (apt-get install socat)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "soak: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${ARGUS:-}" ]; then
  cargo build --release --quiet --manifest-path "$here/Cargo.toml" --bin argus --example soak-check
  argus="$here/target/release/argus"
else
  cargo build --release --quiet --manifest-path "$here/Cargo.toml" --example soak-check
  argus=$ARGUS
fi

keep=1
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/argus-soak.XXXXXX")
  keep=0
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
pgn="$out/games.pgn"
journal="$out/journal.jsonl"
if [ -e "$pgn" ] || [ -e "$journal" ]; then
  echo "soak: $out already holds a soak (games.pgn, journal.jsonl); give another --out" >&2
  exit 2
fi
tty="$out/tty"
mkdir -p "$tty"

helpers=() # socat null modems and wires
clients=()
tpid="" # /usr/bin/time, whose child is the referee
failures=0

# The referee under /usr/bin/time: the pid of its argus child, or nothing.
referee_pid() { pgrep -P "$tpid" 2>/dev/null || true; }

cleanup() {
  if [ -n "$tpid" ]; then
    local rpid
    rpid=$(referee_pid)
    [ -z "$rpid" ] || kill -KILL "$rpid" 2>/dev/null || true
  fi
  for pid in "${clients[@]}" "${helpers[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tty"
  if [ "$keep" = 0 ] && [ "$failures" = 0 ]; then rm -rf "$out"; fi
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

null_modem() { # one two
  socat -d -d "pty,raw,echo=0,link=$1" "pty,raw,echo=0,link=$2" 2>>"$out/socat.log" &
  helpers+=($!)
  for _ in $(seq 200); do
    [ -e "$1" ] && [ -e "$2" ] && return 0
    sleep 0.025
  done
  echo "soak: socat made no ptys $1 $2 (see $out/socat.log)" >&2
  exit 1
}

line_args=()
[ -z "$baud" ] || line_args=(--baud "$baud")
wires=()
for side in a b; do
  if [ -n "$baud" ]; then
    null_modem "$tty/ref-$side" "$tty/wire-$side-1"
    null_modem "$tty/wire-$side-2" "$tty/player-$side"
    wseed=$((seed * 2 + ${#wires[@]}))
    "$argus" wire "$tty/wire-$side-1" "$tty/wire-$side-2" --baud "$baud" \
      --noise "${noise:-0}" --seed "$wseed" >"$out/wire-$side.log" 2>&1 &
    helpers+=($!)
    wires+=($!)
  else
    null_modem "$tty/ref-$side" "$tty/player-$side"
  fi
done
[ -z "$baud" ] || sleep 0.2 # the wires open their ports

cseed=$((seed * 2))
for side in a b; do
  cseed=$((cseed + 1))
  "$argus" client "$tty/player-$side" --engine random --seed "$cseed" "${line_args[@]}" \
    >"$out/client-$side.log" 2>&1 &
  clients+=($!)
done

run=0
start_referee() { # argus serial arguments
  run=$((run + 1))
  /usr/bin/time -v -o "$out/time-$run.txt" "$argus" serial "$@" --unattended \
    >"$out/referee-$run.log" 2>&1 &
  tpid=$!
}

# What a referee killed just as its last game ended leaves on disk: the journal up to
# the game's game_over line (odd kills: without it; even kills: with it) and the PGN
# without the game. Only for a game that ended in the run just killed.
rewind() {
  local last since n kept games_kept
  last=$(grep -n '"ev":"game_over"' "$journal" | tail -n 1 | cut -d: -f1 || true)
  since=$(grep -n '"ev":"resume"' "$journal" | tail -n 1 | cut -d: -f1 || true)
  if [ -z "$last" ] || [ "$last" -le "${since:-0}" ]; then
    echo "soak: no game ended since the referee started; a plain kill"
    return
  fi
  n=$(sed -n "${last}s/.*\"game\":\([0-9]*\).*/\1/p" "$journal")
  games_kept=$(($(grep -c '"ev":"game_over"' "$journal") - 1))
  if [ $((kills_done % 2)) = 1 ]; then
    kept=$((last - 1))
    echo "soak: cutting back to game $n's end, before its game_over (journal line $last)"
  else
    kept=$last
    echo "soak: cutting back to game $n's end, after its game_over (journal line $last), before its PGN"
  fi
  head -n "$kept" "$journal" >"$journal.cut" && mv "$journal.cut" "$journal"
  awk -v keep="$games_kept" '/^\[Event /{n++} n<=keep' "$pgn" >"$pgn.cut" && mv "$pgn.cut" "$pgn"
}

fail() {
  echo "soak: FAIL $*"
  failures=$((failures + 1))
}

what="$games games at $tc"
[ -z "$baud" ] || what="$what, lines at $baud baud with noise ${noise:-0}"
[ "$kills" = 0 ] || what="$what, $kills kill(s) of the referee"
[ "$at_game_end" = 0 ] || what="$what at game ends"
echo "soak: $what; files in $out"

RANDOM=$seed
started=$(now_ms)
deadline=$((started + timeout * 1000))
start_referee "$tty/ref-a" "$tty/ref-b" --games "$games" --tc "$tc" "${line_args[@]}" \
  --reset-delay 0.05 --conclude-delay 0.05 --event "argus soak" --site "socat pty pairs" \
  --pgn "$pgn" --journal "$journal"

# Kill at random moments: each delay is drawn from 0.3 s to 0.3 s plus four fifths of
# the time left (as the games played so far say) shared among the kills left.
kills_done=0
finished=0
gone_at=""
while :; do
  wake=$deadline
  if [ "$kills_done" -lt "$kills" ]; then
    t=$(now_ms)
    played=$(grep -c '"ev":"game_over"' "$journal" 2>/dev/null || true)
    played=${played:-0}
    per_game=300
    [ "$played" = 0 ] || per_game=$(((t - started) / played))
    span=$((4 * (games - played) * per_game / (5 * (kills - kills_done))))
    [ "$span" -ge 200 ] || span=200
    wake=$((t + 300 + (RANDOM * 32768 + RANDOM) % span))
  fi
  stuck=""
  while kill -0 "$tpid" 2>/dev/null; do
    t=$(now_ms)
    if [ "$t" -ge "$deadline" ]; then
      stuck="the match did not finish within $timeout s"
      break
    fi
    [ "$t" -lt "$wake" ] || break
    if ! kill -0 "${clients[0]}" 2>/dev/null && ! kill -0 "${clients[1]}" 2>/dev/null; then
      gone_at=${gone_at:-$t}
      if [ $((t - gone_at)) -ge 10000 ]; then
        stuck="both clients left (disconnect), but the referee is still running 10 s later"
        break
      fi
    fi
    sleep 0.05
  done
  if [ -n "$stuck" ]; then
    fail "$stuck (see $out/referee-$run.log)"
    rpid=$(referee_pid)
    [ -z "$rpid" ] || kill -KILL "$rpid" 2>/dev/null || true
    wait "$tpid" || true
    tpid=""
    break
  fi
  if kill -0 "$tpid" 2>/dev/null; then
    rpid=$(referee_pid)
    [ -z "$rpid" ] || kill -KILL "$rpid" 2>/dev/null || true
  fi
  rc=0
  wait "$tpid" || rc=$?
  tpid=""
  if [ "$rc" = 0 ]; then
    finished=1
    break
  fi
  if [ "$rc" != 137 ]; then
    fail "the referee exited with status $rc (see $out/referee-$run.log)"
    break
  fi
  kills_done=$((kills_done + 1))
  played=$(grep -c '"ev":"game_over"' "$journal" || true)
  t=$(($(now_ms) - started))
  echo "soak: killed the referee at +$((t / 1000)).$((t % 1000 / 100)) s, after ${played:-0} game_over(s); resuming"
  [ "$at_game_end" = 0 ] || rewind
  sleep "0.$((RANDOM % 3))"
  start_referee --resume "$journal"
done
[ "$kills_done" = "$kills" ] || echo "soak: note: the match ended before kill $((kills_done + 1))"
ended=$(now_ms)
wall_ms=$((ended - started))

# The clients leave when the referee says disconnect.
if [ "$finished" = 1 ]; then
  for _ in $(seq 100); do
    alive=0
    for pid in "${clients[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 1 ] || break
    sleep 0.1
  done
fi
for i in "${!clients[@]}"; do
  side=$([ "$i" = 0 ] && echo a || echo b)
  if kill -0 "${clients[$i]}" 2>/dev/null; then
    [ "$finished" = 0 ] || fail "client $side is still running 10 s after the match (see $out/client-$side.log)"
    kill "${clients[$i]}" 2>/dev/null || true
    wait "${clients[$i]}" 2>/dev/null || true
  else
    rc=0
    wait "${clients[$i]}" || rc=$?
    [ "$rc" = 0 ] || fail "client $side exited with status $rc (see $out/client-$side.log)"
  fi
done
[ "$finished" = 1 ] && [ "$failures" = 0 ] && echo "soak: PASS both clients got disconnect and left"
clients=()
# The wires print what they corrupted when interrupted.
for pid in "${wires[@]}"; do
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
for side in a b; do
  [ ! -f "$out/wire-$side.log" ] || sed -n "s/^argus wire: \([0-9].*\)/soak: wire $side: \1/p" "$out/wire-$side.log"
done

echo "soak: the match took $((wall_ms / 1000)).$(printf %03d $((wall_ms % 1000))) s" \
  "($((wall_ms / games)) ms a game), $run referee run(s), $kills_done kill(s)"
if [ "$finished" = 1 ]; then echo "soak: PASS the referee finished the match"; fi

if [ -s "$journal" ]; then
  rc=0
  cargo run --release --quiet --manifest-path "$here/Cargo.toml" --example soak-check -- \
    "$games" "$pgn" "$journal" | tee "$out/soak-check.txt" || rc=$?
  if [ "$rc" = 0 ]; then echo "soak: PASS soak-check"; else fail "soak-check (see above)"; fi

  rc=0
  "$argus" replay "$journal" --pgn "$out/replayed.pgn" >"$out/replay.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    fail "argus replay exited with status $rc: $(tail -n 1 "$out/replay.log" | cut -c 1-240)..."
  fi
  if cmp "$out/replayed.pgn" "$pgn"; then
    echo "soak: PASS argus replay reproduces the PGN byte for byte"
  else
    fail "argus replay's PGN differs from the session's ($out/replayed.pgn, $pgn)"
  fi
else
  fail "no journal at $journal"
fi

peak=0
runs=""
for i in $(seq "$run"); do
  kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time-$i.txt" 2>/dev/null)
  runs="$runs ${kb:-?}"
  [ "${kb:-0}" -le "$peak" ] || peak=$kb
done
echo "soak: peak RSS of the referee $peak kB (max over $run run(s):$runs kB)"

if [ "$failures" = 0 ]; then
  echo "soak: all checks passed ($what)"
else
  echo "soak: $failures check(s) failed ($what); files in $out"
  exit 1
fi
