# syntax=docker/dockerfile:1
# The resty-ingress image: Node 24 runs the TypeScript sources directly (type
# stripping, no build output), NGINX + ngx_lua come from Debian trixie's own
# packages. scripts/dockerfile.test.ts checks this file against the code:
# the package list is the one `npm run setup` uses, every COPY source exists,
# and the paths the controller looks for in the image are where we put them.

ARG NODE_IMAGE=node:24-trixie-slim

# --- build: install everything, typecheck the whole project, then drop the
# dev dependencies so the runtime stage copies production node_modules only.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run typecheck && npm prune --omit=dev --no-audit --no-fund

# --- runtime
FROM ${NODE_IMAGE} AS runtime
# The data-plane packages are exactly scripts/dataplane-packages.txt (the file
# the test set-up unpacks), so tests and image cannot drift apart. tini is
# PID 1: it forwards SIGTERM to node (which drains and stops NGINX itself) and
# reaps orphaned NGINX workers, which node as PID 1 would leave as zombies.
COPY scripts/dataplane-packages.txt /tmp/dataplane-packages.txt
# hadolint ignore=DL3008
RUN apt-get update \
 && sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' /tmp/dataplane-packages.txt \
    | xargs apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /tmp/dataplane-packages.txt \
 && ln -sf /dev/stderr /var/log/nginx/error.log \
 && ln -sf /dev/stdout /var/log/nginx/access.log

WORKDIR /app
# package.json: "type": "module" for bin/ and the version --version prints.
COPY --from=build /src/package.json /app/package.json
COPY --from=build /src/node_modules /app/node_modules
COPY --from=build /src/bin /app/bin
COPY --from=build /src/controller/src /app/controller/src
# Where controller/src/nginx/dataplane.ts (systemDataplane) and
# controller/src/controller.ts (templateDir) look when not in a checkout.
COPY --from=build /src/lua/resty_ingress /etc/nginx/lua/resty_ingress
COPY --from=build /src/rootfs/etc/nginx/template /etc/nginx/template
COPY --from=build /src/rootfs/etc/nginx/njs /etc/nginx/njs

ENV NODE_ENV=production
# The official image's `node` user; the chart's runAsUser matches it.
USER 1000:1000
# NGINX HTTP/HTTPS (unprivileged: the Service maps 80/443), /healthz + /metrics.
EXPOSE 8080 8443 10254
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/resty-ingress.js"]
CMD ["--http-port=8080", "--https-port=8443"]
