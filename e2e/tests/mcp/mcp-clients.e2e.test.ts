/**
 * MCP clients against this provider: the official @modelcontextprotocol/sdk client (its own
 * OAuth support, unmodified: StreamableHTTPClientTransport + an OAuthClientProvider, the SDK's auth()) connects to
 * the sample MCP server (e2e/mcp-server: the SDK's McpServer on @idp/resource-server), in every service's process
 * behind the dev router, the user's browser step in Debian's Chromium:
 * - a Client ID Metadata Document client served on loopback that an NHE names in agentClients: the 401 with
 *   resource_metadata, RFC 9728 then RFC 8414 discovery, the document fetched by the provider, the agent consent
 *   page, the code flow; the tool sees the user in `sub` and the agent in `act`; one audit row;
 * - the same with Dynamic Client Registration (RFC 7591) instead, the registered client linked by an administrator;
 * - a client that no NHE names: an ordinary token, no delegation claims;
 * - negatives: the agent asking for offline_access (refused at authorization), the NHE disabled (no token, and its
 *   live token refused by the MCP server within the SSF poll bound), the tenant's NHE delegation off (no token).
 * The SDK's protected-resource discovery against the resource-server SDK's RFC 9728 handler is also the nearest
 * real check of that handler by a stock client.
 */
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { launchChromium } from '../../src/clients/browser';
import {
  connectWithBrowser,
  HostOAuthProvider,
  recordingFetch,
  startRedirectReceiver,
  type Exchange,
  type RedirectReceiver,
} from '../../src/mcp/mcp-client';
import {
  AGENT,
  eventually,
  MCP_SCOPE,
  nativeClientDocument,
  POLL_INTERVAL_MS,
  startMcpWorld,
  type McpWorld,
} from './helpers';
import { ifAssigned } from '../../src/if-assigned';

let w: McpWorld;
let browser: Browser;
let redirect: RedirectReceiver;
let user: { username: string; password: string };
/** The CIMD agent's session, kept for the kill-switch test. */
let agentSession: { client: Client; token: string } | undefined;

beforeAll(async () => {
  w = await startMcpWorld('mcp-clients');
  browser = await launchChromium();
  redirect = await startRedirectReceiver();
  user = { username: w.h.tenant.user.username, password: w.h.tenant.user.password };
}, 120_000);

afterAll(async () => {
  await agentSession?.client.close().catch(() => undefined);
  await ifAssigned(redirect)?.close();
  await ifAssigned(browser)?.close();
  await ifAssigned(w)?.stop();
});

interface ToolCaller {
  sub: string;
  client_id: string;
  scope: string;
  delegated: boolean;
  act: { sub: string } | null;
  agent: { id: string; type: string; operator: string } | null;
  gty: string | null;
}

async function whoami(client: Client): Promise<ToolCaller> {
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  expect(result.isError).toBeFalsy();
  const content = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content[0]!.text) as ToolCaller;
}

const clientMetadata = (name: string) => ({
  client_name: name,
  redirect_uris: [redirect.redirectUrl],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
});

/** The discovery the SDK did: 401 with resource_metadata, then the RFC 9728 document, then the tenant's RFC 8414 metadata. */
function expectDiscovery(exchanges: Exchange[]) {
  const prm = `${w.mcp.origin}/.well-known/oauth-protected-resource/mcp`;
  const first = exchanges[0]!;
  expect({ method: first.method, url: first.url, status: first.status }).toEqual({
    method: 'POST',
    url: w.mcp.url,
    status: 401,
  });
  expect(first.wwwAuthenticate).toContain(`resource_metadata="${prm}"`);
  const urls = exchanges.map((e) => `${e.method} ${e.url} ${e.status}`);
  const prmAt = urls.indexOf(`GET ${prm} 200`);
  const asAt = urls.indexOf(
    `GET ${w.h.topology.baseUrl}/.well-known/oauth-authorization-server/auth/${w.h.tenant.tenantId} 200`,
  );
  expect({ prmAt: prmAt > 0, asAt: asAt > prmAt }).toEqual({ prmAt: true, asAt: true });
}

