#!/bin/sh
# Trunk post_build hook (Trunk.toml): derives the embed from the page Trunk just built, so one
# release build serves both. embed.html is index.html (same wasm, same CSS, same strict CSP) with
# its own title, without the site navigation, and with a start view in place of the home page:
# the home's lesson list goes into an inert <template> (public/boot.js reads the lesson's title
# and summary from it), then "Start the playground" with the size of what starting downloads
# (the wasm and its JS glue, gzipped as a server would send them), measured here on the files
# just built. The wasm mounts the embed when its page is embed.html (src/web/embed.rs).
# Before that, index.html's boot.js tag gets data-wasm-size, the wasm's size in bytes: the
# total of the download's progress bar when a server compresses the wasm (public/boot.js).
# Then the files documentation authors use: embed.js and the demo page; last, the service
# worker with the list of every file (scripts/sw-build.sh).
set -eu
staging="${TRUNK_STAGING_DIR:?this script runs as a Trunk hook}"

wasm_bytes=$(cat "$staging"/*_bg.wasm | wc -c)
sed "s|data-wasm=\"\([^\"]*\)\"|data-wasm=\"\1\" data-wasm-size=\"$wasm_bytes\"|" "$staging/index.html" >"$staging/index.html.tmp"
mv "$staging/index.html.tmp" "$staging/index.html"
grep -q "data-wasm-size=\"$wasm_bytes\"" "$staging/index.html"

bytes=0
for f in "$staging"/*_bg.wasm "$staging"/reconcile-lab-*.js; do
  [ -f "$f" ] || { echo "scripts/embed-build.sh: no wasm or JS glue in $staging" >&2; exit 1; }
  bytes=$((bytes + $(gzip -9 -c "$f" | wc -c)))
done
kb=$(((bytes + 500) / 1000))

awk -v kb="$kb" '
  /<title>Reconcile Lab<\/title>/ { sub(/<title>Reconcile Lab<\/title>/, "<title>Reconcile Lab (embedded)</title>") }
  /<meta property="og:title"/ { print "    <meta property=\"og:title\" content=\"Reconcile Lab playground\" />"; next }
  /<meta (name="description"|property="og:description")/ {
    match($0, /<meta [a-z]+="[a-z:]+"/)
    print "    " substr($0, RSTART, RLENGTH) " content=\"A live, miniature Kubernetes cluster and its controllers in your browser: type kubectl commands and step through what the controllers do, one event at a time.\" />"
    next
  }
  /<!-- nav:start/ { skipping = 1 }
  skipping { if ($0 ~ /<!-- nav:end -->/) skipping = 0; next }
  /<!-- home:start/ {
    print "    <!-- The lessons, for the start view'\''s title and sentence (public/boot.js). -->"
    print "    <template id=\"embed-lessons\">"
    next
  }
  /<!-- home:end -->/ {
    print "    </template>"
    print "    <!-- The start view (public/boot.js): the app loads when the learner or the host page asks. -->"
    print "    <section class=\"embed-start\" id=\"embed-start\" aria-labelledby=\"embed-start-title\">"
    print "      <p class=\"embed-start__brand\">Reconcile Lab</p>"
    print "      <h1 class=\"embed-start__title\" id=\"embed-start-title\">Sandbox</h1>"
    print "      <p class=\"embed-start__what\">A miniature Kubernetes cluster and its controllers, running in your browser:"
    print "        type kubectl commands and step through what the controllers do, one event at a time.</p>"
    print "      <button type=\"button\" class=\"embed-start__button\">Start the playground (downloads " kb " KB)</button>"
    print "      <p class=\"embed-start__status\" role=\"status\"></p>"
    print "    </section>"
    next
  }
  { print }
' "$staging/index.html" >"$staging/embed.html"
grep -q '<title>Reconcile Lab (embedded)</title>' "$staging/embed.html"
grep -q '<template id="embed-lessons">' "$staging/embed.html"
grep -q "Start the playground (downloads $kb KB)" "$staging/embed.html"
if grep -q 'class="site-nav"' "$staging/embed.html"; then
  echo "scripts/embed-build.sh: the site navigation is still in embed.html" >&2
  exit 1
fi
grep -q '<meta property="og:title" content="Reconcile Lab playground" />' "$staging/embed.html"
cp public/embed.js public/docs-demo.html public/docs-demo.css public/favicon.svg "$staging/"
sh scripts/sw-build.sh
