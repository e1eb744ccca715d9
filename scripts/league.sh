#!/bin/sh
# A league of Debian's engines played through argus serve and, when they are installed,
# through cutechess-cli and fastchess on the same openings and time control, and one
# table of what each manager made of each engine: games, score, and the games the engine
# lost by failing (on time, by an illegal move, abandoned: a crash, a stall, no answer).
# Every result should be the engines' own: argus's count of failures for an engine
# should be no higher than the better peer's.
#
#   scripts/league.sh [GAMES_PER_PAIR] [TC]
#   CUTECHESS=/path/to/cutechess-cli FASTCHESS=/path/to/fastchess scripts/league.sh 8 5+0.05
#
# Two leagues are played, because fastchess speaks only UCI:
#   cecp: Stockfish (UCI), Fairy-Max and GNU Chess (CECP)   through argus and cutechess;
#   uci:  Stockfish, GNU Chess (its UCI mode) and Toga II   through argus, cutechess and
#         fastchess (Toga II from Debian's toga2; left out when it is not installed).
# LEAGUES="cecp" (or "uci") plays one. CONCURRENCY (default 1) games at once: with one,
# the engines of a game think in turn on one core and the manager has the other.
# KEEP=DIR keeps the PGN files and logs there; MANAGERS="cutechess fastchess" plays only
# those, and the table then takes the other managers' games from DIR's earlier run.
# The peers get -recover, as testers run them: without it cutechess-cli and fastchess
# stop the whole tournament at the first engine that stalls or crashes (GNU Chess's
# UCI mode dies of an assertion under fastchess), where argus scores that game and goes
# on.
#
# Needs stockfish, fairymax and gnuchess from Debian (/usr/games), and python3.
set -eu
GAMES=${1:-8}
TC=${2:-5+0.05}
CONCURRENCY=${CONCURRENCY:-1}
LEAGUES=${LEAGUES:-cecp uci}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${KEEP:-$(mktemp -d)}
mkdir -p "$WORK"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
case $GAMES in *[!0-9]*|'') echo "league: GAMES_PER_PAIR must be a number" >&2; exit 2;; esac
if [ $((GAMES % 2)) -ne 0 ]; then
    echo "league: GAMES_PER_PAIR must be even (each opening with the colours swapped)" >&2
    exit 2
fi
ROUNDS=$((GAMES / 2))
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --bin argus
ARGUS="$ROOT/target/release/argus"
OPENINGS="$WORK/openings.epd"
grep -v '^#' "$ROOT/docs/openings.epd" | grep -v '^[[:space:]]*$' > "$OPENINGS"
SF=/usr/games/stockfish FM=/usr/games/fairymax GC=/usr/games/gnuchess
TOGA=$(command -v toga2 || ls /usr/games/toga2 2>/dev/null || true)
for e in "$SF" "$FM" "$GC"; do
    [ -x "$e" ] || { echo "league: needs $e (apt install stockfish fairymax gnuchess)" >&2; exit 2; }
done

# Each engine as the managers write it: NAME PROTO COMMAND [ARG].
engines() { # LEAGUE
    case $1 in
        cecp) printf '%s\n' "Stockfish uci $SF" "Fairy-Max xboard $FM" "GNU-Chess xboard $GC --xboard" ;;
        uci)
            printf '%s\n' "Stockfish uci $SF" "GNU-Chess uci $GC --uci"
            [ -z "$TOGA" ] || printf '%s\n' "Toga-II uci $TOGA"
            ;;
    esac
}

play_argus() { # LEAGUE
    set --
    while read -r name proto cmd arg; do
        set -- "$@" --engine "name=$name" "cmd=$cmd${arg:+ $arg}" "proto=$proto"
    done <<EOF
$(engines "$league")
EOF
    "$ARGUS" serve "$@" --games "$GAMES" --tc "$TC" --concurrency "$CONCURRENCY" \
        --openings "$OPENINGS" --plain --unattended --out "$WORK/argus-$league" \
        > "$WORK/argus-$league.log" 2>&1 || true
    cp "$WORK/argus-$league/games.pgn" "$WORK/argus-$league.pgn" 2>/dev/null || : > "$WORK/argus-$league.pgn"
}

