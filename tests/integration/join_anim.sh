#!/bin/sh
# `ensemble join` and `ensemble watch` on Lottie animations: .json and .tgs
# mirrors byte for byte, a text editor's keyframe edit, two editors saving
# different layers at once, a conflict on one keyframe, a mirror killed
# and joined again, a .lottie refused (mirror/anim.py). CTest runs it as
# `join_anim.sh /path/to/build/ensemble`.
set -u
BIN=${1:?usage: join_anim.sh /path/to/ensemble}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
  echo "skipped: $PY is needed to drive the test"
  exit 77
fi
exec "$PY" "$HERE/mirror/anim.py" "$BIN"
