# toolcall-normalizer worker image; helm/ and deploy/compose.yaml run it. Build: docker build -t toolcall-normalizer:0.1.0 .
# Without an image registry, `npm run images` (scripts/images.sh) builds it on locally built bases, and CI runs
# the image hardened as the chart does (test/image/worker-image.test.ts).
#
# - NODE_IMAGE: the base of every stage (default: the official slim image). BUILD_NODE_IMAGE: the base of the
#   stages that run `npm ci` (default: NODE_IMAGE); a site whose package traffic passes a TLS-intercepting proxy
#   points it at a base carrying its CA, which so stays out of the final image;
# - build stage: `npm ci` with dev dependencies, then the TypeScript build (dist/);
# - deps stage: production dependencies only (`npm ci --omit=dev`);
# - runtime: node + dist/ + production node_modules, running as uid/gid 1000 (numeric, so Kubernetes can
#   check runAsNonRoot). The worker writes nothing to disk: it runs with a read-only root filesystem
#   (the chart mounts an emptyDir on /tmp, the only writable path, for anything Node.js may need there).
# - signals: the worker handles SIGTERM/SIGINT itself (finishes and commits the batch in hand, then exits
#   within SHUTDOWN_TIMEOUT_MS). It starts no child processes, so node as PID 1 needs no init (tini) to reap.
ARG NODE_IMAGE=node:24-trixie-slim
ARG BUILD_NODE_IMAGE=${NODE_IMAGE}

FROM ${BUILD_NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${BUILD_NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
COPY --from=deps --chown=0:0 /app/node_modules ./node_modules
COPY --from=build --chown=0:0 /app/dist ./dist
COPY --chown=0:0 package.json ./
# Files stay owned by root and read-only for the worker's user.
USER 1000:1000
# V8's young generation capped at 2 x 16 MB (Node.js 24 sizes it from the host's memory): peak RSS stays near the
# live heap, for more scavenges per call (docs/performance.md "Memory and node flags"). npm run bench:worker reads this line; a
# NODE_OPTIONS set in the chart or compose replaces it whole, so keep the flag in it.
ENV NODE_OPTIONS="--max-semi-space-size=16"
ENV METRICS_PORT=9464
EXPOSE 9464
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["run"]
