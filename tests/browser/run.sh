#!/bin/sh
# Runs one browser test (tests/browser/NAME.mjs) with Playwright on Debian's
# chromium. The npm packages (playwright-core, pinned in package-lock.json) are
# installed here by `npm ci` on first use; no browser is ever downloaded.
# CTest runs it as `run.sh NAME /path/to/build`; 77 = skipped.
set -u
NAME=${1:?usage: run.sh NAME BUILD_DIR}
BUILD=${2:?usage: run.sh NAME BUILD_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
CHROMIUM=${ENSEMBLE_CHROMIUM:-/usr/bin/chromium}

command -v node >/dev/null 2>&1 || { echo "skipped: no node"; exit 77; }
[ -x "$CHROMIUM" ] || { echo "skipped: no chromium at $CHROMIUM"; exit 77; }
if [ ! -d "$HERE/node_modules/playwright-core" ]; then
  # PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: playwright-core downloads nothing, but say it anyway
  (cd "$HERE" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent) ||
    { echo "skipped: npm ci failed in tests/browser (no registry?)"; exit 77; }
fi
ENSEMBLE_CHROMIUM=$CHROMIUM exec timeout 280 node "$HERE/$NAME.mjs" "$(cd "$BUILD" && pwd)"
