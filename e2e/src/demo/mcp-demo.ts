/**
 * The MCP demo of `npm start`: the sample MCP server (e2e/mcp-server) and the sample Orders API (e2e/orders-api),
 * both on @idp/resource-server with a Shared Signals poll receiver, run as processes beside the topology on free
 * loopback ports, and the banner's lines and steps that take the MCP SDK's own client, unmodified, from nothing to a
 * tool call, show the delegation on the user's agents page, revoke it there, and show the MCP server refusing the
 * token. The steps are data (demo/mcp-demo-steps.ts) so the tests run them exactly as printed.
 */
import { join } from 'node:path';
import type { Models } from '@idp/db';
import { freePort, repoRoot, type SeededTenant } from '@idp/testing';
import type { DemoStep } from '../dev-banner';
import { seedMcpDemoTenant } from './mcp-demo-tenant';
import { mcpDemoLines, mcpDemoSteps } from './mcp-demo-steps';
import { startSampleProcess, type SampleProcess } from './sample-process';

/** How often the sample servers ask the transmitter for revocations: the bound a revocation reaches them within. */
export const DEMO_SSF_POLL_INTERVAL_MS = 2000;

/**
 * oidc-core's environment for the demo (the operator's settings): outbound fetches of Client ID Metadata Documents
 * and key sets may reach loopback hosts, so agents a developer runs on this machine can be clients. Development
 * only; never in the chart.
 */
export const DEMO_OIDC_CORE_ENV = { CIMD_ALLOW_LOOPBACK: 'true' } as const;

/**
 * The demo's oidc-core environment for a router bound to `bindAddress`: loopback fetching only while nobody but this
 * machine can reach the provider (a router on another interface would let anyone on that network make oidc-core
 * fetch this machine's loopback ports).
 */
export function demoOidcCoreEnv(bindAddress: string): Record<string, string> {
  const loopbackOnly = bindAddress === 'localhost' || bindAddress === '::1' || /^127\./.test(bindAddress);
  return loopbackOnly ? { ...DEMO_OIDC_CORE_ENV } : {};
}

export interface McpDemo {
  /** The MCP endpoint (its resource identifier). */
  mcpUrl: string;
  /** The Orders API's origin; its resource identifier is the demo's `https://api.orders.example`. */
  ordersUrl: string;
  /** The banner's table lines about the two sample servers. */
  lines: string[];
  /** The banner's steps. */
  steps: DemoStep[];
  /** Stops both processes (before the topology: their receivers end their streams at the transmitter). */
  stop: () => Promise<void>;
}

export interface McpDemoOptions {
  models: Models;
  demo: SeededTenant;
  /** The public origin (PUBLIC_BASE_URL). */
  baseUrl: string;
  clientSecretPepper: string;
  /** The CA the router's generated certificate chains to (https runs): the sample servers and the scripts trust it. */
  caFile?: string;
}

export async function startMcpDemo(o: McpDemoOptions): Promise<McpDemo> {
  const [mcpPort, ordersPort] = [await freePort(), await freePort()];
  const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  const ordersUrl = `http://127.0.0.1:${ordersPort}`;
  const issuer = `${o.baseUrl}/auth/${o.demo.tenantId}`;
  const { receivers } = await seedMcpDemoTenant(o.models, o.demo, {
    mcpResource: mcpUrl,
    clientSecretPepper: o.clientSecretPepper,
  });
  const ca = o.caFile ?? process.env.NODE_EXTRA_CA_CERTS;
  const common = {
    HOST: '127.0.0.1',
    SSF_POLL_INTERVAL_MS: String(DEMO_SSF_POLL_INTERVAL_MS),
    ...(ca ? { NODE_EXTRA_CA_CERTS: ca } : {}),
  };
  const started: SampleProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((p) => p.stop()));
  };
  try {
    started.push(
      await startSampleProcess('mcp-server', join(repoRoot(), 'e2e', 'mcp-server', 'dist', 'main.js'), {
        ...common,
        MCP_ISSUER: issuer,
        MCP_RESOURCE: mcpUrl,
        PORT: String(mcpPort),
        SSF_CLIENT_ID: receivers.mcp.clientId,
        SSF_CLIENT_SECRET: receivers.mcp.clientSecret,
      }),
    );
    started.push(
      await startSampleProcess('orders-api', join(repoRoot(), 'e2e', 'orders-api', 'dist', 'main.js'), {
        ...common,
        ORDERS_ISSUER: issuer,
        ORDERS_RESOURCE: o.demo.resource,
        PORT: String(ordersPort),
        SSF_CLIENT_ID: receivers.orders.clientId,
        SSF_CLIENT_SECRET: receivers.orders.clientSecret,
      }),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  const where = {
    baseUrl: o.baseUrl,
    demo: o.demo,
    mcpUrl,
    ordersUrl,
    caFile: o.caFile,
    pollIntervalMs: DEMO_SSF_POLL_INTERVAL_MS,
  };
  return { mcpUrl, ordersUrl, lines: mcpDemoLines(where), steps: mcpDemoSteps(where), stop };
}
