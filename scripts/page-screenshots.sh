#!/bin/sh
# Remakes docs/views-1280x720.png and docs/views-1920x1080.png: the audience's page of
# an `argus serve` gauntlet (six games, four at once) on wall screens of those sizes,
# when two games have finished and four are under way. Needs Debian's chromium,
# stockfish, fairymax and gnuchess; takes about a minute after the build.
set -eu
cd "$(dirname "$0")/.."
UPDATE_SCREENSHOT=1 cargo test --test page -- --ignored --exact wall_screen_screenshots
ls -l docs/views-1280x720.png docs/views-1920x1080.png
