#!/bin/sh
# Writes dist/sw.js (public/sw.js, the service worker) with this build's file list and version.
# Run by scripts/embed-build.sh, the Trunk post_build hook, after it has written every file:
# Trunk starts the hooks of one stage together, so the list must come after the embed's files.
#
# - app: the wasm and its JS glue (cached once the app has run, never on a first visit).
# - shell: every other file of the site (pages, stylesheet, boot.js, embed.js, icons, lesson
#   figures), cached at install; not sw.js itself, and not docs-demo.* (the example page for
#   documentation authors).
# - version: a digest of every file's name and content, so any change to any file makes a new
#   sw.js, which browsers install as a new build (the cache name carries it; the old build's
#   cache is deleted when the new one activates).
set -eu
staging="${TRUNK_STAGING_DIR:?this script runs as a Trunk hook}"
root=$(pwd)
cd "$staging"

files=$(find . -type f ! -name sw.js ! -name 'docs-demo.*' | sed 's|^\./||' | LC_ALL=C sort)
for f in $files; do
  case "$f" in
    *[!A-Za-z0-9._/-]*) echo "scripts/sw-build.sh: unexpected character in the file name $f" >&2; exit 1 ;;
  esac
done

list() {
  first=1
  for f in $1; do
    if [ $first = 1 ]; then first=0; else printf ', '; fi
    printf '"%s"' "$f"
  done
}
app=$(printf '%s\n' $files | grep -E '^reconcile-lab-[0-9a-f]+(_bg\.wasm|\.js)$' || true)
shell=$(printf '%s\n' $files | grep -vE '^reconcile-lab-[0-9a-f]+(_bg\.wasm|\.js)$' || true)
if [ "$(printf '%s\n' $app | grep -c .)" != 2 ]; then
  echo "scripts/sw-build.sh: expected one wasm and one JS glue, found: $app" >&2
  exit 1
fi
version=$(for f in $files; do printf '%s %s\n' "$f" "$(sha256sum "$f" | cut -c1-64)"; done | sha256sum | cut -c1-16)

line="const BUILD = { version: \"$version\", shell: [$(list "$shell")], app: [$(list "$app")] };"
awk -v line="$line" '
  /^const BUILD = / { print line; done = 1; next }
  { print }
  END { if (!done) exit 1 }
' "$root/public/sw.js" >sw.js || { echo "scripts/sw-build.sh: public/sw.js has no BUILD line" >&2; exit 1; }
grep -q "version: \"$version\"" sw.js
