#!/usr/bin/env bash
# A whole match between two engines through argus, on one machine, in one command:
# two socat null modems (pty pairs), the referee on one end of each, and an
# `argus client` with its engine on the other, exactly as on three PCs with cables.
#
#   scripts/engine-match.sh [GAMES] [TIMECONTROL]
#
# Defaults: 4 games at 10+0.1, Stockfish (UCI) against Fairy-Max (CECP), both from
# Debian's packages (apt-get install socat stockfish fairymax). Override the players
# with ENGINE_A and ENGINE_B (any --engine value of `argus client`), the files with PGN
# and JOURNAL, and the binary with ARGUS.
set -euo pipefail

games=${1:-4}
tc=${2:-10+0.1}
engine_a=${ENGINE_A:-uci:/usr/games/stockfish}
engine_b=${ENGINE_B:-xboard:/usr/games/fairymax}
pgn=${PGN:-engine-match.pgn}
journal=${JOURNAL:-engine-match-$(date -u +%Y%m%d-%H%M%S).jsonl}

here=$(cd "$(dirname "$0")/.." && pwd)
argus=${ARGUS:-}
if [ -z "$argus" ]; then
  cargo build --release --quiet --manifest-path "$here/Cargo.toml"
  argus="$here/target/release/argus"
fi
command -v socat >/dev/null || { echo "engine-match: socat is not installed (apt-get install socat)" >&2; exit 1; }

dir=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

for side in a b; do
  socat "pty,raw,echo=0,link=$dir/ref-$side" "pty,raw,echo=0,link=$dir/player-$side" &
  pids+=($!)
done
for _ in $(seq 100); do
  [ -e "$dir/ref-a" ] && [ -e "$dir/ref-b" ] && [ -e "$dir/player-a" ] && [ -e "$dir/player-b" ] && break
  sleep 0.05
done

"$argus" client "$dir/player-a" --engine "$engine_a" &
pids+=($!)
"$argus" client "$dir/player-b" --engine "$engine_b" &
pids+=($!)

"$argus" serial "$dir/ref-a" "$dir/ref-b" --games "$games" --tc "$tc" \
  --reset-delay 0.5 --conclude-delay 0.5 --event "argus engine match" --site "socat pty pairs" \
  --pgn "$pgn" --journal "$journal"
echo "engine-match: games in $pgn, journal in $journal"
