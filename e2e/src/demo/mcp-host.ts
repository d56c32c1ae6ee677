/**
 * A minimal MCP host on the MCP SDK's own client, unmodified (@modelcontextprotocol/sdk Client over its
 * StreamableHTTPClientTransport, with an OAuthClientProvider: the part every host implements), given nothing but an
 * MCP server's URL:
 *
 *   node e2e/dist/demo/mcp-host.js MCP_URL --user NAME --password PASSWORD [--agent NHE --admin CLIENT_ID:SECRET] [--browser]
 *
 * The SDK does all of OAuth: the 401 with resource_metadata, RFC 9728 and RFC 8414 discovery, Dynamic Client
 * Registration (RFC 7591) with the metadata of its own example client (loopback redirect URI, client_secret_post:
 * the provider registers a native public client and answers `none`), PKCE, the resource indicator, the token request.
 * The host's parts:
 * - `--agent` / `--admin`: a registration alone never makes a client an agent; here the tenant administrator (its
 *   client credentials, the management API) names the new client among the NHE's agent clients as soon as it is
 *   registered, so the access token is an NHE delegation token (the user in `sub`, the agent in `act`);
 * - the user's browser step: a form agent signs the user in and allows the consent page, then follows the redirect
 *   to this host's loopback redirect URI; with `--browser` the URL is printed for a real browser instead;
 * - a tool call (whoami, list_orders), its answers printed.
 * Progress goes to stderr; stdout is the access token alone, so `MCP_TOKEN=$(...)` keeps it.
 */
import { parseArgs } from 'node:util';
import { decodeJwt } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import { FormAgent } from '../clients/form-agent';
import { HostOAuthProvider, startRedirectReceiver } from '../mcp/mcp-client';

const say = (line: string) => process.stderr.write(`mcp-host: ${line}\n`);

const USAGE =
  'usage: mcp-host.js MCP_URL --user NAME --password PASSWORD [--agent NHE_IDENTIFIER --admin CLIENT_ID:SECRET] [--browser]';

/** The SDK's fetch option: every exchange the SDK makes, shown as it happens (requests pass unchanged). */
const showingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const challenge = res.headers.get('www-authenticate');
  say(`${method} ${url} -> ${res.status}${challenge && res.status === 401 ? ` (WWW-Authenticate: ${challenge})` : ''}`);
  return res;
};

