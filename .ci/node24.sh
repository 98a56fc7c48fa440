#!/usr/bin/env bash
# Runs the README's test command (`npm test`) on Node 24 LTS, the runtime of the Docker image,
# installed from the npm registry when the machine's Node is another major (use-node.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/use-node.sh
use_node "$(dockerfile_node_version)"
npm test
