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
# skaffold.yaml builds the same targets. Each image runs services/<name>/dist/main.js, the entry file local runs
# (e2e/src/topology.ts) start, as uid/gid 1000 with NODE_ENV=production. The development machines have no Docker
# engine: e2e/tests/images/dockerfiles.e2e.test.ts checks this file statically (stages, pins, user, entry, the
# lib lists below against each service's tsconfig.build.json references).
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
COPY e2e/package.json e2e/

# ---- build: all dependencies (dev included), then compile every service and the libs they reference (once).
FROM manifests AS build
RUN npm ci
COPY tsconfig.base.json ./
COPY libs/ libs/
COPY services/ services/
RUN npx tsc -b services/oidc-core/tsconfig.build.json services/nhe-delegation/tsconfig.build.json \
      services/management/tsconfig.build.json services/audit-writer/tsconfig.build.json \
      services/audit-retention/tsconfig.build.json services/signals/tsconfig.build.json
# The admin console (console/): a Vite build into static files, which the management image serves.
COPY console/ console/
RUN npm run build --workspace=console

# ---- runtime-base: Node only. npm, npx, corepack and yarn are not needed to run a service; removing them keeps
# them out of the image's scanned surface. Nothing in the per-service stages below needs a shell.
FROM ${NODE_IMAGE} AS runtime-base
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
WORKDIR /app
ENV NODE_ENV=production
# uid/gid 1000 is the image's unprivileged "node" user; numeric so Kubernetes can verify runAsNonRoot.
USER 1000:1000

# ==== oidc-core =====================================================================================================
# Production dependencies of the service and its libs only; node_modules/@idp/* are symlinks to ../../libs/*.
# The package folders are copied whole from here: npm may nest a dependency in <package>/node_modules.
FROM manifests AS deps-oidc-core
RUN npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=libs/delegation \
    --workspace=libs/resource-server \
    --workspace=services/oidc-core

FROM runtime-base AS oidc-core
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-oidc-core" \
      org.opencontainers.image.description="Multi-tenant OpenID Connect provider (node-oidc-provider, one provider per tenant)." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps-oidc-core /app/node_modules/ node_modules/
COPY --from=deps-oidc-core /app/libs/errors/ libs/errors/
COPY --from=build /app/libs/errors/dist/ libs/errors/dist/
COPY --from=deps-oidc-core /app/libs/config/ libs/config/
COPY --from=build /app/libs/config/dist/ libs/config/dist/
COPY --from=deps-oidc-core /app/libs/logger/ libs/logger/
COPY --from=build /app/libs/logger/dist/ libs/logger/dist/
COPY --from=deps-oidc-core /app/libs/http/ libs/http/
COPY --from=build /app/libs/http/dist/ libs/http/dist/
COPY --from=deps-oidc-core /app/libs/db/ libs/db/
COPY --from=build /app/libs/db/dist/ libs/db/dist/
COPY --from=deps-oidc-core /app/libs/events/ libs/events/
COPY --from=build /app/libs/events/dist/ libs/events/dist/
COPY --from=deps-oidc-core /app/libs/tokens/ libs/tokens/
COPY --from=build /app/libs/tokens/dist/ libs/tokens/dist/
COPY --from=deps-oidc-core /app/libs/delegation/ libs/delegation/
COPY --from=build /app/libs/delegation/dist/ libs/delegation/dist/
COPY --from=deps-oidc-core /app/libs/resource-server/ libs/resource-server/
COPY --from=build /app/libs/resource-server/dist/ libs/resource-server/dist/
COPY --from=deps-oidc-core /app/services/oidc-core/ services/oidc-core/
COPY --from=build /app/services/oidc-core/dist/ services/oidc-core/dist/
EXPOSE 3000
ENTRYPOINT ["/usr/local/bin/node", "/app/services/oidc-core/dist/main.js"]

# ==== nhe-delegation =====================================================================================================
# Production dependencies of the service and its libs only; node_modules/@idp/* are symlinks to ../../libs/*.
# The package folders are copied whole from here: npm may nest a dependency in <package>/node_modules.
FROM manifests AS deps-nhe-delegation
RUN npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=libs/delegation \
    --workspace=libs/resource-server \
    --workspace=services/nhe-delegation

FROM runtime-base AS nhe-delegation
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-nhe-delegation" \
      org.opencontainers.image.description="Token-exchange sidecar minting delegated tokens for non-human entities (RFC 8693)." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps-nhe-delegation /app/node_modules/ node_modules/
