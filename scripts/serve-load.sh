#!/bin/sh
# A load test of argus serve (issues 9 and 23): N players connect over loopback from
# one load generator (scripts/load_gen.rs, the `load-gen` example: every player on one
# poll loop, each answering every respond at once with a random legal move), and a
# Swiss round pairs them, N/2 games at once, at a fast time control, with the referee
# started under a soft limit of LIMIT descriptors (`ulimit -Sn`, the common default of
# 1024; argus raises it to the hard limit, as it says on start). Prints one table row for
# docs/performance.md: games played and in games.pgn, the exit status, time forfeits
# and those with a reply stamped before the flag (scripts/serve-load-check.py reads
# the journals), the referee's CPU a game, its peak RSS, and its peak threads and
# descriptors (sampled from /proc every 0.2 s: Linux).
#
#   scripts/serve-load.sh [PLAYERS] [TC] [LIMIT]   (200, 1+0.01 and 1024 when not given)
#   KEEP=1 scripts/serve-load.sh                    (keeps the event's files, says where)
#   ARGUS=path/to/argus scripts/serve-load.sh       (another build of argus)
#   CONCURRENCY=256 scripts/serve-load.sh 1000       (games at once, N/2 when not given)
set -eu
N=${1:-200}
TC=${2:-1+0.01}
LIMIT=${3:-1024}
# Games at once: N/2 unless CONCURRENCY says (argus before #23 allowed 256 at most).
AT_ONCE=${CONCURRENCY:-$((N / 2))}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then
    trap 'kill $(jobs -p) 2>/dev/null || true; echo "kept $WORK"' EXIT
else
    trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
fi
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin argus --example load-gen
ARGUS=${ARGUS:-$ROOT/target/release/argus}
LOADGEN="$ROOT/target/release/examples/load-gen"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
i=1; while [ "$i" -le "$N" ]; do echo "--player P$i"; i=$((i + 1)); done > "$WORK/players"
# shellcheck disable=SC2046
( ulimit -Sn "$LIMIT" && exec /usr/bin/time -f '%e %U %S %M %x' -o "$WORK/time" "$ARGUS" serve \
    $(cat "$WORK/players") --format swiss --rounds 1 --games 1 --concurrency $AT_ONCE \
    --tc "$TC" --listen "127.0.0.1:$PORT" --max-clients $((N + 10)) --unattended \
    --out "$WORK/event" > "$WORK/serve.out" 2> "$WORK/serve.err" ) &
sleep 0.5
SERVE_PID=$(pgrep -n -f "argus serve .*--listen 127.0.0.1:$PORT" || true)
# Peak threads and descriptors of the referee, sampled while it runs.
(
    peak_t=0; peak_f=0
    while [ -n "$SERVE_PID" ] && [ -d "/proc/$SERVE_PID" ]; do
        t=$(ls "/proc/$SERVE_PID/task" 2>/dev/null | wc -l)
        f=$(ls "/proc/$SERVE_PID/fd" 2>/dev/null | wc -l)
        [ "$t" -gt "$peak_t" ] && peak_t=$t
        [ "$f" -gt "$peak_f" ] && peak_f=$f
        echo "$peak_t $peak_f" > "$WORK/peaks"
        sleep 0.2
    done
) &
"$LOADGEN" "127.0.0.1:$PORT" "$N" P > "$WORK/loadgen.out" 2>&1 &
GEN=$!
wait_serve() {
    while [ -n "$SERVE_PID" ] && kill -0 "$SERVE_PID" 2>/dev/null; do sleep 0.5; done
}
wait_serve
sleep 1
kill "$GEN" 2>/dev/null || true
wait 2>/dev/null || true
tail -1 "$WORK/time" > "$WORK/time.last"
read -r wall user sys rss status < "$WORK/time.last" || true
read -r peak_t peak_f < "$WORK/peaks" || true
games=$(grep -c '^\[Result ' "$WORK/event/games.pgn" || true)
plies=$(grep -o 'PlyCount "[0-9]*' "$WORK/event/games.pgn" | awk -F'"' '{s += $2} END {print s + 0}')
echo "$N players, $AT_ONCE games at once at $TC, ulimit -Sn $LIMIT: ${wall:-?} s wall"
tail -1 "$WORK/serve.out"
echo "argus exited with status ${status:-?}"
grep -h '^\[Termination' "$WORK/event/games.pgn" | sort | uniq -c
python3 "$ROOT/scripts/serve-load-check.py" "$WORK/event" 5 20 | tee "$WORK/check"
forfeits=$(sed -n 's/^time forfeits: \([0-9]*\);.*/\1/p' "$WORK/check")
stamped=$(sed -n 's/.*handled after it: \([0-9]*\)$/\1/p' "$WORK/check")
python3 -c "
user, sys_, rss, games, plies = $user, $sys, $rss, $games, $plies
cpu = (user + sys_) * 1000
print('| players | at once | tc | ulimit -Sn | games in PGN | forfeits | stamped before the flag | CPU a game | CPU a ply | peak RSS | peak threads | peak descriptors |')
print(f'| $N | $AT_ONCE | $TC | $LIMIT | {games} of $((N / 2)) | ${forfeits:-?} | ${stamped:-?} | {cpu / max(games, 1):.1f} ms | {cpu / max(plies, 1):.3f} ms | {rss / 1024:.0f} MB | ${peak_t:-?} | ${peak_f:-?} |')"
cat "$WORK/loadgen.out"