/** What the tenant administrator does: adds the client id to the NHE's agentClients (management API). */
async function nameAgentClient(issuer: string, admin: string, nheIdentifier: string, clientId: string): Promise<void> {
  const m = /^(.*)\/auth\/(\d+)$/.exec(issuer);
  if (!m) throw new Error(`cannot tell the tenant's management API from the issuer ${issuer}`);
  const [origin, tenantId] = [m[1]!, m[2]!];
  const colon = admin.indexOf(':');
  if (colon < 1) throw new Error('--admin is CLIENT_ID:SECRET');
  const basic = Buffer.from(
    `${encodeURIComponent(admin.slice(0, colon))}:${encodeURIComponent(admin.slice(colon + 1))}`,
  ).toString('base64');
  const tokenRes = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:idp:management' }),
  });
  const token = (await tokenRes.json()) as { access_token?: string; error_description?: string };
  if (!token.access_token)
    throw new Error(`the administrator's token request failed: ${tokenRes.status} ${token.error_description ?? ''}`);
  const api = `${origin}/auth/admin/tenants/${tenantId}/non-human-entities`;
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const page = (await call('GET', `${api}?${new URLSearchParams({ identifierPrefix: nheIdentifier })}`)) as {
    items?: Array<{ id: string; identifier: string; agentClients: string[] }>;
  };
  const nhe = page.items?.find((n) => n.identifier === nheIdentifier);
  if (!nhe) throw new Error(`the tenant has no NHE ${nheIdentifier}`);
  await call('PATCH', `${api}/${nhe.id}`, {
    agentClients: [...nhe.agentClients.filter((c) => c !== clientId), clientId],
  });
  say(
    `the tenant administrator named ${clientId} among the agent clients of ${nheIdentifier} (PATCH ${api}/${nhe.id})`,
  );
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      password: { type: 'string' },
      agent: { type: 'string' },
      admin: { type: 'string' },
      browser: { type: 'boolean' },
    },
  });
  const serverUrl = positionals[0];
  if (
    !serverUrl ||
    positionals.length > 1 ||
    (!values.browser && (!values.user || !values.password)) ||
    Boolean(values.agent) !== Boolean(values.admin)
  )
    throw new Error(USAGE);

  const redirect = await startRedirectReceiver();
  // The metadata of the SDK's own example client (examples/client/simpleOAuthClient.ts), on this host's loopback.
  const provider = new HostOAuthProvider(redirect.redirectUrl, {
    client_name: 'MCP host (demo, MCP SDK client)',
    redirect_uris: [redirect.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  });
  provider.onClientInformation = async (info: OAuthClientInformationMixed) => {
    const i = info as Record<string, unknown>;
    say(
      `registered: client_id ${info.client_id}, token_endpoint_auth_method ${String(i.token_endpoint_auth_method)}${i.client_secret ? ', with a secret' : ', no secret'}`,
    );
    const issuer = provider.discoveryState()?.authorizationServerMetadata?.issuer;
    if (!values.agent || !values.admin) return;
    if (!issuer) throw new Error("the authorization server's metadata names no issuer");
    await nameAgentClient(issuer, values.admin, values.agent, info.client_id);
  };
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: showingFetch });
  try {
    try {
      await new Client({ name: 'demo-mcp-host', version: '1.0.0' }).connect(transport());
      throw new Error('the MCP server let the client in without authorization');
    } catch (err) {
      if (!(err instanceof UnauthorizedError)) throw err;
    }
    const authorizationUrl = provider.authorizationUrls.at(-1);
    if (!authorizationUrl) throw new Error('the SDK asked for no authorization');
    const returned = redirect.next();
    if (values.browser) {
      say(`open this URL in your browser, sign in and allow the client:\n\n  ${authorizationUrl.href}\n`);
    } else {
      // The browser's part: sign in, allow, and follow the redirect to the loopback redirect URI.
      const end = await new FormAgent().drive(authorizationUrl.href, {
        username: values.user!,
        password: values.password!,
      });
      if (!end.url.startsWith(redirect.redirectUrl))
        throw new Error(`the sign-in ended at ${end.url} (${end.status}) instead of the redirect URI`);
      say(`${values.user} signed in and allowed the client; the browser came back to ${redirect.redirectUrl}`);
    }
    const back = await returned;
    const error = back.searchParams.get('error');
    if (error) throw new Error(`authorization refused: ${error} ${back.searchParams.get('error_description') ?? ''}`);
    if (back.searchParams.get('state') !== provider.lastState) throw new Error('the state came back changed');
    const t = transport();
    await t.finishAuth(back.searchParams.get('code') ?? '');
    const accessToken = provider.tokens()!.access_token;
    const claims = decodeJwt(accessToken);
    say(
      `access token: aud ${String(claims.aud)}, sub ${String(claims.sub)}${claims.act ? `, act ${JSON.stringify(claims.act)}` : ''}, expires in ${Number(claims.exp) - Math.floor(Date.now() / 1000)} s`,
    );
    const client = new Client({ name: 'demo-mcp-host', version: '1.0.0' });
    await client.connect(t);
    try {
      for (const name of ['whoami', 'list_orders']) {
        const result = await client.callTool({ name, arguments: {} });
        const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
        say(`tools/call ${name}${result.isError ? ' (error)' : ''}: ${text}`);
      }
    } finally {
      await client.close();
    }
    process.stdout.write(`${accessToken}\n`);
  } finally {
    await redirect.close();
  }
}

main().catch((err: unknown) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
