#!/bin/sh
# Trunk post_build hook (Trunk.toml): derives the embed from the page Trunk just built, so one
# release build serves both. embed.html is index.html (same wasm, same CSS, same strict CSP) with
# its own title; the wasm mounts the embed when its page is embed.html (src/web/embed.rs).
# Then the files documentation authors use: embed.js and the demo page.
set -eu
staging="${TRUNK_STAGING_DIR:?this script runs as a Trunk hook}"
sed -e 's|<title>Reconcile Lab</title>|<title>Reconcile Lab (embedded)</title>|' \
  "$staging/index.html" >"$staging/embed.html"
grep -q '<title>Reconcile Lab (embedded)</title>' "$staging/embed.html"
cp public/embed.js public/docs-demo.html public/docs-demo.css public/favicon.svg "$staging/"