test('Client ID Metadata Document agent: discovery, the document, the agent consent page, a tool that sees the user in sub and the agent in act', async () => {
  const docPath = '/agents/orders-assistant.json';
  const clientId = w.docs.serve(docPath, nativeClientDocument('Orders Assistant', redirect.redirectUrl));
  const exchanges: Exchange[] = [];
  const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Orders Assistant'), clientId);
  const { client, step } = await connectWithBrowser({
    serverUrl: w.mcp.url,
    provider,
    exchanges,
    browser,
    redirect,
    user,
  });

  expectDiscovery(exchanges);
  expect(exchanges.some((e) => e.url.endsWith('/reg'))).toBe(false); // no registration: the document is the client
  const authorize = provider.authorizationUrls[0]!;
  expect(
    Object.fromEntries(
      ['client_id', 'resource', 'code_challenge_method', 'scope'].map((k) => [k, authorize.searchParams.get(k)]),
    ),
  ).toEqual({
    client_id: clientId,
    resource: w.mcp.url,
    code_challenge_method: 'S256',
    scope: MCP_SCOPE,
  });
  expect(w.docs.hits.get(docPath)).toBeGreaterThanOrEqual(1); // the provider fetched the document
  expect(step.returned.searchParams.get('iss')).toBe(w.issuer); // RFC 9207
  // The agent consent page: who the agent is, the host, what it may do, no refresh.
  expect(step.consentHeading).toBe('Allow the agent Orders Assistant to act for you?');
  expect(step.consentText).toContain(
    `is the automated agent ${AGENT}, of type llm-assistive, running demo-model (example), operated by Demo Operations`,
  );
  expect(step.consentText).toContain('127.0.0.1');
  expect(step.consentText).toContain('Use the Orders tools');
  expect(step.consentText).toContain('No refresh');

  const tokens = provider.tokens()!;
  expect(tokens.refresh_token).toBeUndefined();
  const claims = decodeJwt(tokens.access_token);
  expect(claims).toMatchObject({
    sub: w.h.tenant.user.id,
    aud: w.mcp.url,
    act: { sub: `nhe:${AGENT}` },
    'org.vendor.nhe.delegation': true,
    gty: 'authorization_code',
    client_id: clientId,
  });

  const caller = await whoami(client);
  expect(caller).toEqual({
    sub: w.h.tenant.user.id,
    client_id: clientId,
    scope: MCP_SCOPE,
    delegated: true,
    act: { sub: `nhe:${AGENT}` },
    agent: {
      id: AGENT,
      type: 'llm-assistive',
      operator: 'Demo Operations',
      model: { name: 'demo-model', provider: 'example' },
    },
    gty: 'authorization_code',
  });
  const listed = await client.callTool({ name: 'list_orders', arguments: {} });
  expect((listed.content as Array<{ text: string }>)[0]!.text).toContain(`through the agent ${AGENT}`);
  // The MCP server's audit line names the agent under the user.
  const line = await w.mcp.waitForLine(
    (l) => l.event === 'mcp.request' && l.jti === claims.jti && l.method === 'tools/call',
  );
  expect(line).toMatchObject({ userId: w.h.tenant.user.id, delegated: true, nheIdentifier: AGENT, clientId });
  // The provider's audit: one row for the token, with the user, the agent and the client.
  const rows = await eventually(
    () =>
      w.manage<{ items?: unknown[] }>(
        'GET',
        `/non-human-entities/token-audit?${new URLSearchParams({ jti: String(claims.jti) })}`,
      ),
    (r) => r.body?.items?.length === 1,
    10_000,
    200,
  );
  expect(rows.body?.items).toHaveLength(1);
  expect(rows.body?.items?.[0]).toMatchObject({
    userId: w.h.tenant.user.id,
    nheIdentifier: AGENT,
    clientId,
    resourceServer: w.mcp.url,
    scopes: [MCP_SCOPE],
  });
  agentSession = { client, token: tokens.access_token };
}, 60_000);

