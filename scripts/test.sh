#!/usr/bin/env bash
# The whole test suite: tools, type-check, format, lint, docs, build (e2e runs the built services), then unit,
# integration and e2e tests.
#
# The machine has two cores and no single step keeps both busy, so the full run uses two lanes: unit + integration
# tests (in-process, no build needed, one database and NATS of their own per file) start as soon as the store and
# NATS are built and run beside the other tools, the type-check, format, lint, docs and build steps and then beside
# the e2e tests (a failed check stops them too). The load tests (e2e/tests/ha:
# replica loss, partitions, rolling restarts) and the Kubernetes control-plane tests run last, alone, so that their
# timing is never shared with another suite. `npm test -- <jest arguments>` runs one jest with those arguments after
# the same checks, as before. Each run ends with --forceExit once its results are written: with one worker jest runs
# the files in its own process, and a timer a test file leaves behind (seen once on Node 22) must not hold the whole
# command until CI's time limit. (Jest prints "Force exiting Jest" whenever the flag is given, leak or not.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
counterparts="$(mktemp -d "${TMPDIR:-/tmp}/idp-counterparts.XXXXXX")"
lane=""
cleanup() {
  # The unit + integration lane runs in its own process group (setsid): stop all of it with this script.
  if [[ -n "$lane" ]] && kill -0 "$lane" 2>/dev/null; then kill -- "-$lane" 2>/dev/null || true; fi
  bash scripts/counterparts.sh stop "$counterparts"
}
trap cleanup EXIT
# The store and NATS first: the unit and integration tests need nothing else (below).
bash scripts/tools.sh ferretdb nats-server
out=test-output/jest
rm -rf "$out" && mkdir -p "$out"
if [[ $# -eq 0 ]]; then
  setsid npx jest --ci --forceExit --selectProjects unit integration --json --outputFile="$out/unit-integration.json" \
    >"$out/unit-integration.log" 2>&1 &
  lane=$!
  echo "test.sh: unit and integration tests started beside the checks and e2e tests (their output follows the e2e tests')"
fi
bash scripts/tools.sh helm chromium python-interop py-mcp py-scim keycloak simplesamlphp
# The upstream identity providers of the upstream sign-in tests (scripts/counterparts.sh: Keycloak, SimpleSAMLphp),
# started now so that Keycloak's start (20-40 s) overlaps the type-check and lint, and stopped on exit (also when
# this script is killed: OWNER_PID). The jest runs below get their URLs.
OWNER_PID=$$ bash scripts/counterparts.sh start "$counterparts" keycloak simplesamlphp
# The Kubernetes control plane of the chart tests (e2e/tests/chart/kube-*.e2e.test.ts): several minutes to build the
# first time. IDP_SKIP_KUBE=1 neither builds it nor runs those tests (and says so).
ignore=(--testPathIgnorePatterns=/node_modules/ --testPathIgnorePatterns=/dist/)
skip=()
kube=1
if [[ "${IDP_SKIP_KUBE:-}" == 1 ]]; then
  echo "test.sh: IDP_SKIP_KUBE=1: the chart's Kubernetes control-plane tests (e2e/tests/chart/kube-*) are NOT run" >&2
  skip=("${ignore[@]}" --testPathIgnorePatterns=/e2e/tests/chart/kube-)
  kube=0
else
  bash scripts/tools.sh kube
fi
npx tsc -p tsconfig.json

# Format and lint (eslint.config.mjs: typescript-eslint's type-checked rules), before any e2e test runs.
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

if [[ $# -gt 0 ]]; then
  npx jest --ci "$@" "${skip[@]}"
  exit
fi

alone=(--testPathIgnorePatterns=/e2e/tests/ha/)
[[ $kube == 1 ]] && alone+=(--testPathIgnorePatterns=/e2e/tests/chart/kube-)
npx jest --ci --forceExit --selectProjects e2e "${ignore[@]}" "${alone[@]}" "${skip[@]}" \
  --json --outputFile="$out/e2e.json" || true
echo "test.sh: waiting for the unit and integration tests..."
wait "$lane" || true
lane=""
echo "test.sh: ===== unit and integration tests (test-output/jest/unit-integration.log) ====="
cat "$out/unit-integration.log"
echo "test.sh: ===== load tests and the Kubernetes control plane, alone ====="
last=(e2e/tests/ha/)
[[ $kube == 1 ]] && last+=(e2e/tests/chart/kube-)
npx jest --ci --forceExit --selectProjects e2e "${ignore[@]}" "${skip[@]}" --json --outputFile="$out/e2e-alone.json" "${last[@]}" || true
node scripts/jest-summary.mjs "$out/unit-integration.json" "$out/e2e.json" "$out/e2e-alone.json"
