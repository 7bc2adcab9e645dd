# Sourced by the shell tests: counted checks and the closing summary.
# `fail WHAT` counts a failure and says it; `check WHAT STATUS WANT` counts a
# check of an exit status; `edit FILE COMMAND...` applies one `ensemble edit`
# command to FILE in place ($BIN is the binary); `checks_end NAME` prints the
# counts and is the script's exit status.
checks=0
failures=0
fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
}
check() { # check WHAT STATUS WANT
  checks=$((checks + 1))
  [ "$2" -eq "$3" ] || fail "$1: exit status $2, want $3"
}
edit() { # edit FILE COMMAND...
  f=$1
  shift
  printf '%s\n' "$*" | "$BIN" edit "$f" -o "$f" || fail "edit $f: $*"
}
checks_end() { # checks_end NAME
  echo "$1: $checks checks, $failures failures"
  [ "$failures" -eq 0 ]
}