test('a native (loopback) agent sees the consent page on every sign-in (RFC 8252 8.6: no silent approval of a redirect any local process can receive)', async () => {
  // Its consent is remembered (the grant exists, as a web agent's is: agent-clients.int.test.ts shows prompt=none
  // renewing one), but node-oidc-provider's native_client_prompt asks a native client's user every time.
  const clientId = `${w.docs.origin}/agents/orders-assistant.json`;
  const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Orders Assistant'), clientId);
  const { client, step } = await connectWithBrowser({
    serverUrl: w.mcp.url,
    provider,
    exchanges: [],
    browser,
    redirect,
    user,
  });
  expect(step.consentHeading).toBe('Allow the agent Orders Assistant to act for you?');
  expect(await whoami(client)).toMatchObject({ sub: w.h.tenant.user.id, act: { sub: `nhe:${AGENT}` } });
  await client.close();
}, 60_000);

test('Dynamic Client Registration agent: the SDK registers (RFC 7591), an administrator links the client to the NHE, the tool sees the agent in act', async () => {
  const exchanges: Exchange[] = [];
  const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Desk Agent'));
  let registered = '';
  provider.onClientInformation = async (info) => {
    registered = info.client_id;
    // The administrator names the registered client among the NHE's agent clients (a registration alone never gets delegation).
    const res = await w.manage('PATCH', `/non-human-entities/${w.nheId}`, {
      agentClients: [`${w.docs.origin}/agents/*`, info.client_id],
    });
    expect(res.status).toBe(200);
  };
  const { client, step } = await connectWithBrowser({
    serverUrl: w.mcp.url,
    provider,
    exchanges,
    browser,
    redirect,
    user,
  });
  expectDiscovery(exchanges);
  const reg = exchanges.find((e) => e.method === 'POST' && e.url === `${w.issuer}/reg`);
  expect(reg?.status).toBe(201);
  expect(registered).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(step.consentHeading).toBe('Allow the agent Desk Agent to act for you?');
  const caller = await whoami(client);
  expect(caller).toMatchObject({
    sub: w.h.tenant.user.id,
    client_id: registered,
    delegated: true,
    act: { sub: `nhe:${AGENT}` },
    agent: { id: AGENT },
    gty: 'authorization_code',
  });
  // The management API lists the client as dynamically registered, third party.
  const listed = await w.manage('GET', `/clients/${registered}`);
  expect(listed.status).toBe(200);
  expect(listed.body).toMatchObject({ clientId: registered, firstParty: false, registration: 'dynamic' });
  await client.close();
}, 60_000);

test('a client that no NHE names gets an ordinary token: the tool sees the user, no act, no agent', async () => {
  const clientId = w.docs.serve('/tools/notes-app.json', nativeClientDocument('Notes App', redirect.redirectUrl));
  const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Notes App'), clientId);
  const { client, step } = await connectWithBrowser({
    serverUrl: w.mcp.url,
    provider,
    exchanges: [],
    browser,
    redirect,
    user,
  });
  expect(step.consentHeading).toBe('Allow Notes App to access your account?');
  expect(step.consentText).not.toContain('automated agent');
  const claims = decodeJwt(provider.tokens()!.access_token);
  expect(claims.act).toBeUndefined();
  expect(claims.agent).toBeUndefined();
  expect(claims['org.vendor.nhe.delegation']).toBeUndefined();
  expect(await whoami(client)).toEqual({
    sub: w.h.tenant.user.id,
    client_id: clientId,
    scope: MCP_SCOPE,
    delegated: false,
    act: null,
    agent: null,
    gty: null,
  });
  await client.close();
}, 60_000);

