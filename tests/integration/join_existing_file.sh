#!/bin/sh
# `ensemble join --file PATH` over an existing PATH that differs from the
# session: refused with a message, PATH untouched; with --replace, moved
# aside to a backup that join names. CTest runs it as
# `join_existing_file.sh /path/to/build/ensemble`.
set -u
BIN=${1:?usage: join_existing_file.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "skipped: $PY is needed to drive the test"
  exit 77
fi
exec "$PY" "$HERE/mirror/existing_file.py" "$BIN"
