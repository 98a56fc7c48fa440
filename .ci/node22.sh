#!/usr/bin/env bash
# Runs the unit and component projects of the README's test command (`npm test`) on Node 22, the
# oldest Node that `engines` allows (>=22.12), installed from the npm registry when the machine's
# Node is another major. The e2e project ran on Node 24 just before; what differs between the two
# majors (language, node: modules, ioredis over sockets) is exercised by these two projects, and
# leaving e2e out keeps CI near its 10-minute aim.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/use-node.sh
# Pinned, so a new 22.x release cannot change CI unseen; raise it with Node 22's maintenance releases.
use_node 22.23.3
npm test -- --selectProjects unit component
