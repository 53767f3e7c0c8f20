# syntax=docker/dockerfile:1
# The resty-ingress image: the controller bundled (`npm run build`,
# scripts/build.ts: the entry script's import closure and the npm packages it
# uses, as a launcher and a few chunks, no tests), run by the official Node 24
# binary on Debian trixie slim, with NGINX + ngx_lua from Debian trixie's own
# packages. scripts/dockerfile.test.ts checks this file against the code: the
# package list is the one `npm run setup` uses, every COPY source exists, the
# build's output is what the entrypoint runs, and the paths the controller
# looks for in the image are where we put them. scripts/image-size.ts estimates
# the image's size from the same lists.

# Both images are Debian trixie: the Node binary copied from the first runs on the second's libraries.
ARG NODE_IMAGE=node:24-trixie-slim
ARG DEBIAN_IMAGE=debian:trixie-slim

# --- build: install everything, type-check and bundle the shipped code. The
# bundle holds the npm packages it uses, so no node_modules reaches the runtime.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- runtime: Debian slim plus the node binary alone (the Node image's npm,
# corepack and C headers are ~80 MB that nothing here runs).
FROM ${DEBIAN_IMAGE} AS runtime
# The data-plane packages are exactly scripts/dataplane-packages.txt (the file
# the test set-up unpacks), so tests and image cannot drift apart. tini is
# PID 1: it forwards SIGTERM to node (which drains and stops NGINX itself) and
# reaps orphaned NGINX workers, which node as PID 1 would leave as zombies.
# The user is uid/gid 1000, what the chart runs as.
COPY scripts/dataplane-packages.txt /tmp/dataplane-packages.txt
# hadolint ignore=DL3008
RUN apt-get update \
 && sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' /tmp/dataplane-packages.txt \
    | xargs apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /tmp/dataplane-packages.txt \
 && ln -sf /dev/stderr /var/log/nginx/error.log \
 && ln -sf /dev/stdout /var/log/nginx/access.log \
 && groupadd --gid 1000 resty \
 && useradd --uid 1000 --gid 1000 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin resty
COPY --from=build /usr/local/bin/node /usr/local/bin/node

WORKDIR /app
# dist/: bin/resty-ingress.js (the launcher), chunks/ (the bundle), package.json
# ("type": "module") and THIRD-PARTY-NOTICES (the bundled packages' licences).
COPY --from=build /src/dist/ /app/
# Where controller/src/nginx/dataplane.ts (systemDataplane) and
# controller/src/controller.ts (templateDir) look when not in a checkout.
COPY --from=build /src/lua/resty_ingress /etc/nginx/lua/resty_ingress
COPY --from=build /src/rootfs/etc/nginx/template /etc/nginx/template
COPY --from=build /src/rootfs/etc/nginx/njs /etc/nginx/njs

# The commit nginx_ingress_controller_build_info reports (`docker build --build-arg
# RESTY_INGRESS_BUILD_COMMIT=$(git rev-parse HEAD)`); empty = "UNKNOWN", as ingress-nginx.
ARG RESTY_INGRESS_BUILD_COMMIT=""
ENV NODE_ENV=production \
    RESTY_INGRESS_BUILD_COMMIT=${RESTY_INGRESS_BUILD_COMMIT}
USER 1000:1000
# NGINX HTTP/HTTPS (unprivileged: the Service maps 80/443), /healthz + /metrics.
EXPOSE 8080 8443 10254
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/resty-ingress.js"]
CMD ["--http-port=8080", "--https-port=8443"]
