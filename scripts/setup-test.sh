#!/usr/bin/env bash
# Installs what the tests need beyond the build tools (scripts/setup-build.sh), and only what is
# missing: rustfmt and clippy, and Chromium and chromedriver from Debian's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    say "adding the rustup component $component"
    run rustup component add "$component"
  fi
done

# The browser tests launch $CHROMIUM (tests/e2e/harness.mjs reads the same variable).
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}"
fi

npm_ci_if_needed

say "test tools ready: $("$CHROMIUM" --version 2>/dev/null | awk '{print $1, $2}'), node $(node --version)"
