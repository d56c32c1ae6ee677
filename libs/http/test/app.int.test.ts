import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import helmet from 'helmet';
import request from 'supertest';
import { createLogger, type Logger } from '@idp/logger';
import { createHttpApp } from '../src/app';
import { oauthErrorHandler, problemErrorHandler } from '../src/error-handlers';
import { completionLevel } from '../src/request-log';

type Line = Record<string, unknown> & { level: string; msg: string };

function capture(level = 'debug'): { logger: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const logger = createLogger({
    service: 'test',
    level,
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Line) },
  });
  return { logger, lines };
}

/** An app with an express route, a route that uses req.log, a route that fails, and a prelude (express-free) path. */
function testApp(logger: Logger, skip?: (req: IncomingMessage) => boolean) {
  const http = createHttpApp({ service: 'test', logger, skipRequestLog: skip });
  http.app.get('/ok', (_req, res) => void res.json({ ok: true }));
  http.app.get('/logs', (req, res) => {
    req.log?.warn({ note: 'from the handler' }, 'handler line');
    res.status(404).json({ error: 'not_found' });
  });
  http.app.get('/boom', (_req, res) => void res.status(500).json({ error: 'server_error' }));
  http.app.get('/busy', (_req, res) => void res.status(503).json({ error: 'temporarily_unavailable' }));
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/raw')) {
      http.prelude(req, res, '/raw', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
      return;
    }
    http.app(req, res);
  };
  return { ...http, listener };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('request log', () => {
  it('logs each finished request once, at the level its status calls for, without the query string', async () => {
    const { logger, lines } = capture();
    const { listener } = testApp(logger);
    await request(listener).get('/ok?code=secret-code').set('authorization', 'Bearer secret-token').expect(200);
    await request(listener).get('/boom').expect(500);
    await request(listener).get('/busy').expect(503);
    await request(listener).get('/raw?token=abc').expect(200);
    await settle();
    const done = lines.filter((l) => l.req !== undefined && l.res !== undefined);
    expect(
      done.map((l) => [(l.req as { url: string }).url, (l.res as { statusCode: number }).statusCode, l.level, l.msg]),
    ).toEqual([
      ['/ok?[redacted]', 200, 'debug', 'request completed'],
      ['/boom', 500, 'error', 'request errored'],
      ['/busy', 503, 'info', 'request errored'],
      ['/raw?[redacted]', 200, 'debug', 'request completed'],
    ]);
    for (const l of done) {
      expect(typeof l.responseTime).toBe('number');
      expect((l.req as { id: string }).id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(JSON.stringify(lines)).not.toMatch(/secret-code|secret-token|abc/);
  });

  it('keeps the id the caller sent, and binds it to the logger a handler asks for', async () => {
    const { logger, lines } = capture('info');
    const { listener } = testApp(logger);
    const res = await request(listener).get('/logs').set('x-request-id', 'req-42').expect(404);
    expect(res.headers['x-request-id']).toBe('req-42');
    await settle();
    const handler = lines.find((l) => l.msg === 'handler line');
    expect(handler).toMatchObject({
      level: 'warn',
      note: 'from the handler',
      req: { id: 'req-42', method: 'GET', url: '/logs' },
    });
    expect(lines.find((l) => l.msg === 'request completed')).toMatchObject({
      level: 'info',
      req: { id: 'req-42' },
      res: { statusCode: 404 },
    });
  });

  it('builds no per-request logger unless a handler uses it, and skips lines below the level', async () => {
    const { logger, lines } = capture('info');
    const child = jest.spyOn(logger, 'child');
    const { listener } = testApp(logger);
    await request(listener).get('/ok').expect(200);
    await request(listener).get('/raw').expect(200);
    expect(child).not.toHaveBeenCalled();
    await request(listener).get('/logs').expect(404);
    expect(child).toHaveBeenCalledTimes(1);
    await settle();
    expect(lines.filter((l) => l.msg === 'request completed').map((l) => (l.req as { url: string }).url)).toEqual([
      '/logs',
    ]);
  });

  it('logs a request the client abandoned as aborted', async () => {
    const { logger, lines } = capture('info');
    const http = createHttpApp({ service: 'test', logger });
    let arrived!: () => void;
    const inHandler = new Promise<void>((r) => (arrived = r));
    http.app.get('/slow', () => arrived());
    const server = createServer(http.app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.write('GET /slow HTTP/1.1\r\nhost: x\r\n\r\n');
    await inHandler;
    socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    server.close();
    expect(lines.find((l) => l.msg === 'request aborted')).toMatchObject({ level: 'info', req: { url: '/slow' } });
  });

  it('gives no line and no logger to probes and to requests the app skips', async () => {
    const { logger, lines } = capture();
    const { listener } = testApp(logger, (req) => req.url === '/raw');
    await request(listener).get('/healthz').expect(200);
    await request(listener).get('/metrics').expect(200);
    await request(listener).get('/raw').expect(200);
    await settle();
    expect(lines.filter((l) => l.req !== undefined)).toEqual([]);
  });

  it('logs an unexpected error with its type, message and stack only, never the request data a driver error carries', async () => {
    const { logger, lines } = capture('info');
    for (const handler of [oauthErrorHandler(logger), problemErrorHandler(logger)]) {
      const http = createHttpApp({ service: 'test', logger });
      http.app.get('/fail', () => {
        throw Object.assign(new Error('driver failed'), {
          code: 'E_DRIVER',
          keyValue: { secretDigest: 'digest-value' },
          errorResponse: { password: 'pw-value' },
        });
      });
      http.app.use(handler);
      await request(http.app).get('/fail').expect(500);
    }
    const errors = lines.filter((l) => l.msg === 'unhandled error');
    expect(errors).toHaveLength(2);
    for (const line of errors) {
      expect(Object.keys(line.err as object).sort()).toEqual(['message', 'stack', 'type']);
      expect(line.err).toMatchObject({ type: 'Error', message: 'driver failed' });
      expect(line.req).toMatchObject({ url: '/fail' });
    }
    expect(JSON.stringify(lines)).not.toMatch(/digest-value|pw-value/);
  });

  it('maps statuses to levels', () => {
    expect([200, 302, 400, 404, 500, 502, 503].map((s) => completionLevel(s))).toEqual([
      'debug',
      'debug',
      'info',
      'info',
      'error',
      'error',
      'info',
    ]);
    expect(completionLevel(200, true)).toBe('info');
  });
});

describe('security headers', () => {
  /** What helmet itself sets with the options createHttpApp uses. */
  async function helmetHeaders(options: Parameters<typeof helmet>[0]): Promise<Record<string, string>> {
    const mw = helmet(options);
    const res = await request((req: IncomingMessage, res: ServerResponse) => mw(req, res, () => res.end())).get('/');
    return res.headers as Record<string, string>;
  }
  const SECURITY = [
    'content-security-policy',
    'cross-origin-opener-policy',
    'cross-origin-resource-policy',
    'origin-agent-cluster',
    'referrer-policy',
    'strict-transport-security',
    'x-content-type-options',
    'x-dns-prefetch-control',
    'x-download-options',
    'x-frame-options',
    'x-permitted-cross-domain-policies',
    'x-xss-protection',
  ];
  const pick = (h: Record<string, string>) => Object.fromEntries(SECURITY.map((k) => [k, h[k]]));

  it("sets helmet's headers on express routes and on the express-free path alike", async () => {
    const expected = pick(
      await helmetHeaders({
        contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
        crossOriginResourcePolicy: { policy: 'same-site' },
        xFrameOptions: { action: 'deny' },
      }),
    );
    expect(expected['content-security-policy']).toMatch(/^default-src 'none';.*frame-ancestors 'none'/);
    const { listener } = testApp(capture().logger);
    const viaExpress = await request(listener).get('/ok');
    const viaPrelude = await request(listener).get('/raw');
    expect(pick(viaExpress.headers as Record<string, string>)).toEqual(expected);
    expect(pick(viaPrelude.headers as Record<string, string>)).toEqual(expected);
    expect(viaExpress.headers['x-powered-by']).toBeUndefined();
  });

  it('runs helmet per request when a policy directive is computed per request', async () => {
    let n = 0;
    const http = createHttpApp({
      service: 'test',
      logger: capture().logger,
      contentSecurityPolicy: { directives: { defaultSrc: ["'none'"], scriptSrc: [() => `'nonce-n${++n}'`] } },
    });
    http.app.get('/page', (_req, res) => void res.end('x'));
    const first = await request(http.app).get('/page');
    const second = await request(http.app).get('/page');
    expect(first.headers['content-security-policy']).toContain("'nonce-n1'");
    expect(second.headers['content-security-policy']).toContain("'nonce-n2'");
  });

  it('leaves the policy out when the app turns it off', async () => {
    const http = createHttpApp({ service: 'test', logger: capture().logger, contentSecurityPolicy: false });
    http.app.get('/x', (_req, res) => void res.end('x'));
    const res = await request(http.app).get('/x');
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
