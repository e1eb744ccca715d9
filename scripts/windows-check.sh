#!/usr/bin/env bash
# argus.exe, cross-built for Windows, run under Wine on COM ports that are socat ptys,
# against argus on Linux: what a club's Windows PCs do, tested on one Linux machine.
#
#   scripts/windows-check.sh
#
# Needs (Debian): wine64 wine gcc-mingw-w64-x86-64 socat stockfish, and the Rust target
# (rustup target add x86_64-pc-windows-gnu). .ci/run installs them.
#
# Builds argus.exe and the instant UCI engine (scripts/instant_uci.rs) for Windows with
# PROFILE (default release; ARGUS_EXE names a ready argus.exe instead), then checks:
#   1. argus.exe --version and argus.exe ports (the COM ports Wine has);
#   2. argus.exe client COM12 (a name above COM9: \\.\COM12) against argus serial on Linux;
#   3. argus.exe serial COM7 COM6 with Linux clients (Stockfish against the random
#      mover): its PGN and journal, and `argus replay` of that journal on Linux
#      reproducing the same PGN (the journal's format is the same on both systems);
#   4. argus.exe client COM3 with a Windows engine, instant-uci.exe, given as a quoted
#      path with spaces, so that the engine adapter's process handling runs on Windows;
#   5. argus.exe cable-test COM8 COM9 on the two ends of one socat null modem, and
#      argus.exe cable-test COM4 --loopback on a pty that echoes (a loopback plug).
# These are the Windows commands of docs/club-event.md. Wine's COM ports are socat ptys. Each step prints its
# time; the script exits non-zero at the first failure, with the logs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

target=x86_64-pc-windows-gnu
profile=${PROFILE:-release}
for tool in wine x86_64-w64-mingw32-gcc socat; do
  command -v "$tool" >/dev/null || {
    echo "windows-check: $tool is missing (apt-get install wine64 wine gcc-mingw-w64-x86-64 socat)" >&2
    exit 1
  }
done
stockfish=${STOCKFISH:-/usr/games/stockfish}
[ -x "$stockfish" ] || { echo "windows-check: $stockfish is missing (apt-get install stockfish)" >&2; exit 1; }

started=$(date +%s)
step() { echo "windows-check: [$(($(date +%s) - started)) s] $*"; }

export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
dir_of() { if [ "$profile" = dev ]; then echo debug; else echo "$profile"; fi; }
out="target/$target/$(dir_of)"
if [ -z "${ARGUS_EXE:-}" ]; then
  step "building argus.exe and instant-uci.exe ($profile)"
  cargo build --locked --profile "$profile" --target "$target" --bin argus --example instant-uci
  ARGUS_EXE=$out/argus.exe
fi
engine_exe=${ENGINE_EXE:-$out/examples/instant-uci.exe}
[ -f "$engine_exe" ] || cargo build --locked --profile "$profile" --target "$target" --example instant-uci
step "building argus for Linux"
cargo build --locked --profile "$profile" --bin argus
linux="$here/target/$(dir_of)/argus"

