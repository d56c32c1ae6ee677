"""An MCP host in Python using MCP's Enterprise-Managed Authorization with the official Python SDK (PyPI `mcp`).

Leg 1 (the host's own code, which the SDK leaves to the deployment): RFC 8693 token exchange at the enterprise
identity provider's token endpoint (found by RFC 8414 discovery) of the person's ID token for an Identity Assertion
Authorization Grant (`requested_token_type=urn:ietf:params:oauth:token-type:id-jag`) naming the MCP authorization
server's issuer (`audience`) and the MCP server (`resource`), the host authenticating with client_secret_post.
Leg 2 (the SDK, unchanged): `IdentityAssertionOAuthProvider` answers the MCP server's 401 with RFC 8414 metadata of
the configured issuer and the RFC 7523 JWT bearer grant there (client_secret_basic), then the SDK's `Client` calls
the `whoami` tool.

Environment: MCP_URL, AS_ISSUER, AS_CLIENT_ID, AS_CLIENT_SECRET (the host at the MCP authorization server),
IDP_ISSUER, IDP_CLIENT_ID, IDP_CLIENT_SECRET (the host at the identity provider), ID_TOKEN (the person's).
Prints one JSON line: {"sdk", "caller" (the tool's structured answer), "id_jag", "access_token"}; exits non-zero
with the reason on stderr otherwise.
"""

import asyncio
import json
import os
import sys
from importlib.metadata import version
from urllib.parse import urlsplit

import httpx2
from mcp import Client
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"


class MemoryStorage:
    """The SDK's TokenStorage, in memory: one run."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        sys.exit(f"{name} is required")
    return value


async def main() -> None:
    idp = env("IDP_ISSUER")
    issued: list[str] = []

    async def id_jag(audience: str, resource: str) -> str:
        # RFC 8414 section 3.1: the well-known segment goes between the host and the issuer's path.
        parts = urlsplit(idp)
        async with httpx2.AsyncClient() as http:
            meta = await http.get(f"{parts.scheme}://{parts.netloc}/.well-known/oauth-authorization-server{parts.path}")
            meta.raise_for_status()
            if meta.json().get("issuer") != idp:
                raise RuntimeError("the identity provider's metadata names another issuer")
            answer = await http.post(
                meta.json()["token_endpoint"],
                data={
                    "grant_type": TOKEN_EXCHANGE,
                    "requested_token_type": ID_JAG,
                    "subject_token": env("ID_TOKEN"),
                    "subject_token_type": ID_TOKEN,
                    "audience": audience,
                    "resource": resource,
                    "client_id": env("IDP_CLIENT_ID"),
                    "client_secret": env("IDP_CLIENT_SECRET"),
                },
            )
        if answer.status_code != 200:
            raise RuntimeError(f"token exchange at the identity provider: {answer.status_code} {answer.text}")
        body = answer.json()
        if body.get("issued_token_type") != ID_JAG:
            raise RuntimeError(f"the identity provider issued {body.get('issued_token_type')}, not an ID-JAG")
        issued.append(body["access_token"])
        return body["access_token"]

    storage = MemoryStorage()
    provider = IdentityAssertionOAuthProvider(
        server_url=env("MCP_URL"),
        storage=storage,
        client_id=env("AS_CLIENT_ID"),
        client_secret=env("AS_CLIENT_SECRET"),
        issuer=env("AS_ISSUER"),
        assertion_provider=id_jag,
        token_endpoint_auth_method="client_secret_basic",
    )
    async with httpx2.AsyncClient(auth=provider) as http:
        async with Client(streamable_http_client(env("MCP_URL"), http_client=http)) as client:
            result = await client.call_tool("whoami", {})
    if result.is_error or storage.tokens is None or len(issued) != 1:
        raise RuntimeError(f"whoami failed: {result.model_dump_json()}")
    print(
        json.dumps(
            {
                "sdk": f"mcp {version('mcp')}",
                "caller": result.structured_content,
                "id_jag": issued[0],
                "access_token": storage.tokens.access_token,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
