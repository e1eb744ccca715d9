#!/bin/sh
# What an observer adds to relay latency (issue 10, docs/standby.md): the same event
# of argus serve (two local random movers, GAMES games, one at a time) run three times:
# with no observer, with an observer following asynchronously (--standby-listen) and
# with one it waits for (--standby-sync), all on loopback. The relay latency of a ply
# is read from the event's journals: from the reply's stamp (`rx`) to the moment the
# respond carrying it to the opponent was written (its `drained`), which covers the
# journal write, the core, the observer's acknowledgement with --standby-sync, and the
# send. Game 1 is left out (the observer may connect during it). Prints p50, p90, p99
# and the largest, in microseconds.
#
#   scripts/standby-latency.sh [GAMES]          (20 when not given)
#   KEEP=1 scripts/standby-latency.sh           (keeps the events' files, and says where)
set -eu
GAMES=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then
    trap 'kill $(jobs -p) 2>/dev/null || true; echo "kept $WORK"' EXIT
else
    trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
fi
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin argus
ARGUS="$ROOT/target/release/argus"
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

run() { # run MODE [serve options...]
    mode=$1; shift
    observer=""
    case "$mode" in
    none) ;;
    *)
        port=$(free_port)
        set -- "$@" --standby-listen "127.0.0.1:$port"
        # The observer waits for the primary, and follows it once it is up.
        "$ARGUS" observe "127.0.0.1:$port" --out "$WORK/$mode-copy" --unattended \
            > "$WORK/$mode-observer.out" 2>&1 &
        observer=$!
        ;;
    esac
    "$ARGUS" serve --engine name=A --engine name=B --games "$GAMES" --tc 60+1 \
        --unattended --plain --out "$WORK/$mode" "$@" > "$WORK/$mode.out" 2>&1
    if [ -n "$observer" ]; then wait "$observer"; fi
}

run none
run async
run sync --standby-sync

python3 - "$WORK" <<'EOF'
import glob, json, os, sys

work = sys.argv[1]

def latencies(event):
    out = []
    for path in sorted(glob.glob(os.path.join(event, "games", "game-*.jsonl")))[1:]:
        reply = None      # the last reply's stamp, by the port it came from
        relayed = None    # the port its respond went to
        for line in open(path):
            ev = json.loads(line)
            if ev["ev"] == "rx" and "refreq reply;" in ev.get("text", ""):
                reply, relayed = ev["t"], None
            elif ev["ev"] == "tx" and reply is not None and "refcom respond;" in ev["text"]:
                relayed = ev["port"]
            elif ev["ev"] == "drained" and relayed == ev["port"] and reply is not None:
                out.append(ev["t"] - reply)
                reply, relayed = None, None
    return sorted(out)

def pct(xs, p):
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]

print(f"relay latency, microseconds (reply's stamp to its respond written), {os.cpu_count()} cores")
print(f"{'observer':<10}{'plies':>8}{'p50':>8}{'p90':>8}{'p99':>8}{'max':>9}")
for mode in ["none", "async", "sync"]:
    xs = latencies(os.path.join(work, mode))
    if not xs:
        print(f"{mode:<10} no plies (see {work}/{mode}.out)")
        continue
    print(f"{mode:<10}{len(xs):>8}{pct(xs, 50):>8}{pct(xs, 90):>8}{pct(xs, 99):>8}{xs[-1]:>9}")
EOF
