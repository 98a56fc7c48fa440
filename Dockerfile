# syntax=docker/dockerfile:1
# Core Banking Gateway image: compiled JavaScript on Node 24 LTS, production dependencies only,
# run as a non-root user under tini. Nothing is written outside /tmp, so the root filesystem can
# be read-only (the Helm chart mounts /tmp as an emptyDir).
#
#   docker build -t core-banking-gateway:0.1.0 .
#   docker run --rm -p 8080:8080 -p 8082:8082 core-banking-gateway:0.1.0   # sandbox mode
#
# A static test (test/deploy/dockerfile.test.ts) keeps this file to those rules.

# ---- build: all dependencies, compile TypeScript to dist/ ---------------------------------
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---- production dependencies only ---------------------------------------------------------
FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

# ---- runtime ------------------------------------------------------------------------------
FROM node:24.21.0-bookworm-slim AS runtime
# tini as PID 1: forwards SIGTERM to Node (graceful drain) and reaps zombies.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
# A young generation of 2 x 16 MiB instead of Node 24's 2 x 32: a pod taking a 100,000-key access
# upload peaks near 360 MB instead of 420+, and loading one pauses 25 ms instead of 35-60
# (docs/performance.md, "Access config at scale"); no throughput cost measurable by `npm run bench`. An old generation of
# at most 75 % of the memory the container may use: V8 collects before the pod's limit, not after
# (a 64 MiB access upload peaks near 500 MB in a 512Mi pod instead of 700 MB that a 24 GiB host's
# lazy collection lets grow). The benches read it here.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-semi-space-size=16 --max-old-space-size-percentage=75" \
    PORT=8080 \
    ADMIN_PORT=8081 \
    STATUS_PORT=8082
WORKDIR /app
# Owned by root and not writable by the runtime user: the app only reads them.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config
# The image's own `node` user (uid 1000), by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080 8081 8082
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.STATUS_PORT || 8082) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
