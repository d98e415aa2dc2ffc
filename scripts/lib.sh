# Shared helpers for the set-up scripts (sourced, not run).

# Tools that `cargo install` puts in place are found first, wherever cargo installs them.
CARGO_BIN="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"
# wasm-opt comes from the npm package binaryen, installed into node_modules/ (see Trunk.toml).
export PATH="$PWD/node_modules/.bin:$CARGO_BIN:$PATH"

# SETUP_DRY_RUN=1 prints what would be installed instead of installing it (to test the checks).
DRY_RUN="${SETUP_DRY_RUN:-0}"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Runs a command, or only prints it in a dry run.
run() {
  if [ "$DRY_RUN" = 1 ]; then
    say "would run: $*"
  else
    "$@"
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then
    run "$@"
  elif command -v sudo >/dev/null; then
    run sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

# Installs Debian packages; refreshes the package lists once per run, since a fresh machine may have none.
APT_UPDATED=0
apt_install() {
  say "installing from apt: $*"
  if [ "$APT_UPDATED" = 0 ]; then
    as_root apt-get update -qq
    APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# Prints the version of `tool` as the second word of `tool --version`'s first line, or nothing.
tool_version() {
  command -v "$1" >/dev/null || return 0
  "$1" --version 2>/dev/null | head -n 1 | awk '{print $2}'
}

# Installs the npm dependencies (wasm-opt from binaryen; playwright-core for the browser tests) with
# `npm ci` against the committed package-lock.json, again only when that file has changed.
npm_ci_if_needed() {
  command -v node >/dev/null || die "node is missing: building and testing need Node.js 20 or later"
  node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
    die "node $(node --version) is too old: building and testing need Node.js 20 or later"
  local stamp=node_modules/.package-lock.sha256 want
  want="$(sha256sum package-lock.json | awk '{print $1}')"
  if [ ! -d node_modules ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    say "installing the npm dependencies (npm ci)"
    # playwright-core never downloads browsers; the tests drive /usr/bin/chromium.
    run env PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
    [ "$DRY_RUN" = 1 ] || echo "$want" >"$stamp"
  fi
}
