#!/usr/bin/env python3
"""Interoperability checks of one tenant with stock Python libraries, as an application team would use them.

Authlib (OAuth 2.0 client, OpenID Connect ID token and RFC 9068 access-token validation), joserfc (JWS/JWKS, under
Authlib) and requests (HTTP). Every protocol step goes through these libraries; the only hand-written part is the
person at the browser: the sign-in, consent and device pages are read and their forms submitted with requests, as
a browser would post them.

Each check prints one JSON line on stdout: {"check": NAME, "ok": true|false, "detail": {...} | "error": "..."}.
The first line is {"versions": {...}}. Exit status 0 when every check passed, 1 otherwise.

Configuration comes from the environment (the e2e test sets it), see ``Config.from_env``.
"""
from __future__ import annotations

import base64
import json
import os
import platform
import sys
import time
import traceback
from dataclasses import dataclass
from html.parser import HTMLParser
from importlib.metadata import version
from typing import Any, Callable
from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session, OAuthError
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from authlib.oauth2.rfc8414 import get_well_known_url as oauth_well_known_url
from authlib.oauth2.rfc9068 import JWTBearerTokenValidator
from authlib.oauth2.rfc9207 import AuthorizationServerMetadata as IssParameterMetadata
from authlib.oidc.core import CodeIDToken, UserInfo
from authlib.oidc.discovery import OpenIDProviderMetadata
from authlib.oidc.discovery import get_well_known_url as oidc_well_known_url
from authlib.oidc.rpinitiated.discovery import OpenIDProviderMetadata as RpInitiatedMetadata
from joserfc import jwt
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
NHE_ID_TOKEN_TYPE = "urn:vendor:token-type:nhe-id"
HTTP_TIMEOUT = 20


@dataclass(frozen=True)
class Config:
    issuer: str
    username: str
    password: str
    redirect_uri: str
    resource: str  # a resource server of the tenant that accepts delegation tokens
    resource_scope: str  # a scope of it the user, the service client and the NHE all hold
    public_client_id: str  # public client: authorization_code + refresh_token
    device_client_id: str  # public client: device_code
    service_client_id: str  # confidential client: client_credentials with a role on the resource
    service_client_secret: str
    delegation_client_id: str  # confidential client: authorization_code + token exchange, delegation enabled
    delegation_client_secret: str
    nhe_identifier: str

    @staticmethod
    def from_env() -> "Config":
        def need(name: str) -> str:
            value = os.environ.get(name)
            if not value:
                raise SystemExit(f"interop: environment variable {name} is required")
            return value

        return Config(
            issuer=need("INTEROP_ISSUER"),
            username=need("INTEROP_USERNAME"),
            password=need("INTEROP_PASSWORD"),
            redirect_uri=need("INTEROP_REDIRECT_URI"),
            resource=need("INTEROP_RESOURCE"),
            resource_scope=need("INTEROP_RESOURCE_SCOPE"),
            public_client_id=need("INTEROP_PUBLIC_CLIENT_ID"),
            device_client_id=need("INTEROP_DEVICE_CLIENT_ID"),
            service_client_id=need("INTEROP_SERVICE_CLIENT_ID"),
            service_client_secret=need("INTEROP_SERVICE_CLIENT_SECRET"),
            delegation_client_id=need("INTEROP_DELEGATION_CLIENT_ID"),
            delegation_client_secret=need("INTEROP_DELEGATION_CLIENT_SECRET"),
            nhe_identifier=need("INTEROP_NHE_IDENTIFIER"),
        )