play_cutechess() { # LEAGUE
    set --
    while read -r name proto cmd arg; do
        set -- "$@" -engine "name=$name" "cmd=$cmd" "proto=$proto" ${arg:+"arg=$arg"}
    done <<EOF
$(engines "$league")
EOF
    (cd "$WORK" && "$CUTECHESS" "$@" -each tc="$TC" -tournament round-robin \
        -games 2 -rounds "$ROUNDS" -repeat -concurrency "$CONCURRENCY" -recover \
        -openings file="$OPENINGS" format=epd order=sequential \
        -pgnout "$WORK/cutechess-$league.pgn" > "$WORK/cutechess-$league.log" 2>&1) || true
}

play_fastchess() { # LEAGUE
    set --
    while read -r name proto cmd arg; do
        set -- "$@" -engine "name=$name" "cmd=$cmd" ${arg:+"args=$arg"}
    done <<EOF
$(engines "$league")
EOF
    (cd "$WORK" && "$FASTCHESS" "$@" -each proto=uci tc="$TC" \
        -games 2 -rounds "$ROUNDS" -repeat -concurrency "$CONCURRENCY" -recover \
        -openings file="$OPENINGS" format=epd order=sequential \
        -pgnout file="$WORK/fastchess-$league.pgn" > "$WORK/fastchess-$league.log" 2>&1) || true
}

for league in $LEAGUES; do
    managers="argus"
    [ -z "${CUTECHESS:-}" ] || managers="$managers cutechess"
    if [ -n "${FASTCHESS:-}" ] && [ "$league" = uci ]; then managers="$managers fastchess"; fi
    for m in $managers; do
        case " ${MANAGERS:-$managers} " in *" $m "*) ;; *) continue;; esac
        rm -f "$WORK/$m-$league.pgn"
        echo "league $league: $m ($GAMES games a pair at $TC)" >&2
        start=$(date +%s)
        "play_$m" "$league"
        echo "league $league: $m took $(( $(date +%s) - start )) s" >&2
    done
    python3 - "$WORK" "$league" argus cutechess fastchess <<'EOF'
import os, re, sys
work, league = sys.argv[1], sys.argv[2]
managers = [m for m in sys.argv[3:] if os.path.exists(f"{work}/{m}-{league}.pgn")]
FAIL = {"time forfeit": "time", "illegal move": "illegal", "rules infraction": "illegal",
        "abandoned": "abandoned", "stalled connection": "abandoned"}
table = {}
for m in managers:
    try:
        text = open(f"{work}/{m}-{league}.pgn", encoding="utf-8", errors="replace").read()
    except OSError:
        text = ""
    for game in re.split(r'\n(?=\[Event )', text):
        tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', game, re.M))
        if "Result" not in tags:
            continue
        white, black, result = tags.get("White"), tags.get("Black"), tags["Result"]
        for name, side in ((white, "w"), (black, "b")):
            row = table.setdefault((m, name), {"games": 0, "points": 0.0, "time": 0,
                                               "illegal": 0, "abandoned": 0})
            row["games"] += 1
            won = (result == "1-0") == (side == "w") and result in ("1-0", "0-1")
            lost = result in ("1-0", "0-1") and not won
            row["points"] += 1.0 if won else 0.5 if result == "1/2-1/2" else 0.0
            kind = FAIL.get(tags.get("Termination", "").lower())
            if lost and kind:
                row[kind] += 1
print(f"\nleague {league}")
print(f"{'manager':10} {'engine':10} {'games':>5} {'points':>6} {'time':>5} {'illegal':>7} {'abandoned':>9}")
for (m, name), r in sorted(table.items(), key=lambda kv: (kv[0][1], managers.index(kv[0][0]))):
    print(f"{m:10} {name:10} {r['games']:>5} {r['points']:>6.1f} {r['time']:>5} {r['illegal']:>7} {r['abandoned']:>9}")
# argus against the better peer, engine by engine.
engines = sorted({n for (_, n) in table})
verdict = []
for name in engines:
    a = table.get(("argus", name))
    peers = [table[(m, name)] for m in managers if m != "argus" and (m, name) in table]
    if not a or not peers:
        continue
    fails = lambda r: r["time"] + r["illegal"] + r["abandoned"]
    best = min(fails(p) for p in peers)
    mark = "ok" if fails(a) <= best else "MORE"
    verdict.append(f"{name}: argus {fails(a)} failure(s), better peer {best}: {mark}")
for line in verdict:
    print(line)
EOF
done
[ -z "${KEEP:-}" ] || echo "league: PGN files and logs in $WORK" >&2
