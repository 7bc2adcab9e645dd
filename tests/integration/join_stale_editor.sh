#!/bin/sh
# Editors that keep the document open, on two `ensemble join` mirrors of one
# session: FontForge (a /usr/bin/python3 process that opens the font once,
# edits glyphs and saves with font.save() over the same file, never
# reopening it) and a drawing editor that keeps the SVG text in memory and
# saves it in place or by rename, and the same text editor on a Lottie
# animation (.json) editing keyframes of different layers. 20 rounds of saves alternating between
# the two sides, each save stale: no edit may be lost, and a property
# changed on both sides is reported to the user whose save replaced the
# other's. Then the same with editors that reload before every edit.
# Prints the edits made and lost. CTest runs it as
# `join_stale_editor.sh /path/to/build/ensemble`; without FontForge's
# Python module only the drawing and animation parts run.
set -u
BIN=${1:?usage: join_stale_editor.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "skipped: $PY is needed to drive the editors"
  exit 77
fi
if "$PY" -c 'import fontforge' >/dev/null 2>&1; then
  exec "$PY" "$HERE/mirror/stale_editor.py" "$BIN"
fi
echo "FontForge part skipped: $PY cannot import fontforge (apt-get install python3-fontforge)"
"$PY" "$HERE/mirror/stale_editor.py" "$BIN" svg || exit 1
exec "$PY" "$HERE/mirror/stale_editor.py" "$BIN" anim