class CheckFailed(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


class Session(OAuth2Session):
    """Authlib's requests session with a default timeout on every request."""

    def request(self, method, url, withhold_token=False, auth=None, **kwargs):  # type: ignore[override]
        kwargs.setdefault("timeout", HTTP_TIMEOUT)
        return super().request(method, url, withhold_token=withhold_token, auth=auth, **kwargs)


# --- the person at the browser -------------------------------------------------------------------------------


@dataclass
class Form:
    action: str
    method: str
    fields: dict[str, str]
    visible: list[str]
    button: tuple[str, str] | None


class _FormParser(HTMLParser):
    def __init__(self, page_url: str):
        super().__init__(convert_charrefs=True)
        self.page_url = page_url
        self.forms: list[Form] = []
        self._current: Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v or "") for k, v in attrs}
        if tag == "form":
            self._current = Form(urljoin(self.page_url, a.get("action") or self.page_url), (a.get("method") or "get").lower(), {}, [], None)
        elif self._current is None:
            return
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text").lower()
            if kind == "hidden":
                self._current.fields[a["name"]] = a.get("value", "")
            elif kind != "submit":
                self._current.visible.append(a["name"])
        elif tag == "button" and a.get("name") and self._current.button is None:
            self._current.button = (a["name"], a.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._current is not None:
            self.forms.append(self._current)
            self._current = None


class Browser:
    """One user agent (its own cookies) that signs in, consents and confirms device codes by posting the pages' forms."""

    def __init__(self, username: str, password: str):
        self.http = requests.Session()
        self.username = username
        self.password = password
        self.visited: list[str] = []

    def _go(self, method: str, url: str, data: dict[str, str] | None = None, params: dict[str, str] | None = None) -> requests.Response:
        self.visited.append(url)
        return self.http.request(method, url, data=data, params=params, allow_redirects=False, timeout=HTTP_TIMEOUT)

    def drive(self, start_url: str, stop_at: str | None = None, extra: dict[str, str] | None = None) -> str:
        """Acts like a person from start_url until the browser is sent to stop_at (returns that URL) or a page offers
        nothing more to submit (returns the page's URL). Never presses abort, deny or cancel."""
        extra = extra or {}
        url = start_url
        res = self._go("GET", url)
        for _ in range(25):
            location = res.headers.get("location")
            if 300 <= res.status_code < 400 and location:
                url = urljoin(url, location)
                if stop_at and url.startswith(stop_at):
                    return url
                res = self._go("GET", url)
                continue
            parser = _FormParser(url)
            parser.feed(res.text)
            forms = [f for f in parser.forms if not any(w in f"{f.action} {f.button or ''}".lower() for w in ("abort", "deny", "cancel"))]
            if res.status_code != 200 or not forms:
                expect(stop_at is None, f"flow stopped at {url} with status {res.status_code} before reaching {stop_at}")
                return url
            form = next((f for f in forms if "password" in f.visible), None) or next(
                (f for f in forms if all(n in extra for n in f.visible)), forms[0]
            )
            values = dict(form.fields)
            if form.button:
                values[form.button[0]] = form.button[1]
            for name in form.visible:
                if name == "username":
                    values[name] = self.username
                elif name == "password":
                    values[name] = self.password
                elif name in extra:
                    values[name] = extra[name]
            if form.method == "post":
                res = self._go("POST", form.action, values)
            else:
                res = self._go("GET", form.action, params=values)
            url = form.action
        raise CheckFailed(f"flow did not settle (last page {url})")


# --- token validation with the stock validators ---------------------------------------------------------------


class Provider:
    """What a relying party or resource server learns from discovery."""

    def __init__(self, issuer: str):
        self.issuer = issuer
        self.metadata: dict[str, Any] = {}
        self._jwks: dict[str, Any] | None = None

    def jwks(self) -> dict[str, Any]:
        if self._jwks is None:
            res = requests.get(self.metadata["jwks_uri"], timeout=HTTP_TIMEOUT)
            res.raise_for_status()
            self._jwks = res.json()
        return self._jwks

    def validate_id_token(self, id_token: str, client_id: str, nonce: str | None, access_token: str | None) -> CodeIDToken:
        """What Authlib's OpenID Connect client does (OpenIDMixin.parse_id_token): signature with the JWKS from
        discovery and the advertised algorithms, then CodeIDToken's claims validation (iss, aud, exp, iat, nonce,
        azp, at_hash)."""
        algorithms = self.metadata.get("id_token_signing_alg_values_supported")
        token = jwt.decode(id_token, KeySet.import_key_set(self.jwks()), registry=JWSRegistry(algorithms=algorithms))
        params: dict[str, Any] = {"client_id": client_id, "nonce": nonce}
        if access_token:
            params["access_token"] = access_token
        claims = CodeIDToken(
            token.claims,
            token.header,
            {"iss": {"essential": True, "value": self.issuer}, "aud": {"essential": True, "value": client_id}, "sub": {"essential": True}},
            params,
        )
        claims.validate(leeway=60)
        return claims

    def access_token_validator(self, resource: str) -> JWTBearerTokenValidator:
        provider = self

        class Validator(JWTBearerTokenValidator):
            def get_jwks(self):
                return KeySet.import_key_set(provider.jwks())

        return Validator(issuer=self.issuer, resource_server=resource)

    def validate_access_token(self, access_token: str, resource: str, scope: str) -> dict[str, Any]:
        """RFC 9068 section 4 with Authlib's resource-server validator: signature, typ, iss, exp, aud and the required
        claims (iss, exp, aud, sub, client_id, iat, jti), then the scope. RFC 9068 requires the typ header; Authlib
        refuses a wrong one and this check also refuses a missing one."""
        validator = self.access_token_validator(resource)
        claims = validator.authenticate_token(access_token)
        validator.validate_token(claims, [scope], None)
        expect(str(claims.header.get("typ", "")).lower() in ("at+jwt", "application/at+jwt"), f"typ header is {claims.header.get('typ')!r}, not at+jwt")
        return {"typ": claims.header.get("typ"), "alg": claims.header.get("alg"), **dict(claims)}


def decode_unverified(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


# --- the checks ----------------------------------------------------------------------------------------------


class Suite:
    def __init__(self, config: Config):
        self.c = config
        self.p = Provider(config.issuer)
        self.state: dict[str, Any] = {}
        self.results: list[dict[str, Any]] = []

    def run(self, name: str, fn: Callable[[], dict[str, Any]], needs: tuple[str, ...] = ()) -> None:
        missing = [n for n in needs if not any(r["check"] == n and r["ok"] for r in self.results)]
        if missing:
            result = {"check": name, "ok": False, "error": f"not run: needs {', '.join(missing)}"}
        else:
            started = time.monotonic()
            try:
                detail = fn()
                result = {"check": name, "ok": True, "detail": detail}
            except (CheckFailed, OAuthError) as exc:
                result = {"check": name, "ok": False, "error": f"{type(exc).__name__}: {exc}"}
            except Exception as exc:  # a library refused a token or a response: report it as the check's failure
                result = {"check": name, "ok": False, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=6)}
            result["ms"] = round((time.monotonic() - started) * 1000)
        self.results.append(result)
        print(json.dumps(result, default=str), flush=True)

    def code_login(self, client: Session, scope: str, **params: str) -> tuple[dict[str, Any], str, str]:
        """Authorization code + PKCE (S256) with Authlib: authorization URL, the person's browser, code redemption."""
        verifier = generate_token(64)
        nonce = generate_token(24)
        url, state = client.create_authorization_url(self.p.metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce, scope=scope, **params)
        query = parse_qs(urlsplit(url).query)
        expect(query.get("code_challenge_method") == ["S256"] and len(query.get("code_challenge", [""])[0]) == 43, "Authlib built no S256 challenge")
        callback = Browser(self.c.username, self.c.password).drive(url, stop_at=self.c.redirect_uri)
        returned = parse_qs(urlsplit(callback).query)
        expect("code" in returned, f"no code in the callback: {returned.get('error')} {returned.get('error_description')}")
        expect(returned.get("iss") == [self.p.issuer], f"RFC 9207 iss in the callback is {returned.get('iss')}")
        token = client.fetch_token(self.p.metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier, state=state)
        return dict(token), nonce, callback

    def discovery(self) -> dict[str, Any]:
        res = requests.get(oidc_well_known_url(self.p.issuer, external=True), timeout=HTTP_TIMEOUT)
        res.raise_for_status()
        meta = OpenIDProviderMetadata(res.json())
        meta.validate(metadata_classes=[IssParameterMetadata, RpInitiatedMetadata])
        expect(meta["issuer"] == self.p.issuer, f"issuer is {meta['issuer']}")
        res8414 = requests.get(oauth_well_known_url(self.p.issuer, external=True), timeout=HTTP_TIMEOUT)
        res8414.raise_for_status()
        oauth_meta = AuthorizationServerMetadata(res8414.json())
        oauth_meta.validate()
        expect(oauth_meta["issuer"] == self.p.issuer, f"RFC 8414 issuer is {oauth_meta['issuer']}")
        for grant in ("authorization_code", "refresh_token", "client_credentials", DEVICE_GRANT, TOKEN_EXCHANGE_GRANT):
            expect(grant in meta.get("grant_types_supported", []), f"grant {grant} not advertised")
        expect("S256" in meta.get("code_challenge_methods_supported", []), "S256 not advertised")
        for key in ("userinfo_endpoint", "device_authorization_endpoint", "jwks_uri"):
            expect(bool(meta.get(key)), f"{key} missing")
        self.p.metadata = dict(meta)
        keys = self.p.jwks().get("keys", [])
        expect(len(keys) > 0, "empty JWKS")
        return {"issuer": meta["issuer"], "oidc": oidc_well_known_url(self.p.issuer, external=True), "rfc8414": oauth_well_known_url(self.p.issuer, external=True), "jwks_keys": len(keys)}

    def code_pkce(self) -> dict[str, Any]:
        client = Session(self.c.public_client_id, scope=None, redirect_uri=self.c.redirect_uri, code_challenge_method="S256", token_endpoint_auth_method="none")
        # offline_access needs consent for a third-party client: the person sees the consent page and accepts.
        token, nonce, _ = self.code_login(client, "openid profile email offline_access", prompt="consent")
        for key in ("access_token", "id_token", "refresh_token"):
            expect(bool(token.get(key)), f"no {key} in the token response")
        expect(str(token.get("token_type", "")).lower() == "bearer", f"token_type {token.get('token_type')}")
        self.state["public"] = {"client": client, "token": token, "nonce": nonce}
        return {"token_type": token["token_type"], "scope": token.get("scope"), "expires_in": token.get("expires_in")}

    def id_token(self) -> dict[str, Any]:
        s = self.state["public"]
        claims = self.p.validate_id_token(s["token"]["id_token"], self.c.public_client_id, s["nonce"], s["token"]["access_token"])
        s["sub"] = claims["sub"]
        return {"alg": claims.header.get("alg"), "sub": claims["sub"], "aud": claims["aud"], "at_hash": "at_hash" in claims, "auth_time": "auth_time" in claims}

    def userinfo(self) -> dict[str, Any]:
        s = self.state["public"]
        client: Session = s["client"]
        res = client.get(self.p.metadata["userinfo_endpoint"])
        expect(res.status_code == 200, f"UserInfo answered {res.status_code}: {res.text[:200]}")
        info = UserInfo(res.json())
        expect(info["sub"] == s["sub"], "UserInfo sub differs from the ID token's")
        expect(info.get("email") is not None, "no email for scope email")
        expect(info.get("name") is not None, "no name for scope profile")
        return {"sub": info["sub"], "claims": sorted(info.keys())}

    def refresh_rotation(self) -> dict[str, Any]:
        s = self.state["public"]
        client: Session = s["client"]
        old = s["token"]["refresh_token"]
        new = dict(client.refresh_token(self.p.metadata["token_endpoint"], refresh_token=old))
        expect(bool(new.get("access_token")), "no access token from the refresh")
        expect(bool(new.get("refresh_token")) and new["refresh_token"] != old, "the refresh token was not rotated")
        if new.get("id_token"):
            self.p.validate_id_token(new["id_token"], self.c.public_client_id, None, new["access_token"])
        try:
            client.refresh_token(self.p.metadata["token_endpoint"], refresh_token=old)
        except OAuthError as exc:
            expect(exc.error == "invalid_grant", f"the used refresh token answered {exc.error}, not invalid_grant")
        else:
            raise CheckFailed("the used refresh token was accepted again")
        return {"rotated": True, "old_token_error": "invalid_grant"}

    def device_flow(self) -> dict[str, Any]:
        device = Session(self.c.device_client_id, token_endpoint_auth_method="none")
        res = device.post(self.p.metadata["device_authorization_endpoint"], data={"client_id": self.c.device_client_id, "scope": "openid profile"}, withhold_token=True)
        expect(res.status_code == 200, f"device authorization answered {res.status_code}: {res.text[:200]}")
        grant = res.json()
        for key in ("device_code", "user_code", "verification_uri", "expires_in"):
            expect(key in grant, f"{key} missing from the device authorization response")
        poll = lambda: device.fetch_token(self.p.metadata["token_endpoint"], grant_type=DEVICE_GRANT, device_code=grant["device_code"])  # noqa: E731
        try:
            poll()
            raise CheckFailed("tokens before the person approved")
        except OAuthError as exc:
            expect(exc.error == "authorization_pending", f"first poll answered {exc.error}")
        # The person opens verification_uri on another device, types the code, signs in and approves.
        end = Browser(self.c.username, self.c.password).drive(grant["verification_uri"], extra={"user_code": grant["user_code"]})
        interval = int(grant.get("interval", 5))
        deadline = time.monotonic() + 60
        token: dict[str, Any] | None = None
        while token is None:
            time.sleep(interval)
            try:
                token = dict(poll())
            except OAuthError as exc:
                expect(exc.error in ("authorization_pending", "slow_down"), f"poll answered {exc.error}: {exc.description}")
                if exc.error == "slow_down":
                    interval += 5
                expect(time.monotonic() < deadline, "no tokens within 60 s of approval")
        claims = self.p.validate_id_token(token["id_token"], self.c.device_client_id, None, token["access_token"])
        res = device.get(self.p.metadata["userinfo_endpoint"])
        expect(res.status_code == 200 and UserInfo(res.json())["sub"] == claims["sub"], f"UserInfo with the device token answered {res.status_code}")
        return {"verification_uri": grant["verification_uri"], "approved_at": end, "interval": interval, "sub": claims["sub"]}

    def client_credentials(self) -> dict[str, Any]:
        service = Session(self.c.service_client_id, self.c.service_client_secret, token_endpoint_auth_method="client_secret_basic")
        token = dict(service.fetch_token(self.p.metadata["token_endpoint"], grant_type="client_credentials", resource=self.c.resource))
        expect(str(token.get("token_type", "")).lower() == "bearer", f"token_type {token.get('token_type')}")
        expect("refresh_token" not in token, "a refresh token for client credentials")
        claims = self.p.validate_access_token(token["access_token"], self.c.resource, self.c.resource_scope)
        expect(claims["client_id"] == self.c.service_client_id, f"client_id is {claims['client_id']}")
        return {"scope": token.get("scope"), "rfc9068": True, "client_id": claims["client_id"], "sub": claims["sub"]}

    def delegation_login(self) -> dict[str, Any]:
        app = Session(self.c.delegation_client_id, self.c.delegation_client_secret, redirect_uri=self.c.redirect_uri, code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        token, nonce, _ = self.code_login(app, f"openid {self.c.resource_scope}", resource=self.c.resource)
        self.p.validate_id_token(token["id_token"], self.c.delegation_client_id, nonce, token["access_token"])
        self.state["delegation"] = {"client": app, "token": token}
        return {"scope": token.get("scope")}

    def rfc9068_access_token(self) -> dict[str, Any]:
        """The tenant's ordinary access token (the user's, from the code flow with a resource indicator)."""
        token = self.state["delegation"]["token"]
        claims = self.p.validate_access_token(token["access_token"], self.c.resource, self.c.resource_scope)
        expect(claims["client_id"] == self.c.delegation_client_id, f"client_id is {claims['client_id']}")
        # The same validator is strict: an ID token, or this access token at another resource server, is refused.
        refused: dict[str, str] = {}
        for label, candidate, resource in (("id_token", token["id_token"], self.c.resource), ("other_audience", token["access_token"], "https://other.example")):
            try:
                self.p.validate_access_token(candidate, resource, self.c.resource_scope)
            except Exception as exc:  # noqa: BLE001 - any refusal will do; the reason is reported
                refused[label] = repr(exc.__cause__ or exc)
            else:
                raise CheckFailed(f"the RFC 9068 validator accepted the {label.replace('_', ' ')}")
        return {"typ": claims["typ"], "client_id": claims["client_id"], "sub": claims["sub"], "scope": claims.get("scope"), "refused": refused}

    def token_exchange(self) -> dict[str, Any]:
        s = self.state["delegation"]
        app: Session = s["client"]
        issued = dict(
            app.fetch_token(
                self.p.metadata["token_endpoint"],
                grant_type=TOKEN_EXCHANGE_GRANT,
                subject_token=s["token"]["access_token"],
                subject_token_type=ACCESS_TOKEN_TYPE,
                actor_token=self.c.nhe_identifier,
                actor_token_type=NHE_ID_TOKEN_TYPE,
                resource=self.c.resource,
                scope=self.c.resource_scope,
            )
        )
        expect(issued.get("issued_token_type") == ACCESS_TOKEN_TYPE, f"issued_token_type {issued.get('issued_token_type')}")
        expect(str(issued.get("token_type", "")).lower() == "bearer", f"token_type {issued.get('token_type')}")
        expect("refresh_token" not in issued, "a refresh token with the delegation token")
        payload = decode_unverified(issued["access_token"])
        expect(payload.get("act", {}).get("sub") == f"nhe:{self.c.nhe_identifier}", f"act is {payload.get('act')}")
        s["exchanged"] = issued["access_token"]
        return {"issued_token_type": issued["issued_token_type"], "expires_in": issued.get("expires_in"), "act": payload.get("act")}

    def rfc9068_delegation_token(self) -> dict[str, Any]:
        claims = self.p.validate_access_token(self.state["delegation"]["exchanged"], self.c.resource, self.c.resource_scope)
        expect(claims["client_id"] == self.c.delegation_client_id, f"client_id is {claims['client_id']}")
        return {"typ": claims["typ"], "client_id": claims["client_id"], "azp": claims.get("azp"), "sub": claims["sub"], "act": claims.get("act"), "scope": claims.get("scope")}


def versions() -> dict[str, str]:
    return {"python": platform.python_version(), **{name: version(name) for name in ("authlib", "joserfc", "requests", "cryptography")}}


def main() -> int:
    config = Config.from_env()
    print(json.dumps({"versions": versions()}), flush=True)
    suite = Suite(config)
    suite.run("discovery", suite.discovery)
    d = ("discovery",)
    suite.run("code-pkce", suite.code_pkce, d)
    suite.run("id-token", suite.id_token, ("code-pkce",))
    suite.run("userinfo", suite.userinfo, ("id-token",))
    suite.run("refresh-rotation", suite.refresh_rotation, ("code-pkce",))
    suite.run("device-flow", suite.device_flow, d)
    suite.run("client-credentials", suite.client_credentials, d)
    suite.run("delegation-login", suite.delegation_login, d)
    suite.run("rfc9068-access-token", suite.rfc9068_access_token, ("delegation-login",))
    suite.run("token-exchange", suite.token_exchange, ("delegation-login",))
    suite.run("rfc9068-delegation-token", suite.rfc9068_delegation_token, ("token-exchange",))
    return 0 if all(r["ok"] for r in suite.results) else 1


if __name__ == "__main__":
    sys.exit(main())