COPY --from=deps-nhe-delegation /app/libs/errors/ libs/errors/
COPY --from=build /app/libs/errors/dist/ libs/errors/dist/
COPY --from=deps-nhe-delegation /app/libs/config/ libs/config/
COPY --from=build /app/libs/config/dist/ libs/config/dist/
COPY --from=deps-nhe-delegation /app/libs/logger/ libs/logger/
COPY --from=build /app/libs/logger/dist/ libs/logger/dist/
COPY --from=deps-nhe-delegation /app/libs/http/ libs/http/
COPY --from=build /app/libs/http/dist/ libs/http/dist/
COPY --from=deps-nhe-delegation /app/libs/db/ libs/db/
COPY --from=build /app/libs/db/dist/ libs/db/dist/
COPY --from=deps-nhe-delegation /app/libs/events/ libs/events/
COPY --from=build /app/libs/events/dist/ libs/events/dist/
COPY --from=deps-nhe-delegation /app/libs/tokens/ libs/tokens/
COPY --from=build /app/libs/tokens/dist/ libs/tokens/dist/
COPY --from=deps-nhe-delegation /app/libs/delegation/ libs/delegation/
COPY --from=build /app/libs/delegation/dist/ libs/delegation/dist/
COPY --from=deps-nhe-delegation /app/libs/resource-server/ libs/resource-server/
COPY --from=build /app/libs/resource-server/dist/ libs/resource-server/dist/
COPY --from=deps-nhe-delegation /app/services/nhe-delegation/ services/nhe-delegation/
COPY --from=build /app/services/nhe-delegation/dist/ services/nhe-delegation/dist/
# Documentation only: the sidecar binds to loopback (HOST 127.0.0.1 or ::1); only containers of the same pod reach it.
EXPOSE 3100
ENTRYPOINT ["/usr/local/bin/node", "/app/services/nhe-delegation/dist/main.js"]

# ==== management =====================================================================================================
# Production dependencies of the service and its libs only; node_modules/@idp/* are symlinks to ../../libs/*.
# The package folders are copied whole from here: npm may nest a dependency in <package>/node_modules.
FROM manifests AS deps-management
RUN npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=libs/delegation \
    --workspace=libs/resource-server \
    --workspace=services/management

FROM runtime-base AS management
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-management" \
      org.opencontainers.image.description="Admin REST API of the identity provider." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps-management /app/node_modules/ node_modules/
COPY --from=deps-management /app/libs/errors/ libs/errors/
COPY --from=build /app/libs/errors/dist/ libs/errors/dist/
COPY --from=deps-management /app/libs/config/ libs/config/
COPY --from=build /app/libs/config/dist/ libs/config/dist/
COPY --from=deps-management /app/libs/logger/ libs/logger/
COPY --from=build /app/libs/logger/dist/ libs/logger/dist/
COPY --from=deps-management /app/libs/http/ libs/http/
COPY --from=build /app/libs/http/dist/ libs/http/dist/
COPY --from=deps-management /app/libs/db/ libs/db/
COPY --from=build /app/libs/db/dist/ libs/db/dist/
COPY --from=deps-management /app/libs/events/ libs/events/
COPY --from=build /app/libs/events/dist/ libs/events/dist/
COPY --from=deps-management /app/libs/tokens/ libs/tokens/
COPY --from=build /app/libs/tokens/dist/ libs/tokens/dist/
COPY --from=deps-management /app/libs/delegation/ libs/delegation/
COPY --from=build /app/libs/delegation/dist/ libs/delegation/dist/
COPY --from=deps-management /app/libs/resource-server/ libs/resource-server/
COPY --from=build /app/libs/resource-server/dist/ libs/resource-server/dist/
COPY --from=deps-management /app/services/management/ services/management/
COPY --from=build /app/services/management/dist/ services/management/dist/
# The admin console's static files, served under /auth/admin/console/ (CONSOLE_DIR defaults to /app/console/dist).
COPY --from=build /app/console/dist/ console/dist/
EXPOSE 3200
ENTRYPOINT ["/usr/local/bin/node", "/app/services/management/dist/main.js"]

# ==== audit-writer =====================================================================================================
# Production dependencies of the service and its libs only; node_modules/@idp/* are symlinks to ../../libs/*.
# The package folders are copied whole from here: npm may nest a dependency in <package>/node_modules.
FROM manifests AS deps-audit-writer
RUN npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=services/audit-writer

FROM runtime-base AS audit-writer
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-audit-writer" \
      org.opencontainers.image.description="Durable JetStream consumer writing NHE token audit rows to MongoDB." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps-audit-writer /app/node_modules/ node_modules/
