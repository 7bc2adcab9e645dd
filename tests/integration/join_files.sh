#!/bin/sh
# What `ensemble join --file PATH` leaves on disk when a collaborator's edit
# makes it rewrite PATH: mode and owner kept, a symbolic link written
# through, a join killed at its rename (strace) leaving PATH whole and its
# temporary file removed by the next join. CTest runs it as
# `join_files.sh /path/to/build/ensemble`; the kill is skipped without
# strace, the owner check when not run as root.
set -u
BIN=${1:?usage: join_files.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "skipped: $PY is needed to drive the test"
  exit 77
fi
exec "$PY" "$HERE/mirror/files.py" "$BIN"
