#!/usr/bin/env bash
# The whole test suite: tools, type-check, build (e2e runs the built services), then unit, integration and e2e.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/tools.sh ferretdb nats-server helm chromium python-interop
npx tsc -p tsconfig.json
npx tsc -b tsconfig.build.json
npx jest --ci "$@"
