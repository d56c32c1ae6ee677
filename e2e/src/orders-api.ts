/**
 * Runs the sample Orders API (e2e/orders-api: built only on @idp/resource-server and express) as its own process,
 * the way a customer runs their API outside the cluster: its dist/main.js with its environment. Its stdout is JSON
 * lines; the audit lines the API logs are collected for the tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@idp/testing';
import { watchJsonLines, type JsonLineProcess } from './json-line-process';

export interface OrdersApiProcess extends JsonLineProcess {
  /** The API's origin (its resource identifier). */
  url: string;
}

export interface OrdersApiOptions {
  port: number;
  issuer: string;
  /** Default `http://127.0.0.1:{port}`. */
  resource?: string;
  ssf?: { clientId: string; clientSecret: string; intervalMs?: number; longPoll?: boolean };
}

export async function startOrdersApi(o: OrdersApiOptions): Promise<OrdersApiProcess> {
  const url = `http://127.0.0.1:${o.port}`;
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot(), 'e2e', 'orders-api', 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      ORDERS_ISSUER: o.issuer,
      ORDERS_RESOURCE: o.resource ?? url,
      PORT: String(o.port),
      HOST: '127.0.0.1',
      ...(o.ssf
        ? {
            SSF_CLIENT_ID: o.ssf.clientId,
            SSF_CLIENT_SECRET: o.ssf.clientSecret,
            SSF_POLL_INTERVAL_MS: String(o.ssf.intervalMs ?? 1000),
            SSF_LONG_POLL: String(o.ssf.longPoll ?? false),
          }
        : {}),
    },
    stdio: ['ignore', 'pipe', process.env.E2E_LOGS ? 'inherit' : 'ignore'],
  });
  return { url, ...(await watchJsonLines(child, 'orders-api')) };
}
