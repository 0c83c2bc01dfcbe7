#!/usr/bin/env bash
# Start (install and seed once) a phpBB of the engine lab, as ../../../../shared/engines/phpbb/up.sh
# does, but without its last step, which rewrites the lab's shared phpbb/truth.json (that file
# describes the instance on 18090). Defaults: the big instance, 127.0.0.1:18091.
#   PHPBB_PORT=18091 PHPBB_STATE=/tmp/acceptance/phpbb-big bash tests/archive/lab/up.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ENGINES="${ENGINES:-$(cd "$HERE/../../../../shared/engines" && pwd)}"
export PHPBB_PORT="${PHPBB_PORT:-18091}" PHPBB_STATE="${PHPBB_STATE:-/tmp/acceptance/phpbb-big}"
export ENGINE_SOURCES="${ENGINE_SOURCES:-$(d="$ENGINES"; while [ "$d" != / ] && [ ! -d "$d/.mirror" ]; do d=$(dirname "$d"); done; echo "$d/.mirror")}"
mkdir -p "$PHPBB_STATE"
sed -e "s|^HERE=.*|HERE=\"$ENGINES/phpbb\"|" -e '/ground_truth.py/d' "$ENGINES/phpbb/up.sh" >"$PHPBB_STATE/up-lab.sh"
exec bash "$PHPBB_STATE/up-lab.sh"
