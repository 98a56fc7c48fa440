#!/usr/bin/env bash
# Runs the README's test command (`npm test`) on Node 24 LTS, the runtime of the Docker image, so
# that CI tests what production runs. When the machine's Node is older, the exact version the
# Dockerfile's base image pins is installed from the npm registry's `node` package into a
# temporary prefix (removed on exit) and put first on PATH; nothing else on the machine changes.
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(sed -n 's/^FROM node:\(24\.[0-9]*\.[0-9]*\)-.*/\1/p' Dockerfile | head -n 1)"
if [ -z "$version" ]; then
  echo "node24: no 'FROM node:24.x.y-...' line in Dockerfile" >&2
  exit 1
fi

current_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$current_major" -lt 24 ]; then
  prefix="$(mktemp -d)"
  trap 'rm -rf "$prefix"' EXIT
  echo "node24: installing node@$version (machine has $(node --version))"
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node@$version" >/dev/null
  export PATH="$prefix/node_modules/.bin:$PATH"
fi

echo "node24: running npm test on $(node --version)"
npm test
