#!/bin/sh
# A load test of argus serve (issue 9): N `argus client --engine random` processes
# connect over loopback at once, and a Swiss round pairs them, N/2 games at a time, at
# a fast time control. Prints the referee's CPU and peak RSS per game, the games'
# terminations (time forfeits among them), and what the journals say about the
# forfeits (scripts/serve-load-check.py): the referee's turnaround per ply, the players'
# charged think, and for each forfeit whether the referee was slow around the loser's
# last 20 moves (over 5 ms: a ply's own CPU is about 0.2 ms, so 25 times that is
# queueing) or handled a reply stamped before the flag after it fell.
#
#   scripts/serve-load.sh [PLAYERS] [TC]        (200 and 1+0.01 when not given)
#   KEEP=1 scripts/serve-load.sh                (keeps the event's files, and says where)
set -eu
N=${1:-200}
TC=${2:-1+0.01}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
# KEEP=1 keeps the work dir (the event's journals) and says where it is.
if [ -n "${KEEP:-}" ]; then
    trap 'kill $(jobs -p) 2>/dev/null || true; echo "kept $WORK"' EXIT
else
    trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
fi
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin argus
ARGUS="$ROOT/target/release/argus"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PLAYERS=""
i=1; while [ "$i" -le "$N" ]; do PLAYERS="$PLAYERS --player P$i"; i=$((i + 1)); done
# shellcheck disable=SC2086
/usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$ARGUS" serve $PLAYERS --format swiss --rounds 1 \
    --games 1 --concurrency $((N / 2)) --tc "$TC" --listen "127.0.0.1:$PORT" \
    --max-clients $((N + 10)) --out "$WORK/event" > "$WORK/serve.out" 2> "$WORK/serve.err" &
sleep 1
i=1; while [ "$i" -le "$N" ]; do
    "$ARGUS" client --connect "127.0.0.1:$PORT" --engine random --name "P$i" > /dev/null 2>&1 &
    i=$((i + 1))
done
wait
read -r wall user sys rss < "$WORK/time"
games=$(grep -c '^\[Result ' "$WORK/event/games.pgn" || true)
plies=$(grep -o 'PlyCount "[0-9]*' "$WORK/event/games.pgn" | awk -F'"' '{s += $2} END {print s + 0}')
echo "$N players, $games games at $TC, $((N / 2)) at once: ${wall} s wall"
python3 -c "
user, sys_, rss, games, plies = $user, $sys, $rss, $games, $plies
cpu = (user + sys_) * 1000
print(f'referee CPU {cpu / max(games, 1):.1f} ms per game, {cpu / max(plies, 1):.3f} ms per ply; peak RSS {rss / 1024:.1f} MB')"
grep -h '^\[Termination' "$WORK/event/games.pgn" | sort | uniq -c
tail -1 "$WORK/serve.out"
python3 "$ROOT/scripts/serve-load-check.py" "$WORK/event" 5 20
