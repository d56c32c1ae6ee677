#!/usr/bin/env bash
# Signs the demo user in with authorization code + PKCE using nothing but curl (as a browser would: follow the
# redirects, post the login form), then redeems the code. Prints the user's access token.
# Usage: scripts/demo/user-token.sh BASE_URL TENANT_ID CLIENT_ID CLIENT_SECRET REDIRECT_URI USERNAME PASSWORD RESOURCE
set -euo pipefail
base=$1 tenant=$2 client_id=$3 client_secret=$4 redirect_uri=$5 username=$6 password=$7 resource=$8
jar=$(mktemp); trap 'rm -f "$jar"' EXIT
verifier=$(head -c 48 /dev/urandom | base64 | tr -d '=+/\n' | cut -c1-64)
challenge=$(printf '%s' "$verifier" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\n')
enc() { python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1],safe=""))' "$1"; }
# 1. authorize: the provider redirects to its login page
loc=$(curl -sS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' \
  "$base/auth/$tenant/authorize?client_id=$(enc "$client_id")&response_type=code&scope=openid%20profile&redirect_uri=$(enc "$redirect_uri")&resource=$(enc "$resource")&code_challenge=$challenge&code_challenge_method=S256&state=demo")
# 2. post the login form
loc=$(curl -sS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' --data-urlencode "username=$username" --data-urlencode "password=$password" "$loc/login")
# 3. follow the resume redirect until the provider sends the browser back to the application with a code
for _ in 1 2 3 4; do
  case "$loc" in "$redirect_uri"*) break ;; esac
  loc=$(curl -sS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$loc")
done
code=$(printf '%s' "$loc" | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
[ -n "$code" ] || { echo "login failed: $loc" >&2; exit 1; }
# 4. redeem the code with the PKCE verifier
curl -sS -u "$client_id:$client_secret" -d grant_type=authorization_code -d "code=$code" \
  --data-urlencode "redirect_uri=$redirect_uri" -d "code_verifier=$verifier" "$base/auth/$tenant/oidc/token" \
  | python3 -c 'import sys,json;print(json.load(sys.stdin)["access_token"])'
