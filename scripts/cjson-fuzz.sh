#!/usr/bin/env bash
# Fetch cJSON's Debian source package for the fuzz build, so that cJSON can be
# compiled with the same sanitizer and coverage flags as libtoolwire.
#
#   scripts/cjson-fuzz.sh [DIR]      (default: build-fuzz-deps/cjson)
#
# Prints the directory that holds cJSON.c and include/cjson/cJSON.h.
# Idempotent: a second run reuses the cached copy. When no deb-src entry is
# configured, one is added for the configured Debian suites (mirroring the
# existing deb entries) in /etc/apt/sources.list.d/toolwire-deb-src.sources.
# The normal build keeps using the system libcjson.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/build-fuzz-deps/cjson}
case $dest in /*) ;; *) dest=$root/$dest ;; esac

if [ -f "$dest/cJSON.c" ] && [ -f "$dest/include/cjson/cJSON.h" ]; then
  echo "$dest"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

have_deb_src() {
  grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

if ! have_deb_src; then
  tmp=$(mktemp)
  # deb822 stanzas: copy every "Types: deb" stanza as "Types: deb-src".
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*deb([ \t]|\n|$)/ {
           gsub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f" >>"$tmp"
  done
  # one-line style
  if [ -f /etc/apt/sources.list ]; then
    sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list >>"$tmp.list" || true
  fi
  if [ -s "$tmp" ]; then
    $SUDO install -m 0644 "$tmp" /etc/apt/sources.list.d/toolwire-deb-src.sources
  elif [ -s "$tmp.list" ]; then
    $SUDO install -m 0644 "$tmp.list" /etc/apt/sources.list.d/toolwire-deb-src.list
  else
    # nothing to mirror: the configured suite from os-release
    . /etc/os-release
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\n' \
      "${VERSION_CODENAME:?no VERSION_CODENAME}" >"$tmp"
    $SUDO install -m 0644 "$tmp" /etc/apt/sources.list.d/toolwire-deb-src.sources
  fi
  rm -f "$tmp" "$tmp.list"
  $SUDO apt-get update -qq >&2
fi

if ! command -v dpkg-source >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends dpkg-dev >&2
fi

work="$dest.fetch"
rm -rf "$work"
mkdir -p "$work"
# The version of the installed libcjson-dev when there is one, so the fuzzed
# cJSON is the one the normal build links.
ver=$(dpkg-query -W -f='${Version}' libcjson-dev 2>/dev/null || true)
(
  cd "$work"
  if [ -n "$ver" ] && apt-get source -qq "cjson=$ver" >&2 2>/dev/null; then
    :
  else
    apt-get source -qq cjson >&2
  fi
)
src=$(find "$work" -maxdepth 2 -name cJSON.c -printf '%h\n' | head -n1)
if [ -z "$src" ]; then
  echo "cjson-fuzz: apt-get source cjson gave no cJSON.c" >&2
  exit 1
fi
rm -rf "$dest"
mkdir -p "$dest/include/cjson"
cp "$src/cJSON.c" "$src/cJSON.h" "$dest/"
cp "$src/cJSON.h" "$dest/include/cjson/cJSON.h"
cp "$src/LICENSE" "$dest/" 2>/dev/null || true
basename "$(find "$work" -maxdepth 1 -name '*.dsc' | head -n1)" .dsc >"$dest/VERSION" 2>/dev/null || true
rm -rf "$work"
echo "$dest"
