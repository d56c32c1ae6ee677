/**
 * One tenant's flood must not starve another, the HTTP side: tenant A sends 64 UserInfo calls at once while tenant B's
 * users call UserInfo. Before per-tenant admission every one of A's calls was handled at once, sharing the one event
 * loop, the database connections and the sandbox with B's (B's p99 went to 12x its p99 alone in
 * bench/custom-claims-fairness). Now A holds at most TENANT_MAX_IN_FLIGHT handled calls, the rest wait in A's own queue
 * or are refused with 503 temporarily_unavailable, and B's calls are admitted at once.
 *
 * No timings: A's handled calls are held at a gate in front of A's provider (the app resolves tenants through a
 * wrapper of the real pool), so "B is served while A's backlog waits" is a fact the test sees, not a latency. B
 * never waits in a queue (the queue metric stays 0 for B), and B's calls complete while the gate is still shut,
 * which they could not do if they were queued behind A's calls.
 */
import { randomInt } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { createClient, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import type { TenantResolver } from '../src/app';
import type { TenantContext, TenantPool } from '../src/tenants/tenant-pool';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, userinfo } from './scopes-harness';

const REDIRECT = 'http://127.0.0.1:8406/callback';
const CAP = 4;
const QUEUE = 32;

/** Holds the calls of one tenant in front of its provider until `open()`. */
class Gate {
  /** Calls that reached the tenant's provider (admitted) and have not yet gone past the gate. */
  waiting = 0;
  maxWaiting = 0;
  /** The responses of the calls that reached the gate, in order. */
  readonly responses: ServerResponse[] = [];
  private opened!: () => void;
  private readonly shut = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(private readonly tenantId: () => number) {}

  /** Times the app resolved the gated tenant (once per request under its mount). */
  resolved = 0;

  resolver(pool: TenantPool): TenantResolver {
    return {
      get: async (id) => {
        const ctx = await pool.get(id);
        if (ctx.tenantId === this.tenantId()) this.resolved++;
        if (ctx.tenantId !== this.tenantId()) return ctx;
        const callback = (async (req, res) => {
          this.waiting++;
          this.responses.push(res as ServerResponse);
          this.maxWaiting = Math.max(this.maxWaiting, this.waiting);
          await this.shut;
          this.waiting--;
          return ctx.callback(req, res);
        }) as TenantContext['callback'];
        return { ...ctx, callback };
      },
    };
  }

  open(): void {
    this.opened();
  }
}

