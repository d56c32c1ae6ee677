/**
 * The sample MCP server: a Model Context Protocol server written with the official
 * @modelcontextprotocol/sdk (McpServer over the streamable HTTP transport, stateless) whose endpoint is protected by
 * @idp/resource-server only through its public entry points, as a customer would write it:
 * - RFC 9728 protected resource metadata (root and path-suffixed well-known URLs) naming the tenant's issuer;
 * - `requireAccess` on the MCP endpoint: 401 with `WWW-Authenticate: Bearer resource_metadata="..."` without a valid
 *   token (which is what starts an MCP client's authorization), 403 insufficient_scope without `mcp:tools`, and
 *   refusal of tokens whose agent was disabled once the SSF poll receiver has learnt it;
 * - the verified access handed to the MCP transport as its AuthInfo, so tools see who calls: the user in `sub` and,
 *   for an agent client's NHE delegation token, the agent in `act` and `agent`.
 * Every request logs the resource-server SDK's audit line.
 */
import express, { type Express, type Request, type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  auditLine,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type Access,
  type AuditLine,
  type Verifier,
} from '@idp/resource-server';
import { accessOf, protectedResourceMetadataHandler, requireAccess } from '@idp/resource-server/express';

/** The scope every MCP request needs (the resource server's scope in the tenant). */
export const MCP_TOOLS_SCOPE = 'mcp:tools';

export interface McpServerAppOptions {
  /** The tenant's issuer. */
  issuer: string;
  /** This server's resource identifier: the MCP endpoint's public URL (e.g. `http://127.0.0.1:4200/mcp`), the tokens' aud. */
  resource: string;
  verifier: Verifier;
  /** Where the audit lines go (the server's own logger). */
  log: (line: { event: string } & Partial<AuditLine> & Record<string, unknown>) => void;
  /** What /healthz reports about the revocation feed. */
  revocationStatus?: () => unknown;
}

const ORDERS = [
  { id: 'o-1001', item: 'Paper, A4, 5 reams', total: 24.5 },
  { id: 'o-1002', item: 'Toner cartridge', total: 61 },
];

/** The caller as a tool reports it: the user, and for a delegation token the agent acting for them. */
export interface Caller {
  sub: string;
  client_id: string;
  scope: string;
  delegated: boolean;
  act: unknown;
  agent: unknown;
  gty: unknown;
}

function callerOf(access: Access): Caller {
  return {
    sub: access.userId,
    client_id: access.clientId,
    scope: access.scopes.join(' '),
    delegated: access.delegation !== undefined,
    act: access.claims.act ?? null,
    agent: access.claims.agent ?? null,
    gty: access.claims.gty ?? null,
  };
}

/** The MCP transport's AuthInfo for a verified access (tools read it as `extra.authInfo`). */
function authInfoOf(access: Access, resource: string): AuthInfo {
  return {
    token: access.token,
    clientId: access.clientId,
    scopes: access.scopes,
    ...(typeof access.claims.exp === 'number' ? { expiresAt: access.claims.exp } : {}),
    resource: new URL(resource),
    extra: { caller: callerOf(access) },
  };
}

function callerFrom(authInfo: AuthInfo | undefined): Caller {
  const caller = authInfo?.extra?.caller as Caller | undefined;
  if (!caller) throw new Error('no verified caller');
  return caller;
}

/** One MCP server per request (stateless streamable HTTP): tools `whoami` and `list_orders`. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'orders-mcp', version: '0.1.0' });
  server.registerTool(
    'whoami',
    { title: 'Who am I', description: 'The user this call acts for, and the agent acting for them, if any' },
    (extra) => {
      const caller = callerFrom(extra.authInfo);
      return { content: [{ type: 'text', text: JSON.stringify(caller) }], structuredContent: { ...caller } };
    },
  );
  server.registerTool('list_orders', { title: 'List orders', description: "The user's orders" }, (extra) => {
    const caller = callerFrom(extra.authInfo);
    const via = caller.delegated ? ` (through the agent ${(caller.agent as { id?: string } | null)?.id ?? '?'})` : '';
    return {
      content: [
        { type: 'text', text: `Orders of ${caller.sub}${via}: ${ORDERS.map((o) => `${o.id} ${o.item}`).join('; ')}` },
      ],
    };
  });
  // The two fixture tools of the MCP conformance suite's tools-call-simple-text and tools-call-error scenarios, so
  // that those scenarios check real answers through the protected endpoint (not an unknown-tool error).
  server.registerTool('test_simple_text', { description: 'Conformance fixture: simple text' }, () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  server.registerTool('test_error_handling', { description: 'Conformance fixture: always fails' }, () =>
    Promise.reject(new Error('This tool intentionally returns an error for testing')),
  );
  return server;
}

export function createMcpServerApp(o: McpServerAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  const resourceUrl = new URL(o.resource);
  const resourceMetadataUrl = protectedResourceMetadataUrl(o.resource);
  app.use(
    protectedResourceMetadataHandler(
      protectedResourceMetadata({
        resource: o.resource,
        authorizationServers: [o.issuer],
        scopesSupported: [MCP_TOOLS_SCOPE],
        dpopSigningAlgValuesSupported: o.verifier.dpopAlgorithms,
        resourceName: 'Orders MCP server',
      }),
    ),
  );
  const guard = requireAccess(o.verifier, { scopes: [MCP_TOOLS_SCOPE], resourceMetadataUrl });
  // DNS rebinding protection (MCP transport security): only this server's own Host is served.
  const allowedHosts = [resourceUrl.host, `localhost:${resourceUrl.port}`];

  app.post(resourceUrl.pathname, guard, express.json({ limit: '256kb' }), async (req: Request, res: Response) => {
    const access = accessOf(req);
    const method = typeof req.body?.method === 'string' ? req.body.method : undefined;
    o.log({ event: 'mcp.request', method, ...auditLine(access) });
    if (method === 'tools/call' && typeof req.body?.params?.name === 'string')
      o.log({ event: 'mcp.tool', tool: req.body.params.name, jti: access.claims.jti });
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      (req as unknown as { auth: AuthInfo }).auth = authInfoOf(access, o.resource);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      o.log({ event: 'mcp.error', message: (err as Error).message });
      if (!res.headersSent)
        res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
    }
  });
  // Stateless: no server-initiated stream and no session to end (the client is told so, after authentication).
  const notAllowed = (_req: Request, res: Response) => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
  };
  app.get(resourceUrl.pathname, guard, notAllowed);
  app.delete(resourceUrl.pathname, guard, notAllowed);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', revocations: o.revocationStatus?.() ?? null });
  });
  return app;
}
