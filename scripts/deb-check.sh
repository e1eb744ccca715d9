#!/usr/bin/env bash
# Installs argus's Debian package (scripts/dist.sh) on this machine and checks it as a
# club organiser would meet it: the files it puts on the system and nothing else, then
# `argus demo` run from the installed binary, in a scratch folder.
#
#   sudo scripts/deb-check.sh target/packages/argus_VERSION-1_amd64.deb
#
# It replaces an argus package already installed. Run it where that does not matter (CI,
# a scratch machine); `apt-get remove argus` takes the package away again.
set -euo pipefail
deb=${1:?usage: $0 PACKAGE.deb}
[ -f "$deb" ] || { echo "deb-check: no file $deb" >&2; exit 1; }
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

apt-get install -y -qq --reinstall "$deb" >/dev/null
echo "deb-check: installed $(dpkg-query -W -f '${Package} ${Version} (${Installed-Size} KiB)' argus)"

# What it installs: the binary, the unit, the udev rules and the package's own docs.
expected="/lib/systemd/system/argus-referee.service
/lib/udev/rules.d/99-argus.rules
/usr/bin/argus
/usr/share/doc/argus/README.md
/usr/share/doc/argus/copyright"
files=$(dpkg -L argus | while read -r f; do [ -d "$f" ] || echo "$f"; done | sort)
if [ "$files" != "$expected" ]; then
  echo "deb-check: the package installs other files than expected:" >&2
  diff <(echo "$expected") <(echo "$files") >&2 || true
  exit 1
fi
# Nothing is started or enabled by installing it.
if command -v systemctl >/dev/null && systemctl is-enabled argus-referee >/dev/null 2>&1; then
  echo "deb-check: installing the package enabled argus-referee" >&2
  exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
[ "$(command -v argus)" = /usr/bin/argus ] || [ "$(command -v argus)" = /usr/local/bin/argus ] || {
  echo "deb-check: argus is not on PATH after installing" >&2
  exit 1
}
/usr/bin/argus --version
/usr/bin/argus demo --games 1 >demo.log
grep -q '^\[Result "' argus-demo.pgn || { echo "deb-check: the demo wrote no game" >&2; cat demo.log >&2; exit 1; }
echo "deb-check: /usr/bin/argus demo played $(grep -c '^\[Result' argus-demo.pgn) game: $(grep '^\[Result' argus-demo.pgn)"
