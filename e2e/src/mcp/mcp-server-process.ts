/**
 * Runs the sample MCP server (e2e/mcp-server: @modelcontextprotocol/sdk on @idp/resource-server) as its own process,
 * like a customer's MCP server outside the cluster: its dist/main.js with its environment. Its stdout is JSON lines;
 * the audit lines are collected for the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@idp/testing';

export interface McpServerProcess {
  /** The MCP endpoint (its resource identifier). */
  url: string;
  origin: string;
  lines: Array<Record<string, unknown>>;
  waitForLine: (match: (line: Record<string, unknown>) => boolean, timeoutMs?: number) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
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
      ...(o.ssf ? { SSF_CLIENT_ID: o.ssf.clientId, SSF_CLIENT_SECRET: o.ssf.clientSecret, SSF_POLL_INTERVAL_MS: String(o.ssf.intervalMs ?? 1000) } : {}),
    },
    stdio: ['ignore', 'pipe', process.env.E2E_LOGS ? 'inherit' : 'ignore'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        lines.push(JSON.parse(text) as Record<string, unknown>);
      } catch {
        lines.push({ text });
      }
      if (process.env.E2E_LOGS) process.stdout.write(`mcp-server: ${text}\n`);
      for (const w of waiters) w();
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitForLine = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 20_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const line = lines.find(match);
        if (!line) return;
        cleanup();
        resolve(line);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`mcp-server: no matching line within ${timeoutMs} ms; lines: ${JSON.stringify(lines).slice(0, 2000)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  await Promise.race([waitForLine((l) => l.event === 'listening'), exited.then(() => Promise.reject(new Error(`mcp-server exited: ${JSON.stringify(lines)}`)))]);
  return {
    url,
    origin,
    lines,
    waitForLine,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