/** Waits (polling) until `cond` holds; the bound only stops a broken run, nothing is timed. */
async function until(what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

async function metric(app: PagesApp, name: string, tenantId: number): Promise<number> {
  const text = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`tenant="${tenantId}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

interface Scenario {
  app: PagesApp;
  gate: Gate;
  a: PagesApp;
  b: PagesApp;
  tokenA: string;
  tokenB: string;
}

async function scenario(label: string): Promise<Scenario> {
  let aId = 0;
  const gate = new Gate(() => aId);
  // The active window is long so that B's one call makes the two tenants contend for the whole test.
  const app = await startPagesApp(label, {
    admission: { maxInFlight: CAP, maxQueued: QUEUE, activeWindowMs: 600_000 },
    tenants: (pool) => gate.resolver(pool),
  });
  const { models } = app.db;
  const other: SeededTenant = await seedDelegationTenant(models, app.keyStore, {
    tenantId: randomInt(1_000_000, 2_000_000),
    tenantName: `Other ${label}`,
    clientSecretPepper: PEPPER,
  });
  const a: PagesApp = { ...app, tenant: app.tenant };
  const b: PagesApp = { ...app, tenant: other };
  const token = async (v: PagesApp) => {
    const c = await createClient(models, PEPPER, {
      tenantId: v.tenant.tenantId,
      clientId: 'reader',
      name: 'reader',
      grantTypes: ['authorization_code'],
      redirectUris: [REDIRECT],
      firstParty: true,
    });
    const res = await authCodeFlow(v, { ...c, redirectUri: REDIRECT }, { scope: 'openid email' });
    expect(res.status).toBe(200);
    return res.body.access_token!;
  };
  // Tokens first (the gate is not yet on A), then the gate closes on A's provider.
  const tokenA = await token(a);
  const tokenB = await token(b);
  aId = a.tenant.tenantId;
  return { app, gate, a, b, tokenA, tokenB };
}

describe('per-tenant admission: one tenant flooding UserInfo vs another tenant', () => {
  let s: Scenario;
  beforeAll(async () => {
    s = await scenario('tenant-admission');
  }, 60_000);
  afterAll(async () => {
    // Unset when beforeAll failed before assigning it.
    (s as Scenario | undefined)?.gate.open();
    await (s as Scenario | undefined)?.app.stop();
  });

  it("A's 64 concurrent UserInfo calls: 4 handled, 32 queued, 28 refused with 503; B's calls are admitted at once", async () => {
    const A = s.a.tenant.tenantId;
    const B = s.b.tenant.tenantId;
    // B is active.
    const first = await userinfo(s.b, s.tokenB);
    expect(first.status).toBe(200);

    // The flood: 64 UserInfo calls of A at once.
    const refused: Array<{ status: number; body: Record<string, unknown>; headers: Headers }> = [];
    const flood = Array.from({ length: 64 }, async () => {
      const res = await userinfo(s.a, s.tokenA);
      if (res.status === 503) refused.push(res);
      return res;
    });
    await until(
      "A's flood is admitted, queued and refused",
      () =>
        s.gate.waiting === CAP && s.app.admission.queued(String(A)) === QUEUE && refused.length === 64 - CAP - QUEUE,
    );
    expect(s.app.admission.inFlight(String(A))).toBe(CAP);

    // B's users, while A's calls are held at the gate and A's queue is full: each is admitted and answered.
    for (let i = 0; i < 10; i++) {
      const res = await userinfo(s.b, s.tokenB);
      expect(res.status).toBe(200);
      expect(res.body.sub).toBe(s.b.tenant.user.id);
    }
    expect(await metric(s.app, 'idp_tenant_requests_queued_total', B)).toBe(0);
    expect(await metric(s.app, 'idp_tenant_requests_rejected_total', B)).toBe(0);
    expect(s.app.admission.queued(String(A))).toBe(QUEUE);
    expect(await metric(s.app, 'idp_tenant_requests_queued_total', A)).toBe(QUEUE);
    expect(await metric(s.app, 'idp_tenant_requests_rejected_total', A)).toBe(64 - CAP - QUEUE);

    // A's overflow: an OAuth JSON 503 that says when to retry, never a 500.
    for (const res of refused) {
      expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }

    // The gate opens: A's queued calls are served in turn, never more than CAP at once.
    s.gate.open();
    const results = await Promise.all(flood);
    expect(results.filter((r) => r.status === 200)).toHaveLength(CAP + QUEUE);
    expect(results.filter((r) => r.status === 503)).toHaveLength(64 - CAP - QUEUE);
    for (const r of results.filter((x) => x.status === 200)) expect(r.body.sub).toBe(s.a.tenant.user.id);
    expect(s.gate.maxWaiting).toBe(CAP);
    await until(
      "A's slots are all released",
      () => s.app.admission.inFlight(String(A)) === 0 && s.app.admission.queued(String(A)) === 0,
    );
    expect(await metric(s.app, 'idp_tenant_request_queue_wait_seconds_total', A)).toBeGreaterThan(0);
    expect(await metric(s.app, 'idp_tenant_request_queue_wait_seconds_total', B)).toBe(0);
  }, 120_000);
});

describe('per-tenant admission covers the endpoints served without express, and aborted requests release their slots', () => {
  let s: Scenario;
  beforeAll(async () => {
    s = await scenario('tenant-admission-hot');
  }, 60_000);
  afterAll(async () => {
    // Unset when beforeAll failed before assigning it.
    (s as Scenario | undefined)?.gate.open();
    await (s as Scenario | undefined)?.app.stop();
  });

  it("A's token-endpoint calls hold A's slots; an aborted call gives its slot back once its handling is done, a queued one at once", async () => {
    const A = String(s.a.tenant.tenantId);
    expect((await userinfo(s.b, s.tokenB)).status).toBe(200);
    // A's CAP slots taken by introspection calls (a hot path, served without express), each abortable.
    const introspect = (signal: AbortSignal) =>
      fetch(`${s.app.baseUrl}/auth/${A}/token/introspection`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=x',
        signal,
      }).catch((err: unknown) => err);
    const handled = Array.from({ length: CAP }, () => new AbortController());
    const handledCalls = handled.map((c) => introspect(c.signal));
    await until("A's slots are held by introspection calls", () => s.gate.waiting === CAP);

    // So A's UserInfo call (express) waits in A's queue, as does one more under the /_api alias.
    const queued = new AbortController();
    const queuedCall = fetch(`${s.app.baseUrl}/auth/${A}/me`, {
      headers: { authorization: `Bearer ${s.tokenA}` },
      signal: queued.signal,
    }).catch((err: unknown) => err);
    const aliasCall = fetch(`${s.app.baseUrl}/_api/auth/${A}/me`, { headers: { authorization: `Bearer ${s.tokenA}` } });
    await until('two calls of A are queued', () => s.app.admission.queued(A) === 2);
    // B meanwhile: admitted at once.
    expect((await userinfo(s.b, s.tokenB)).status).toBe(200);

    // A queued call whose client goes away leaves the queue.
    queued.abort();
    await until('the aborted call left the queue', () => s.app.admission.queued(A) === 1);
    // Two handled calls aborted: their handling goes on (held at the gate), so they keep their slots; otherwise a
    // client aborting every call once admitted would run any number of them at once.
    handled[0]!.abort();
    handled[1]!.abort();
    await Promise.all([handledCalls[0], handledCalls[1], queuedCall]);
    await until('the server saw both aborts', () => s.gate.responses[0]!.destroyed && s.gate.responses[1]!.destroyed);
    await new Promise((r) => setImmediate(r));
    expect((await userinfo(s.b, s.tokenB)).status).toBe(200);
    expect(s.app.admission.inFlight(A)).toBe(CAP);
    expect(s.app.admission.queued(A)).toBe(1);

    // The handling ends: the slots pass on, the alias call is served.
    s.gate.open();
    expect((await aliasCall).status).toBe(200);
    await Promise.all(handledCalls);
    await until(
      "A's slots are all released",
      () => s.app.admission.inFlight(A) === 0 && s.app.admission.queued(A) === 0,
    );
    // Nothing leaked: A gets its CAP slots again without waiting.
    const queuedBefore = await metric(s.app, 'idp_tenant_requests_queued_total', s.a.tenant.tenantId);
    const again = await Promise.all(Array.from({ length: CAP }, () => userinfo(s.a, s.tokenA)));
    for (const r of again) expect(r.status).toBe(200);
    expect(await metric(s.app, 'idp_tenant_requests_queued_total', s.a.tenant.tenantId)).toBe(queuedBefore);
    expect(await metric(s.app, 'idp_tenant_requests_queued_total', s.b.tenant.tenantId)).toBe(0);
  }, 120_000);
});

describe('per-tenant admission: a request takes a slot only once its body has arrived', () => {
  let s: Scenario;
  beforeAll(async () => {
    s = await scenario('tenant-admission-body');
    s.gate.open();
  }, 60_000);
  afterAll(async () => {
    // Unset when beforeAll failed before assigning it.
    await (s as Scenario | undefined)?.app.stop();
  });

  it("clients that send their bodies slowly (or never) hold none of A's slots; A's other requests are served", async () => {
    const A = String(s.a.tenant.tenantId);
    expect((await userinfo(s.b, s.tokenB)).status).toBe(200);
    const body = `grant_type=client_credentials&client_id=${s.a.tenant.client.clientId}&client_secret=wrong`;
    const { port } = new URL(s.app.baseUrl);
    const slow: Array<{ socket: Socket; answer: Promise<string> }> = [];
    for (let i = 0; i < CAP + 2; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      const answer = new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', () => resolve(text));
      });
      socket.write(
        `POST /auth/${A}/oidc/token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      slow.push({ socket, answer });
    }
    // Every slow request has reached the app (its tenant resolved): none holds a slot or waits in A's queue.
    const before = s.gate.resolved;
    await until('the slow requests reached the app', () => s.gate.resolved - before === CAP + 2);
    await new Promise((r) => setImmediate(r));
    expect(s.app.admission.inFlight(A)).toBe(0);
    expect(s.app.admission.queued(A)).toBe(0);
    // A's other calls go on: the slots are free.
    const calls = await Promise.all(Array.from({ length: CAP }, () => userinfo(s.a, s.tokenA)));
    for (const r of calls) expect(r.status).toBe(200);

    // The bodies arrive: each request is admitted and answered (a wrong secret: 401 invalid_client, never a 5xx).
    for (const { socket } of slow) socket.write(body.slice(10));
    const answers = await Promise.all(slow.map((x) => x.answer));
    for (const a of answers) {
      expect(a).toMatch(/^HTTP\/1\.1 401 /);
      expect(a).toContain('invalid_client');
    }
    await until("A's slots are all released", () => s.app.admission.inFlight(A) === 0);
  }, 60_000);
});
