#!/bin/sh
# PATH edited (by FontForge) while `ensemble join` was stopped: at the next
# join the edits are merged with the collaborators' and sent, never
# overwritten; a join killed right after sending a save loses nothing; the
# same PATH joined to another session is refused. CTest runs it as
# `join_offline_edits.sh /path/to/build/ensemble`; exit 77 (skipped)
# without FontForge's Python module.
set -u
BIN=${1:?usage: join_offline_edits.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
if ! "$PY" -c 'import fontforge' >/dev/null 2>&1; then
  echo "skipped: $PY cannot import fontforge; install it with: apt-get install python3-fontforge"
  exit 77
fi
exec "$PY" "$HERE/mirror/offline_edits.py" "$BIN"
