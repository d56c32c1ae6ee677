# syntax=docker/dockerfile:1
# Container images of every service, one build target per service. The build context is the repository root:
#
#   docker build --target oidc-core       -t idp/oidc-core:0.1.0 .
#   docker build --target nhe-delegation  -t idp/nhe-delegation:0.1.0 .
#   docker build --target management      -t idp/management:0.1.0 .
#   docker build --target audit-writer    -t idp/audit-writer:0.1.0 .
#   docker build --target audit-retention -t idp/audit-retention:0.1.0 .
#   docker build --target signals         -t idp/signals:0.1.0 .
#
# The stages that install and copy a service are written once: they read the service's name from TARGETSTAGE, the
# name of the stage being built, which BuildKit passes to every stage that declares it (a Dockerfile syntax from late
# 2024 on; the syntax line above fetches the latest 1.x). The target stages below only add what differs per service.
# skaffold.yaml builds the same targets. Each image runs services/<name>/dist/main.js, the entry file local runs
# (e2e/src/topology.ts) start, as uid/gid 1000 with NODE_ENV=production. The development machines have no Docker
# engine: e2e/tests/images/dockerfiles.e2e.test.ts checks this file statically for every target (stages, pins,
# user, entry, the lib list below against each service's tsconfig.build.json references).
# Every stage starts from the same pinned Node 22 LTS image (it bundles npm 10.9.x, which accepts package-lock.json).
ARG NODE_IMAGE=node:22.21.1-bookworm-slim

# ---- manifests: the root and every workspace's package.json, so npm ci sees the whole lockfile's workspaces.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /app
ENV npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY libs/config/package.json libs/config/
COPY libs/db/package.json libs/db/
COPY libs/delegation/package.json libs/delegation/
COPY libs/errors/package.json libs/errors/
COPY libs/events/package.json libs/events/
COPY libs/http/package.json libs/http/
COPY libs/logger/package.json libs/logger/
COPY libs/resource-server/package.json libs/resource-server/
COPY libs/testing/package.json libs/testing/
COPY libs/tokens/package.json libs/tokens/
COPY services/audit-retention/package.json services/audit-retention/
COPY services/audit-writer/package.json services/audit-writer/
COPY services/management/package.json services/management/
COPY services/nhe-delegation/package.json services/nhe-delegation/
COPY services/oidc-core/package.json services/oidc-core/
COPY services/signals/package.json services/signals/
COPY console/package.json console/
COPY docs/package.json docs/
COPY e2e/package.json e2e/

# ---- dev-deps: all dependencies (dev included), for compiling.
FROM manifests AS dev-deps
RUN npm ci

# ---- build: every service and the libs they reference, compiled once whatever the target, so the images of all
# services share this stage's cache. /dist then holds the compiled output alone (no sources, no dev dependencies),
# laid out as under /app, for the runtime stage to copy.
FROM dev-deps AS build
COPY tsconfig.base.json ./
COPY libs/ libs/
COPY services/ services/
RUN npx tsc -b services/*/tsconfig.build.json && mkdir /dist && cp -R --parents libs/*/dist services/*/dist /dist/

# ---- console: the admin console (console/), a Vite build into static files; only the management image copies it.
FROM dev-deps AS console
COPY console/ console/
RUN npm run build --workspace=console

# ---- deps: production dependencies of the target's service and of the libs; node_modules/@idp/* are symlinks to
# ../../libs/*. The workspace list names every lib a service may build against (tsconfig.build.json references,
# libs/testing excepted): the libs' own dependencies are few and shared, so one list serves every service. A target
# that is not a service (or a builder without TARGETSTAGE, which leaves it empty) stops here instead of installing
# every service: npm reads --workspace=services/ as all of them.
FROM manifests AS deps
ARG TARGETSTAGE
RUN if [ ! -f "services/${TARGETSTAGE}/package.json" ]; then \
      echo "target '${TARGETSTAGE}' is not a folder of services/ (or this builder predates TARGETSTAGE)" >&2; \
      exit 1; \
    fi; \
    npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=libs/delegation \
    --workspace=libs/resource-server \
    --workspace=services/${TARGETSTAGE}

# ---- runtime-base: Node only. npm, npx, corepack and yarn are not needed to run a service; removing them keeps
# them out of the image's scanned surface. Nothing in the stages below needs a shell.
FROM ${NODE_IMAGE} AS runtime-base
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
WORKDIR /app
ENV NODE_ENV=production
# uid/gid 1000 is the image's unprivileged "node" user; numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000

# ---- service: the files of the target's service. The package folders come whole from deps (npm may nest a
# dependency in <package>/node_modules), then the compiled output over them.
FROM runtime-base AS service
ARG TARGETSTAGE
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-${TARGETSTAGE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps /app/node_modules/ node_modules/
COPY --from=deps /app/libs/ libs/
COPY --from=deps /app/services/${TARGETSTAGE}/ services/${TARGETSTAGE}/
COPY --from=build /dist/libs/ libs/
COPY --from=build /dist/services/${TARGETSTAGE}/ services/${TARGETSTAGE}/

# ==== One target per service, named after its folder of services/: what its image adds to the files above. The entry
# is written out per target because the exec form does not expand build arguments.
FROM service AS oidc-core
LABEL org.opencontainers.image.description="Multi-tenant OpenID Connect provider (node-oidc-provider, one provider per tenant)."
EXPOSE 3000
ENTRYPOINT ["/usr/local/bin/node", "/app/services/oidc-core/dist/main.js"]

FROM service AS nhe-delegation
LABEL org.opencontainers.image.description="Token-exchange sidecar minting delegated tokens for non-human entities (RFC 8693)."
# Documentation only: the sidecar binds to loopback (HOST 127.0.0.1 or ::1); only containers of the same pod reach it.
EXPOSE 3100
ENTRYPOINT ["/usr/local/bin/node", "/app/services/nhe-delegation/dist/main.js"]

FROM service AS management
LABEL org.opencontainers.image.description="Admin REST API of the identity provider."
# The admin console's static files, served under /auth/admin/console/ (CONSOLE_DIR defaults to /app/console/dist).
COPY --from=console /app/console/dist/ console/dist/
EXPOSE 3200
ENTRYPOINT ["/usr/local/bin/node", "/app/services/management/dist/main.js"]

FROM service AS audit-writer
LABEL org.opencontainers.image.description="Durable JetStream consumer writing NHE token audit rows to MongoDB."
EXPOSE 3300
ENTRYPOINT ["/usr/local/bin/node", "/app/services/audit-writer/dist/main.js"]

# A one-shot job run by the CronJob nhe-audit-retention: no port.
FROM service AS audit-retention
LABEL org.opencontainers.image.description="One-shot audit retention job run by the CronJob nhe-audit-retention."
ENTRYPOINT ["/usr/local/bin/node", "/app/services/audit-retention/dist/main.js"]

FROM service AS signals
LABEL org.opencontainers.image.description="Shared Signals transmitter: kill-switch changes as CAEP Security Event Tokens, by push and poll."
EXPOSE 3400
ENTRYPOINT ["/usr/local/bin/node", "/app/services/signals/dist/main.js"]