COPY --from=deps-audit-writer /app/libs/errors/ libs/errors/
COPY --from=build /app/libs/errors/dist/ libs/errors/dist/
COPY --from=deps-audit-writer /app/libs/config/ libs/config/
COPY --from=build /app/libs/config/dist/ libs/config/dist/
COPY --from=deps-audit-writer /app/libs/logger/ libs/logger/
COPY --from=build /app/libs/logger/dist/ libs/logger/dist/
COPY --from=deps-audit-writer /app/libs/http/ libs/http/
COPY --from=build /app/libs/http/dist/ libs/http/dist/
COPY --from=deps-audit-writer /app/libs/db/ libs/db/
COPY --from=build /app/libs/db/dist/ libs/db/dist/
COPY --from=deps-audit-writer /app/libs/events/ libs/events/
COPY --from=build /app/libs/events/dist/ libs/events/dist/
COPY --from=deps-audit-writer /app/libs/tokens/ libs/tokens/
COPY --from=build /app/libs/tokens/dist/ libs/tokens/dist/
COPY --from=deps-audit-writer /app/services/audit-writer/ services/audit-writer/
COPY --from=build /app/services/audit-writer/dist/ services/audit-writer/dist/
EXPOSE 3300
ENTRYPOINT ["/usr/local/bin/node", "/app/services/audit-writer/dist/main.js"]

# ==== audit-retention =====================================================================================================
# Production dependencies of the service and its libs only; node_modules/@idp/* are symlinks to ../../libs/*.
# The package folders are copied whole from here: npm may nest a dependency in <package>/node_modules.
FROM manifests AS deps-audit-retention
RUN npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=services/audit-retention

FROM runtime-base AS audit-retention
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-audit-retention" \
      org.opencontainers.image.description="One-shot audit retention job run by the CronJob nhe-audit-retention." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps-audit-retention /app/node_modules/ node_modules/
COPY --from=deps-audit-retention /app/libs/errors/ libs/errors/
COPY --from=build /app/libs/errors/dist/ libs/errors/dist/
COPY --from=deps-audit-retention /app/libs/config/ libs/config/
COPY --from=build /app/libs/config/dist/ libs/config/dist/
COPY --from=deps-audit-retention /app/libs/logger/ libs/logger/
COPY --from=build /app/libs/logger/dist/ libs/logger/dist/
COPY --from=deps-audit-retention /app/libs/http/ libs/http/
COPY --from=build /app/libs/http/dist/ libs/http/dist/
COPY --from=deps-audit-retention /app/libs/db/ libs/db/
COPY --from=build /app/libs/db/dist/ libs/db/dist/
COPY --from=deps-audit-retention /app/libs/events/ libs/events/
COPY --from=build /app/libs/events/dist/ libs/events/dist/
COPY --from=deps-audit-retention /app/libs/tokens/ libs/tokens/
COPY --from=build /app/libs/tokens/dist/ libs/tokens/dist/
COPY --from=deps-audit-retention /app/services/audit-retention/ services/audit-retention/
COPY --from=build /app/services/audit-retention/dist/ services/audit-retention/dist/
# A one-shot job: no port.
ENTRYPOINT ["/usr/local/bin/node", "/app/services/audit-retention/dist/main.js"]

# ==== signals =====================================================================================================
# Production dependencies of the service and its libs only; node_modules/@idp/* are symlinks to ../../libs/*.
# The package folders are copied whole from here: npm may nest a dependency in <package>/node_modules.
FROM manifests AS deps-signals
RUN npm ci --omit=dev --include-workspace-root=false \
    --workspace=libs/errors \
    --workspace=libs/config \
    --workspace=libs/logger \
    --workspace=libs/http \
    --workspace=libs/db \
    --workspace=libs/events \
    --workspace=libs/tokens \
    --workspace=libs/resource-server \
    --workspace=services/signals

FROM runtime-base AS signals
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="idp-signals" \
      org.opencontainers.image.description="Shared Signals transmitter: kill-switch changes as CAEP Security Event Tokens, by push and poll." \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/node:22.21.1-bookworm-slim"
COPY --from=deps-signals /app/node_modules/ node_modules/
COPY --from=deps-signals /app/libs/errors/ libs/errors/
COPY --from=build /app/libs/errors/dist/ libs/errors/dist/
COPY --from=deps-signals /app/libs/config/ libs/config/
COPY --from=build /app/libs/config/dist/ libs/config/dist/
COPY --from=deps-signals /app/libs/logger/ libs/logger/
COPY --from=build /app/libs/logger/dist/ libs/logger/dist/
COPY --from=deps-signals /app/libs/http/ libs/http/
COPY --from=build /app/libs/http/dist/ libs/http/dist/
COPY --from=deps-signals /app/libs/db/ libs/db/
COPY --from=build /app/libs/db/dist/ libs/db/dist/
COPY --from=deps-signals /app/libs/events/ libs/events/
COPY --from=build /app/libs/events/dist/ libs/events/dist/
COPY --from=deps-signals /app/libs/tokens/ libs/tokens/
COPY --from=build /app/libs/tokens/dist/ libs/tokens/dist/
COPY --from=deps-signals /app/libs/resource-server/ libs/resource-server/
COPY --from=build /app/libs/resource-server/dist/ libs/resource-server/dist/
COPY --from=deps-signals /app/services/signals/ services/signals/
COPY --from=build /app/services/signals/dist/ services/signals/dist/
EXPOSE 3400
ENTRYPOINT ["/usr/local/bin/node", "/app/services/signals/dist/main.js"]
