# toolcall-normalizer worker image; helm/ and deploy/compose.yaml run it. Build: docker build -t toolcall-normalizer:0.1.0 \
#   --build-arg IMAGE_VERSION=0.1.0 --build-arg IMAGE_REVISION=$(git rev-parse HEAD) --build-arg IMAGE_SOURCE=<repo URL> .
# Without an image registry, `npm run images` (scripts/images.sh) builds it on locally built bases, and CI runs
# the image hardened as the chart does (test/image/worker-image.test.ts).
#
# - NODE_IMAGE: the base of every stage (default: the official slim image). BUILD_NODE_IMAGE: the base of the
#   stages that run `npm ci` (default: NODE_IMAGE); a site whose package traffic passes a TLS-intercepting proxy
#   points it at a base carrying its CA, which so stays out of the final image;
# - build stage: `npm ci` with dev dependencies, then the TypeScript build (dist/);
# - deps stage: production dependencies only (`npm ci --omit=dev`);
# - sbom stage: a CycloneDX 1.6 bill of materials of exactly the deps stage's node_modules (cyclonedx-npm, a dev
#   dependency, run with --omit dev), shipped as /usr/share/toolcall-normalizer/sbom.cdx.json;
# - runtime: node + dist/ + production node_modules, running as uid/gid 1000 (numeric, so Kubernetes can
#   check runAsNonRoot). The worker writes nothing to disk: it runs with a read-only root filesystem
#   (the chart mounts an emptyDir on /tmp, the only writable path, for anything Node.js may need there).
# - signals: the worker handles SIGTERM/SIGINT itself (finishes and commits the batch in hand, then exits
#   within SHUTDOWN_TIMEOUT_MS). tini is PID 1: node as PID 1 would ignore a SIGTERM that comes before its handler
#   exists (a pod scaled away while node still loads) and be killed at the end of its grace period; under tini the
#   signal ends node then, before it has read anything, and `-e 143` reports that stop as the 0 it is.
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

# The generator reads the shipped tree (npm ls over the deps stage's node_modules), not the build stage's.
FROM build AS sbom
WORKDIR /shipped
COPY package.json package-lock.json ./
COPY --from=deps /app/node_modules ./node_modules
RUN node /app/node_modules/@cyclonedx/cyclonedx-npm/bin/cyclonedx-npm-cli.js --omit dev --spec-version 1.6 \
      --output-reproducible --output-format JSON --output-file /sbom.cdx.json package.json

FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log \
 && tini --version
WORKDIR /app
COPY --from=deps --chown=0:0 /app/node_modules ./node_modules
COPY --from=build --chown=0:0 /app/dist ./dist
COPY --chown=0:0 package.json ./
COPY --from=sbom --chown=0:0 /sbom.cdx.json /usr/share/toolcall-normalizer/sbom.cdx.json
# Files stay owned by root and read-only for the worker's user.
USER 1000:1000
# V8's young generation capped at 2 x 16 MB (Node.js 24 sizes it from the host's memory): peak RSS stays near the
# live heap, for more scavenges per call (docs/performance.md "Memory and node flags"). npm run bench:worker reads this line; a
# NODE_OPTIONS set in the chart or compose replaces it whole, so keep the flag in it.
ENV NODE_OPTIONS="--max-semi-space-size=16"
ENV METRICS_PORT=9464
EXPOSE 9464
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "-e", "143", "--", "node", "dist/cli.js"]
CMD ["run"]
# OCI annotations: scripts/images.sh passes version (package.json), revision (the newest commit of the image's
# inputs) and source (IMAGE_SOURCE, else the git remote). Last, so a new revision relabels without rebuilding a layer.
ARG IMAGE_VERSION=unknown
ARG IMAGE_REVISION=unknown
ARG IMAGE_SOURCE=unknown
LABEL org.opencontainers.image.title="toolcall-normalizer" \
      org.opencontainers.image.description="Repairs and validates LLM tool-call arguments (RT-TOOL-8): Kafka stream worker" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${IMAGE_VERSION}" \
      org.opencontainers.image.revision="${IMAGE_REVISION}" \
      org.opencontainers.image.source="${IMAGE_SOURCE}" \
      toolcall-normalizer.sbom="/usr/share/toolcall-normalizer/sbom.cdx.json"