test('an agent client asking for offline_access is refused at authorization (invalid_scope), before any sign-in', async () => {
  const clientId = w.docs.serve(
    '/agents/orders-assistant-offline.json',
    nativeClientDocument('Orders Assistant', redirect.redirectUrl),
  );
  const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Orders Assistant'), clientId);
  // The SDK's auth() with the scope a host asks for; it adds prompt=consent for offline_access itself.
  expect(
    await auth(provider, { serverUrl: w.mcp.url, scope: `${MCP_SCOPE} offline_access`, fetchFn: recordingFetch([]) }),
  ).toBe('REDIRECT');
  const url = provider.authorizationUrls[0]!;
  expect(url.searchParams.get('scope')).toBe(`${MCP_SCOPE} offline_access`);
  const res = await fetch(url, { redirect: 'manual' });
  const back = new URL(res.headers.get('location')!, w.issuer);
  expect(back.href.startsWith(redirect.redirectUrl)).toBe(true);
  expect(back.searchParams.get('error')).toBe('invalid_scope');
  expect(back.searchParams.get('error_description')).toMatch(new RegExp(`agent ${AGENT}.*without refresh`));
  expect(back.searchParams.get('code')).toBeNull();
}, 30_000);

test('the NHE disabled: its live token is refused by the MCP server within the SSF poll bound, and a new sign-in gets no token', async () => {
  expect(agentSession).toBeDefined();
  const { client, token } = agentSession!;
  const post = () =>
    fetch(w.mcp.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
  expect((await post()).status).toBe(200);
  const t0 = Date.now();
  expect((await w.manage('PATCH', `/non-human-entities/${w.nheId}`, { enabled: false })).status).toBe(200);
  try {
    const refused = await eventually(post, (r) => r.status === 401, 10_000, 20);
    const elapsed = Date.now() - t0;
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      error: 'invalid_token',
      error_description: 'the access token has been revoked',
    });
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    console.log(`MCP server (SSF poll every ${POLL_INTERVAL_MS} ms): NHE disabled to refusal ${elapsed} ms`);
    expect(elapsed).toBeLessThan(POLL_INTERVAL_MS + 2500);
    // The SDK client's next tool call fails too (it would have to sign in again).
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();

    // A new sign-in of the same agent: the user can go through the pages, the token request is refused.
    const clientId = w.docs.serve(
      '/agents/orders-assistant-2.json',
      nativeClientDocument('Orders Assistant', redirect.redirectUrl),
    );
    const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Orders Assistant'), clientId);
    const err = await connectWithBrowser({
      serverUrl: w.mcp.url,
      provider,
      exchanges: [],
      browser,
      redirect,
      user,
    }).then(
      () => undefined,
      (e: Error & { oauthError?: string }) => e,
    );
    expect(err).toBeDefined();
    expect(provider.tokens()).toBeUndefined();
    expect(err!.oauthError ?? err!.message).toMatch(/access_denied|invalid_grant|the NHE is disabled/);
  } finally {
    expect((await w.manage('PATCH', `/non-human-entities/${w.nheId}`, { enabled: true })).status).toBe(200);
  }
}, 90_000);

test("the tenant's NHE delegation off: an agent client gets no token at all (not an ordinary one)", async () => {
  expect((await w.manage('PATCH', '', { settings: { nhe: { enabled: false } } })).status).toBe(200);
  try {
    const clientId = w.docs.serve(
      '/agents/orders-assistant-3.json',
      nativeClientDocument('Orders Assistant', redirect.redirectUrl),
    );
    const provider = new HostOAuthProvider(redirect.redirectUrl, clientMetadata('Orders Assistant'), clientId);
    const err = await connectWithBrowser({
      serverUrl: w.mcp.url,
      provider,
      exchanges: [],
      browser,
      redirect,
      user,
    }).then(
      () => undefined,
      (e: Error & { oauthError?: string; step?: { consentText: string } }) => e,
    );
    expect(err).toBeDefined();
    expect(provider.tokens()).toBeUndefined();
    expect(err!.oauthError ?? err!.message).toMatch(/access_denied/);
  } finally {
    expect((await w.manage('PATCH', '', { settings: { nhe: { enabled: true } } })).status).toBe(200);
  }
}, 60_000);
