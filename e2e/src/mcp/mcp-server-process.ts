/**
 * Runs the sample MCP server (e2e/mcp-server: @modelcontextprotocol/sdk on @idp/resource-server) as its own process,
 * like a customer's MCP server outside the cluster: its dist/main.js with its environment. Its stdout is JSON lines;
 * the audit lines are collected for the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@idp/testing';
import { watchJsonLines, type JsonLineProcess } from '../json-line-process';

export interface McpServerProcess extends JsonLineProcess {
  /** The MCP endpoint (its resource identifier). */
  url: string;
  origin: string;
}

export interface McpServerOptions {
  port: number;
  issuer: string;
  ssf?: { clientId: string; clientSecret: string; intervalMs?: number };
}

export async function startMcpServer(o: McpServerOptions): Promise<McpServerProcess> {
  const origin = `http://127.0.0.1:${o.port}`;
  const url = `${origin}/mcp`;
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot(), 'e2e', 'mcp-server', 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      MCP_ISSUER: o.issuer,
      MCP_RESOURCE: url,
      PORT: String(o.port),
      HOST: '127.0.0.1',
      ...(o.ssf
        ? {
            SSF_CLIENT_ID: o.ssf.clientId,
            SSF_CLIENT_SECRET: o.ssf.clientSecret,
            SSF_POLL_INTERVAL_MS: String(o.ssf.intervalMs ?? 1000),
          }
        : {}),
    },
    stdio: ['ignore', 'pipe', process.env.E2E_LOGS ? 'inherit' : 'ignore'],
  });
  return { url, origin, ...(await watchJsonLines(child, 'mcp-server')) };
}
