#!/usr/bin/env bash
# The whole test suite: tools, type-check, build (e2e runs the built services), then unit, integration and e2e.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/tools.sh ferretdb nats-server helm chromium python-interop
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
npx jest --ci "$@" "${skip[@]}"
