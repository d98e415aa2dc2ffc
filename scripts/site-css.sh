#!/bin/sh
# Trunk pre_build hook (Trunk.toml): writes target/site.css, every stylesheet of style/ in one
# file, which index.html (and so embed.html) links. One request instead of one per component, and
# gzip compresses the files together: 9.0 KiB gzipped as separate files, about 5 KiB as one
# (docs/size.md).
#
# The order is the cascade's: theme first (the custom properties), then each component. A new
# stylesheet must be added to this list; the build fails if a file of style/ is missing from it
# (or the list names a file that does not exist), so no stylesheet is silently left out.
set -eu
ORDER="theme site-header tabs layout panel fatal-error stepping next timeline console editor views map owner-graph
objects lessons share copy shortcuts embed start"

for f in style/*.css; do
  name=$(basename "$f" .css)
  case " $(echo $ORDER) " in
    *" $name "*) ;;
    *) echo "scripts/site-css.sh: $f is not in the stylesheet order; add it to ORDER" >&2; exit 1 ;;
  esac
done
mkdir -p target
out=target/site.css.tmp
: >"$out"
for name in $ORDER; do
  if [ ! -f "style/$name.css" ]; then
    echo "scripts/site-css.sh: style/$name.css is in ORDER but does not exist" >&2
    exit 1
  fi
  printf '/* style/%s.css */\n' "$name" >>"$out"
  cat "style/$name.css" >>"$out"
  printf '\n' >>"$out"
done
# Replaced only when it changed, so that `trunk serve` does not see a new file on every build.
if cmp -s "$out" target/site.css 2>/dev/null; then rm "$out"; else mv "$out" target/site.css; fi
