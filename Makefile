# Reconcile Lab. The two set-up commands (README.md):
#   make serve   build the site and serve it on http://127.0.0.1:8080 (installs missing build tools)
#   make test    every check and test (installs missing build and test tools)
# Also: make dist (deployable dist/), make size (dist/ then a size report), make bench (every
# measurement of issue 9 in one table; BENCHMARKS.md).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# wasm-opt from npm (Trunk.toml), then where `cargo install` puts Trunk and wasm-bindgen
# (scripts/lib.sh uses the same rule).
export PATH := $(CURDIR)/node_modules/.bin:$(or $(CARGO_INSTALL_ROOT),$(CARGO_HOME),$(HOME)/.cargo)/bin:$(PATH)

# `make serve RELEASE=1` serves the optimised build instead of the quicker debug one.
TRUNK_PROFILE := $(if $(RELEASE),--release,)

.PHONY: help setup setup-test fetch serve dist size size-detail lint native-test e2e test bench screenshots

help:
	@echo "make serve   build and serve the site on http://127.0.0.1:8080 (RELEASE=1 for the optimised build)"
	@echo "make test    run every check and test: fmt, clippy (native and wasm), cargo test, release build, size report, browser tests"
	@echo "make dist    build the deployable site into dist/"
	@echo "make size    build dist/ and print the raw and gzip size of each file"
	@echo "make size-detail  build dist/ and print the wasm's bytes per crate and module (needs twiggy)"
	@echo "make bench   build dist/ and run every measurement (size, start-up, step latency, Play, memory, engine) into one table"
	@echo "make screenshots  the control-plane map's pictures in docs/images/, from the dist/ already built (docs/map.md)"

setup:
	scripts/setup-build.sh

setup-test:
	scripts/setup-test.sh

# Trunk builds offline (Trunk.toml), so the crates are fetched first.
fetch:
	cargo fetch --locked

serve: setup fetch
	trunk serve $(TRUNK_PROFILE)

dist: setup fetch
	trunk build --release

size: dist
	node scripts/size-report.mjs dist

# Where the wasm's bytes are (docs/size.md): per crate, per module of ours, monomorphisations.
size-detail: dist
	node scripts/size-crates.mjs

lint: setup setup-test fetch
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --bins -- -D warnings

# Property tests draw their cases from a fixed seed here, so a run is repeatable; the long,
# exploring runs are documented in docs/reliability.md (PROPTEST_RNG_SEED unset there).
native-test: fetch
	PROPTEST_RNG_SEED=$${PROPTEST_RNG_SEED:-20261129} cargo test

# Browser tests against the dist/ already built (make dist).
e2e:
	node --test tests/e2e/

# One release build per run: the size report and the browser tests share it. The browser tests come
# last so that the output ends with the test runners' summary.
test: lint native-test dist
	node scripts/size-report.mjs dist
	node --test tests/e2e/

# Every measurement of issue 9 in one table (scripts/bench.mjs; about 15 minutes): the release
# build, its size, the page in headless Chromium, the engine's cargo benches. BENCH_FLAGS=--quick
# for a shorter run; the table is also written to BENCHMARKS.md.
bench: setup-test dist
	node scripts/bench.mjs --write BENCHMARKS.md $(BENCH_FLAGS)

# The pictures of docs/map.md, taken in headless Chromium from the dist/ already built (make dist).
screenshots: setup-test
	node scripts/screenshots.mjs --out docs/images
