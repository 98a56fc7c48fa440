#!/usr/bin/env bash
# Sourced by the CI scripts: `use_node VERSION` puts Node VERSION first on PATH for the rest of
# the calling script. When the machine's `node` is another major version, the exact VERSION is
# installed from the npm registry's `node` package into a temporary prefix (removed when the
# calling script exits); nothing else on the machine changes. Node 24 LTS is the runtime (the
# Dockerfile pins it); Node 22 is the oldest supported (`engines`), so CI tests both.

# The Node 24 the Dockerfile's base image pins: CI tests what production runs.
dockerfile_node_version() {
  local version
  version="$(sed -n 's/^FROM node:\(24\.[0-9]*\.[0-9]*\)-.*/\1/p' Dockerfile | head -n 1)"
  if [ -z "$version" ]; then
    echo "use-node: no 'FROM node:24.x.y-...' line in Dockerfile" >&2
    return 1
  fi
  echo "$version"
}

_use_node_prefixes=()
_use_node_cleanup() { local p; for p in "${_use_node_prefixes[@]}"; do rm -rf "$p"; done; }
trap _use_node_cleanup EXIT

use_node() {
  local version="$1" wanted_major current_major prefix
  wanted_major="${version%%.*}"
  current_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$current_major" != "$wanted_major" ]; then
    prefix="$(mktemp -d)"
    _use_node_prefixes+=("$prefix")
    echo "use-node: installing node@$version (machine has $(node --version 2>/dev/null || echo none))"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node@$version" >/dev/null
    export PATH="$prefix/node_modules/.bin:$PATH"
  fi
  echo "use-node: $(node --version)"
}
