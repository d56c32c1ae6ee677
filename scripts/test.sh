#!/usr/bin/env bash
# The whole test suite: tools, type-check, build (e2e runs the built services), then unit, integration and e2e.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/tools.sh ferretdb nats-server helm chromium python-interop py-mcp py-scim keycloak simplesamlphp
# The upstream identity providers of the upstream sign-in tests (scripts/counterparts.sh: Keycloak, SimpleSAMLphp),
# started now so that Keycloak's start (20-40 s) overlaps the type-check and lint, and stopped on exit (also when
# this script is killed: OWNER_PID). The jest run below gets their URLs.
counterparts="$(mktemp -d "${TMPDIR:-/tmp}/idp-counterparts.XXXXXX")"
trap 'bash scripts/counterparts.sh stop "$counterparts"' EXIT
OWNER_PID=$$ bash scripts/counterparts.sh start "$counterparts" keycloak simplesamlphp
# The Kubernetes control plane of the chart tests (e2e/tests/chart/kube-*.e2e.test.ts): several minutes to build the
# first time. IDP_SKIP_KUBE=1 neither builds it nor runs those tests (and says so).
skip=()
if [[ "${IDP_SKIP_KUBE:-}" == 1 ]]; then
  echo "test.sh: IDP_SKIP_KUBE=1: the chart's Kubernetes control-plane tests (e2e/tests/chart/kube-*) are NOT run" >&2
  skip=(--testPathIgnorePatterns=/node_modules/ --testPathIgnorePatterns=/dist/ --testPathIgnorePatterns=/e2e/tests/chart/kube-)
else
  bash scripts/tools.sh kube
fi
npx tsc -p tsconfig.json
# Format and lint (eslint.config.mjs: typescript-eslint's type-checked rules), before any test runs.
npx prettier --check . --log-level warn
npx eslint .
# The documentation site (docs/: VitePress and the API reference from the OpenAPI document, ~30 s); fails on a dead link or anchor.
npm run build --workspace=docs
npx tsc -b tsconfig.build.json
# The admin console (console/: type-check and Vite build, ~10 s): management serves console/dist, the browser tests drive it.
npm run build --workspace=console
# KEYCLOAK_URL, SIMPLESAMLPHP_URL and SIMPLESAMLPHP_STATE_DIR (e2e/src/upstream/*.ts), at most 180 s more.
counterpart_env="$(bash scripts/counterparts.sh wait "$counterparts" 180)"
# shellcheck disable=SC2086 # NAME=value words without spaces
export $counterpart_env
npx jest --ci "$@" "${skip[@]}"
