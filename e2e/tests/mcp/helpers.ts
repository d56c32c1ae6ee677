/**
 * Set-up shared by the MCP e2e tests: the full topology with oidc-core trusting the loopback metadata
 * documents' CA, the tenant configured as an operator would (Client ID Metadata Documents with loopback allowed,
 * Dynamic Client Registration open, both development settings), the MCP server registered as a resource server with
 * its scope granted to the user by a role, an NHE whose agentClients name the agent's documents, its delegation
 * policy for the user, an SSF receiver client, and the sample MCP server started as its own process.
 */
import { freePort } from '@idp/testing';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { startMetadataDocumentServer, type MetadataDocumentServer } from '../../src/mcp/metadata-documents';
import { startMcpServer, type McpServerProcess } from '../../src/mcp/mcp-server-process';

export const MCP_SCOPE = 'mcp:tools';
export const AGENT = 'mcp-assistant';
export const POLL_INTERVAL_MS = 1000;

export interface McpWorld {
  h: Harness;
  docs: MetadataDocumentServer;
  mcp: McpServerProcess;
  issuer: string;
  admin: string;
  nheId: string;
  /** A management API call; T is what the caller reads of the JSON answer (undefined when the answer is empty). */
  manage: <T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; body: T | undefined }>;
  stop: () => Promise<void>;
}

export async function startMcpWorld(label: string): Promise<McpWorld> {
  const docs = await startMetadataDocumentServer();
  // The operator allows oidc-core's outbound fetches to reach loopback (development only): the documents are served here.
  const h = await startHarness(label, { oidcEnv: { NODE_EXTRA_CA_CERTS: docs.caFile, CIMD_ALLOW_LOOPBACK: 'true' } });
  const T = h.tenant.tenantId;
  const issuer = `${h.topology.baseUrl}/auth/${T}`;
  const admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      T,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;
  const manage = async <T = unknown>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${h.topology.baseUrl}/auth/admin/tenants/${T}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as T) : undefined };
  };
  // The expected status's answer has the body the caller names (an empty one for a 204, which no caller reads).
  const must = async <T>(status: number, p: Promise<{ status: number; body: T | undefined }>): Promise<T> => {
    const res = await p;
    if (res.status !== status) throw new Error(`management: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as T;
  };

  // The tenant's settings: metadata documents from the documents' host and open registration.
  await must(
    200,
    manage('PATCH', '', {
      settings: {
        clientIdMetadataDocuments: { enabled: true, allowedHosts: ['127.0.0.1'] },
        registration: { mode: 'open' },
      },
    }),
  );
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  await must(
    201,
    manage('POST', '/resource-servers', {
      identifier: resource,
      name: 'Orders MCP server',
      scopes: [MCP_SCOPE],
      scopeDescriptions: { [MCP_SCOPE]: 'Use the Orders tools' },
      metadataUrl: `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`,
      config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true } },
    }),
  );
  const role = await must(
    201,
    manage<{ id: string }>('POST', '/roles', { name: 'mcp-user', resourceServer: resource, permissions: [MCP_SCOPE] }),
  );
  await must(204, manage('PUT', `/users/${h.tenant.user.id}/roles/${role.id}`));
  // The agent: its metadata documents under /agents/ on the documents' host embody it.
  const nhe = await must(
    201,
    manage<{ id: string }>('POST', '/non-human-entities', {
      identifier: AGENT,
      type: 'llm-assistive',
      operator: 'Demo Operations',
      model: { name: 'demo-model', provider: 'example' },
      allowedScopes: [MCP_SCOPE],
      maxTokenLifetime: 300,
      agentClients: [`${docs.origin}/agents/*`],
    }),
  );
  await must(
    201,
    manage('POST', `/non-human-entities/${nhe.id}/delegation-policies`, {
      target: { type: 'user', id: h.tenant.user.id },
      allowedScopes: [MCP_SCOPE],
    }),
  );
  // The MCP server's SSF receiver: a client allowed ssf.manage on urn:idp:ssf.
  const ssfRole = await must(
    201,
    manage<{ id: string }>('POST', '/roles', {
      name: 'ssf-receiver',
      resourceServer: 'urn:idp:ssf',
      permissions: ['ssf.manage'],
    }),
  );
  const receiver = await must(
    201,
    manage<{ clientId: string; clientSecret: string }>('POST', '/clients', {
      name: 'MCP server (SSF receiver)',
      grantTypes: ['client_credentials'],
    }),
  );
  await must(204, manage('PUT', `/clients/${receiver.clientId}/roles/${ssfRole.id}`));
  const mcp = await startMcpServer({
    port,
    issuer,
    ssf: { clientId: receiver.clientId, clientSecret: receiver.clientSecret, intervalMs: POLL_INTERVAL_MS },
  });
  return {
    h,
    docs,
    mcp,
    issuer,
    admin,
    nheId: nhe.id,
    manage,
    stop: async () => {
      await mcp.stop();
      await h.stop();
      await docs.stop();
    },
  };
}

/** The document of a native MCP client (RFC 8252 loopback redirect URI, public). */
export function nativeClientDocument(name: string, redirectUri: string) {
  return (url: string) => ({
    client_id: url,
    client_name: name,
    client_uri: new URL(url).origin,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  });
}

export async function eventually<T>(
  fn: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 5000,
  stepMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