work=$(mktemp -d)
pids=()
cleanup() {
  [ -z "${WINEPREFIX:-}" ] || wineserver -k >/dev/null 2>&1 || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "windows-check: FAILED: $*" >&2
  for log in "$work"/*.log; do
    [ -f "$log" ] || continue
    echo "--- $(basename "$log")" >&2
    tail -n 30 "$log" >&2
  done
  exit 1
}

# The programs, where Windows finds them: the stand-in DLL beside each (see
# tests/windows/bcryptprimitives.c: a test fixture for Wine 8.0, never shipped).
mkdir -p "$work/bin" "$work/argus engines"
cp "$ARGUS_EXE" "$work/bin/argus.exe"
cp "$engine_exe" "$work/argus engines/instant uci.exe"
x86_64-w64-mingw32-gcc -shared -O2 -o "$work/bin/bcryptprimitives.dll" \
  tests/windows/bcryptprimitives.c tests/windows/bcryptprimitives.def -ladvapi32
cp "$work/bin/bcryptprimitives.dll" "$work/argus engines/"

export WINEPREFIX="$work/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
step "making a Wine prefix"
wineboot --init >"$work/wineboot.log" 2>&1 || fail "wineboot"
exe() { timeout "${WINE_TIMEOUT:-180}" wine "$work/bin/argus.exe" "$@"; }

# A socat null modem: two ptys, linked as $work/NAME-a and $work/NAME-b.
null_modem() {
  socat "pty,raw,echo=0,link=$work/$1-a" "pty,raw,echo=0,link=$work/$1-b" &
  pids+=($!)
  for _ in $(seq 100); do
    [ -e "$work/$1-a" ] && [ -e "$work/$1-b" ] && return
    sleep 0.05
  done
  fail "socat made no ptys for $1"
}
# Wine's COMn is the pty behind $work/LINK: a value of Wine's Ports key, which its mount
# manager turns into dosdevices/comN and the registry's SERIALCOMM (what Windows
# programs, `argus ports` among them, list) when the prefix starts.
com() { printf '"COM%s"="%s"\n' "$1" "$(readlink -f "$work/$2")" >>"$work/ports.reg"; }

cd "$work"
# Every null modem and COM port first, then the prefix is started again to read them.
printf 'REGEDIT4\n\n[HKEY_LOCAL_MACHINE\\Software\\Wine\\Ports]\n' >ports.reg
for modem in cable one two three four five six; do null_modem $modem; done
# A loopback plug: what is written to the pty comes back (socat's PIPE).
socat "pty,raw,echo=0,link=$work/plug" PIPE &
pids+=($!)
com 8 cable-a
com 9 cable-b
com 12 one-b
com 7 three-a
com 6 four-a
com 3 five-b
com 4 plug
wine reg import ports.reg >reg.log 2>&1 || fail "wine reg import ports.reg"
wineserver -k 2>/dev/null || true

# 1. The binary runs, and lists its COM ports.
step "1. argus.exe --version, argus.exe ports"
version=$(exe --version | tr -d '\r')
[ "$version" = "$("$linux" --version)" ] || fail "argus.exe --version says $version"
exe ports >ports.log 2>&1 || fail "argus.exe ports"
grep -q COM8 ports.log || fail "argus.exe ports does not list COM8"

# 2. A Windows player: argus.exe client on COM12 against argus serial on Linux.
step "2. argus.exe client COM12 against argus serial on Linux"
exe client COM12 --engine random --name "Windows random" >win-client.log 2>&1 &
win=$!
"$linux" client two-b --engine random --name "Linux random" >linux-client.log 2>&1 &
pids+=($!)
"$linux" serial one-a two-a --games 2 --tc 60+0.5 --reset-delay 0.3 --conclude-delay 0.3 \
  --pgn two.pgn --journal two.jsonl --plain >serial-linux.log 2>&1 || fail "argus serial on Linux"
wait "$win" || fail "argus.exe client exited $?"
[ "$(grep -c '^\[Result "[012]' two.pgn)" = 2 ] || fail "2 games with a result in two.pgn"
grep -q '"Windows random"' two.pgn || fail "the Windows player's name in two.pgn"

# 3. A Windows referee: argus.exe serial with Linux clients; its journal replays on Linux.
step "3. argus.exe serial COM7 COM6 with Linux clients"
"$linux" client three-b --engine "uci:$stockfish" --limit nodes=2000 >sf-client.log 2>&1 &
pids+=($!)
"$linux" client four-b --engine random >random-client.log 2>&1 &
pids+=($!)
exe serial COM7 COM6 --games 2 --tc 60+0.5 --reset-delay 0.3 --conclude-delay 0.3 \
  --pgn three.pgn --journal three.jsonl --plain >serial-windows.log 2>&1 || fail "argus.exe serial"
[ "$(grep -c '^\[Result "[012]' three.pgn)" = 2 ] || fail "2 games with a result in three.pgn"
grep -q 'Stockfish' three.pgn || fail "Stockfish's name in three.pgn"
"$linux" replay three.jsonl --pgn replayed.pgn >replay.log 2>&1 || fail "argus replay of argus.exe's journal"
tr -d '\r' <three.pgn >three-lf.pgn
cmp -s three-lf.pgn replayed.pgn || {
  diff three-lf.pgn replayed.pgn >replay.log || true
  fail "the replay on Linux differs from argus.exe's PGN"
}

# 4. A Windows engine: argus.exe client runs instant-uci.exe, a path with spaces, as
# docs/club-event.md's step 4 runs Stockfish.
step "4. argus.exe client COM3 --engine \"uci:...\\instant uci.exe\" --name ..."
engine_path="$(winepath -w "$work/argus engines/instant uci.exe" 2>/dev/null | tr -d '\r')"
exe client COM3 --engine "uci:\"$engine_path\"" --name "Instant" >win-engine.log 2>&1 &
win=$!
"$linux" client six-b --engine random >linux-client2.log 2>&1 &
pids+=($!)
"$linux" serial five-a six-a --games 2 --tc 60+0.5 --reset-delay 0.3 --conclude-delay 0.3 \
  --pgn four.pgn --journal four.jsonl --plain >serial-linux2.log 2>&1 || fail "argus serial against the Windows engine"
wait "$win" || fail "argus.exe client with instant-uci.exe exited $?"
[ "$(grep -c '^\[Result "[012]' four.pgn)" = 2 ] || fail "2 games with a result in four.pgn"
grep -q '"Instant"' four.pgn || fail "the Windows engine's name in four.pgn"

# 5. The cable test between two COM ports of one null modem.
step "5. argus.exe cable-test COM8 COM9, argus.exe cable-test COM4 --loopback"
exe cable-test COM8 COM9 >cable.log 2>&1 || fail "argus.exe cable-test COM8 COM9"
grep -q 'cable OK' cable.log || fail "cable-test COM8 COM9 did not say cable OK"
exe cable-test COM4 --loopback >loopback.log 2>&1 || fail "argus.exe cable-test COM4 --loopback"
grep -q 'cable OK' loopback.log || fail "cable-test COM4 --loopback did not say cable OK"

step "passed: argus.exe under Wine ($(wine --version)) as client, referee, engine host and cable tester"
