#!/usr/bin/env bash
# The packages a club organiser installs argus from, without a Rust toolchain, made in
# one command on Linux:
#
#   scripts/dist.sh [OUTDIR]          (default target/packages)
#
#   argus-VERSION-x86_64-linux.tar.gz     the binary, README, docs/, hw/ (the cables and
#                                         the udev rules) and the systemd unit
#   argus-VERSION-x86_64-windows.zip      argus.exe, README, docs/ and hw/
#   argus_VERSION-1_amd64.deb             /usr/bin/argus, the systemd unit and the udev
#                                         rules, and nothing else (cargo-deb)
#
# Needs: gcc-mingw-w64-x86-64 and zip (apt-get), the Rust target x86_64-pc-windows-gnu
# (rustup target add x86_64-pc-windows-gnu) and cargo-deb (cargo install cargo-deb).
# PROFILE picks the cargo profile (default dist: one optimised unit, the smallest and
# fastest binary, several minutes more to build; CI uses release).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

out=${1:-target/packages}
profile=${PROFILE:-dist}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
windows=x86_64-pc-windows-gnu
dir_of() { if [ "$profile" = dev ]; then echo debug; else echo "$profile"; fi; }

for tool in x86_64-w64-mingw32-gcc zip; do
  command -v "$tool" >/dev/null || {
    echo "dist: $tool is missing (apt-get install gcc-mingw-w64-x86-64 zip)" >&2
    exit 1
  }
done
cargo deb --version >/dev/null 2>&1 || {
  echo "dist: cargo-deb is missing (cargo install cargo-deb --locked)" >&2
  exit 1
}

started=$(date +%s)
step() { echo "dist: [$(($(date +%s) - started)) s] $*"; }

step "building argus for Linux ($profile)"
cargo build --locked --profile "$profile" --bin argus
step "building argus.exe for Windows ($profile)"
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
  cargo build --locked --profile "$profile" --target "$windows" --bin argus

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# What both archives hold besides the binary: how to use it and how to wire it.
docs() {
  mkdir -p "$1"
  cp README.md "$1/"
  cp -r docs hw "$1/"
}

linux="argus-$version-x86_64-linux"
step "$linux.tar.gz"
docs "$stage/$linux"
install -m 755 "target/$(dir_of)/argus" "$stage/$linux/argus"
strip "$stage/$linux/argus"
cp scripts/argus-referee.service "$stage/$linux/"
tar -C "$stage" --owner=0 --group=0 -czf "$out/$linux.tar.gz" "$linux"

win="argus-$version-x86_64-windows"
step "$win.zip"
docs "$stage/$win"
cp "target/$windows/$(dir_of)/argus.exe" "$stage/$win/argus.exe"
x86_64-w64-mingw32-strip "$stage/$win/argus.exe"
rm -f "$out/$win.zip"
(cd "$stage" && zip -qr "$out/$win.zip" "$win")

step "the Debian package"
cargo deb --no-build --strip --profile "$profile" --output "$out" >/dev/null

step "done:"
ls -l "$out"/argus-"$version"-x86_64-linux.tar.gz "$out/$win.zip" "$out"/argus_"$version"*.deb
