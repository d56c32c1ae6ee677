/**
 * `releaseRequestAfterResponse` empties each request's Koa context and `ctx.oidc` once the response has closed (so
 * that node-oidc-provider's per-request accessor cannot keep the request alive until a major GC), and never while
 * the provider may still read them: not before the middleware chain has finished, even when the client has gone.
 */
import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { basicAuth } from '@idp/testing';
import { releaseRequestAfterResponse } from '../src/provider/internals';

let server: Server;
let base: string;
const seen: Array<Record<string, unknown>> = [];
const requests = new WeakMap<object, unknown>();
let hold: Promise<void> | undefined;
let reached: (() => void) | undefined;
let heldState: { req: unknown; request: unknown } | undefined;

beforeAll(async () => {
  const provider = new Provider('http://127.0.0.1/release', {
    clients: [
      {
        client_id: 'c',
        client_secret: 'secret-secret-secret',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    features: { devInteractions: { enabled: false }, clientCredentials: { enabled: true } },
  });
  releaseRequestAfterResponse(provider);
  // Inside oidc-core's middleware, as every other provider.use middleware of ours is.
  provider.use(async (ctx, next) => {
    seen.push(ctx as unknown as Record<string, unknown>);
    requests.set(ctx as unknown as object, ctx.req);
    // Koa keeps its Cookies (which hold the request and response) under a symbol: make sure it exists.
    void ctx.cookies;
    if (ctx.path === '/streamed') {
      ctx.body = Readable.from(
        (async function* chunks() {
          for (let i = 0; i < 50; i++) {
            yield 'x'.repeat(1024);
            await new Promise((r) => setTimeout(r, 10));
          }
        })(),
      );
      return;
    }
    if (ctx.get('x-hold') === '1' && hold) {
      reached?.();
      await hold;
      // The client is gone but the chain is not: what the provider reads next must still be there.
      heldState = { req: ctx.req, request: ctx.request };
    }
    await next();
  });
  server = createServer(provider.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const settle = () => new Promise((r) => setTimeout(r, 50));
const tokenRequest = () =>
  fetch(`${base}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('c', 'secret-secret-secret'),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
  });
const oidcOf = (ctx: Record<string, unknown>) =>
  Object.getOwnPropertyDescriptor(ctx, 'oidc')!.get!.call(ctx) as Record<string, unknown>;

it('empties the context and ctx.oidc after the response, and the next request is served as usual', async () => {
  seen.length = 0;
  const res = await tokenRequest();
  expect(res.status).toBe(200);
  expect(((await res.json()) as { access_token?: string }).access_token).toBeTruthy();
  await settle();
  expect(seen).toHaveLength(1);
  const ctx = seen[0]!;
  expect([ctx.req, ctx.res, ctx.request, ctx.response]).toEqual([undefined, undefined, undefined, undefined]);
  // Symbol-keyed values (Koa's Cookies, which holds the request) are emptied too.
  const symbols = Reflect.ownKeys(ctx).filter((k) => typeof k === 'symbol');
  expect(symbols.length).toBeGreaterThan(0);
  for (const k of symbols) expect(Object.getOwnPropertyDescriptor(ctx, k)!.value).toBeUndefined();
  expect(requests.get(ctx)).toBeDefined();
  expect(oidcOf(ctx).params).toBeUndefined();
  expect(oidcOf(ctx).entities).toBeUndefined();
  const again = await tokenRequest();
  expect(again.status).toBe(200);
  const error = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  expect(error.status).toBe(400);
  expect(((await error.json()) as { error: string }).error).toBe('invalid_request');
});

it('keeps the context of a request whose client went away until the provider has finished with it', async () => {
  seen.length = 0;
  let release!: () => void;
  hold = new Promise<void>((r) => (release = r));
  const inHandler = new Promise<void>((r) => (reached = r));
  const aborter = new AbortController();
  // A GET (discovery), so that no body is left unread when the client goes away.
  const pending = fetch(`${base}/.well-known/openid-configuration`, {
    headers: { 'x-hold': '1' },
    signal: aborter.signal,
  }).catch(() => 'aborted');
  await inHandler;
  aborter.abort();
  expect(await pending).toBe('aborted');
  await settle();
  const ctx = seen[0]!;
  // The response has closed; the chain is still waiting.
  expect(ctx.req).toBeDefined();
  release();
  await settle();
  expect(heldState?.req).toBeDefined();
  expect(heldState?.request).toBeDefined();
  // Released once the chain (and Koa's answer to a closed response) is done.
  expect(ctx.req).toBeUndefined();
  hold = undefined;
  expect((await tokenRequest()).status).toBe(200);
});

it('leaves a streamed response alone, even when its client goes away mid-stream', async () => {
  seen.length = 0;
  const errors: unknown[] = [];
  const onUncaught = (err: unknown) => errors.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const aborter = new AbortController();
    const res = await fetch(`${base}/streamed`, { signal: aborter.signal });
    const reader = res.body!.getReader();
    await reader.read();
    aborter.abort();
    await new Promise((r) => setTimeout(r, 700));
    expect(errors).toEqual([]);
    // Koa's pipeline callback may still need the context after 'close': it is not emptied.
    expect(seen[0]!.app).toBeDefined();
    expect((await tokenRequest()).status).toBe(200);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});
