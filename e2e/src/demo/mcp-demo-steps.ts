/**
 * The MCP demo's part of the banner: the sample servers' addresses, and three steps that the tests run exactly as
 * printed (tests/first-run/mcp-demo.e2e.test.ts):
 * 1. the MCP SDK's own client, unmodified (demo/mcp-host.ts), from nothing to a tool call, its access token kept;
 * 2. the user's agents page (demo/agents-ledger.ts): the delegation it shows, then its Revoke form;
 * 3. the MCP server asked again with that token: refused once the revocation reached it over Shared Signals.
 */
import type { SeededTenant } from '@idp/testing';
import { sh, type DemoStep } from '../dev-banner';

export interface McpDemoWhere {
  baseUrl: string;
  demo: SeededTenant;
  mcpUrl: string;
  ordersUrl: string;
  /** The generated CA (https runs): the scripts trust it through NODE_EXTRA_CA_CERTS. */
  caFile?: string;
  pollIntervalMs: number;
}

/** Seconds within which the MCP server refuses a revoked token: its poll interval and a margin for the transmitter. */
export function refusalBoundSeconds(pollIntervalMs: number): number {
  return Math.ceil(pollIntervalMs / 1000) + 3;
}

export function mcpDemoLines(w: McpDemoWhere): string[] {
  return [
    `  Resource-server SDK       libs/resource-server (the two sample servers below are built on it)`,
    `  MCP sample server         ${w.mcpUrl}   (e2e/mcp-server, the MCP SDK's server; tools whoami and list_orders)`,
    `  Orders API (sample)       ${w.ordersUrl}/orders   (e2e/orders-api; tokens for ${w.demo.resource}, like the exchange's below)`,
  ];
}

export function mcpDemoSteps(w: McpDemoWhere): DemoStep[] {
  const node = `${w.caFile ? `NODE_EXTRA_CA_CERTS=${sh(w.caFile)} ` : ''}node`;
  const { user, nhe, admin } = w.demo;
  const ledger = `${w.baseUrl}/auth/${w.demo.tenantId}/account/agents`;
  const poll = w.pollIntervalMs / 1000;
  return [
    {
      title: `Connect an MCP client (the MCP SDK's own client, unmodified): from nothing it registers itself (Dynamic Client Registration, open in the demo tenant), the tenant administrator names it an agent client of ${nhe.identifier}, ${user.username} signs in and allows it (a form agent stands in for the browser; add --browser to use yours), and it calls the tool whoami; its access token is kept:`,
      command: [
        `MCP_TOKEN=$(${node} e2e/dist/demo/mcp-host.js ${w.mcpUrl} --user ${sh(user.username)} --password ${sh(user.password)} \\`,
        `  --agent ${nhe.identifier} --admin ${sh(`${admin.clientId}:${admin.clientSecret}`)})`,
      ].join('\n'),
    },
    {
      title: `See the delegation on ${user.username}'s agents page and revoke it there (in a browser: ${ledger}):`,
      command: `${node} e2e/dist/demo/agents-ledger.js ${ledger} --user ${sh(user.username)} --password ${sh(user.password)} --revoke ${nhe.identifier}`,
    },
    {
      title: `Call the tool again with that token: the MCP server refuses it (401 invalid_token) once the revocation reached it, within ${refusalBoundSeconds(w.pollIntervalMs)} seconds (its Shared Signals receiver polls every ${poll} s):`,
      command: [
        `curl -s -i ${w.mcpUrl} -H "Authorization: Bearer $MCP_TOKEN" \\`,
        `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\`,
        `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}'`,
      ].join('\n'),
    },
  ];
}
