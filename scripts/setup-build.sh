#!/usr/bin/env bash
# Installs what building the site needs, and only what is missing or at the wrong version:
# the Rust toolchain rust-toolchain.toml pins and its wasm32 target, Trunk, wasm-bindgen-cli (the
# exact version of the wasm-bindgen crate in Cargo.lock) and wasm-opt (npm's binaryen, the version
# Trunk.toml pins, via `npm ci`).
# Idempotent: when everything is in place it only checks versions (a second or so).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

TRUNK_VERSION=0.21.14

command -v cargo >/dev/null || die "cargo is missing: install Rust with rustup (https://rustup.rs)"

# The Rust that rust-toolchain.toml pins (the size ratchet moves with rustc), with the components
# and the target the build and the tests use. rustup would install it on the first cargo command
# in this directory; installing it here says what is happening and takes the same time.
TOOLCHAIN="$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)"
[ -n "$TOOLCHAIN" ] || die "rust-toolchain.toml names no channel"
if ! rustup toolchain list | grep -q "^$TOOLCHAIN-"; then
  say "installing Rust $TOOLCHAIN (rust-toolchain.toml); a few minutes"
  run rustup toolchain install "$TOOLCHAIN" --profile minimal --component rustfmt,clippy --target wasm32-unknown-unknown
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  run rustup target add wasm32-unknown-unknown
fi

# Trunk: 0.22 needs a newer rustc than this project's, so the version is pinned.
if [ "$(tool_version trunk)" != "$TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (found: $(tool_version trunk | grep . || echo none)); about 10 minutes on 2 cores"
  run cargo install trunk --version "$TRUNK_VERSION" --locked --force
fi

# wasm-bindgen-cli must match the crate exactly; Trunk.toml pins the same version for offline builds.
WBG_VERSION="$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
[ -n "$WBG_VERSION" ] || die "no wasm-bindgen package in Cargo.lock"
TRUNK_WBG="$(sed -n 's/^wasm_bindgen *= *"\(.*\)"/\1/p' Trunk.toml)"
[ "$TRUNK_WBG" = "$WBG_VERSION" ] ||
  die "Trunk.toml pins wasm_bindgen = \"$TRUNK_WBG\" but Cargo.lock has wasm-bindgen $WBG_VERSION: make them equal"
if [ "$(tool_version wasm-bindgen)" != "$WBG_VERSION" ]; then
  say "installing wasm-bindgen-cli $WBG_VERSION (found: $(tool_version wasm-bindgen | grep . || echo none)); a few minutes"
  # Not --locked: the crate's own lock file names a version missing from crates.io.
  run cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force
fi

# wasm-opt: Trunk.toml says `wasm_opt = "version_N"`; `wasm-opt --version` says "wasm-opt version N (...)".
npm_ci_if_needed
WASM_OPT_VERSION="$(sed -n 's/^wasm_opt *= *"version_\(.*\)"/\1/p' Trunk.toml)"
wasm_opt_found() { command -v wasm-opt >/dev/null && wasm-opt --version | awk '{print $3}'; }
if [ "$DRY_RUN" != 1 ] && [ "$(wasm_opt_found)" != "$WASM_OPT_VERSION" ]; then
  die "the first wasm-opt on PATH ($(command -v wasm-opt || echo none)) is version $(wasm_opt_found), \
but Trunk.toml pins version_$WASM_OPT_VERSION: make package.json's binaryen and Trunk.toml agree"
fi

say "build tools ready: trunk $(tool_version trunk), wasm-bindgen $(tool_version wasm-bindgen), wasm-opt $(wasm_opt_found)"
