/**
 * Revocation across organisations, with real servers: tenant A's transmitter (this service, started as main.ts
 * starts it, on FerretDB and nats-server) and tenant B's receiver of A's Shared Signals (the same process: B trusts
 * A's issuer with `signals` enabled) talk over HTTP through the SSRF-safe outbound client (loopback allowed by the
 * operator's UPSTREAM_ALLOW_LOOPBACK, as in development). Kill-switch entries published at A as the management API
 * publishes them become B's own entries (reason issuer.revoked) for exactly the live B tokens minted from A's
 * assertions that match (token-audit rows with crossDomain redeemed from A): not another issuer's, not another
 * tenant's, not expired ones; within the poll bound. A SET with a bad signature changes nothing; a restart delivers
 * everything again and writes nothing twice; B's own transmitter tells B's receivers.
 *
 * The issuer's base URL is a local router: SSF paths go to the transmitter; the OpenID metadata, the JWKS (A's keys
 * from the key store) and the client-credentials token endpoint (a token for urn:idp:ssf signed with A's key, for the
 * client B holds at A) stand in for oidc-core, which is not part of this process set.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { trustedIssuerSecretAad, type CrossDomainAudit } from '@idp/db';
import { publishInvalidation, type RevocationEntry } from '@idp/events';
import { basicAuth, freePort } from '@idp/testing';
import { SSF_AUDIENCE } from '@idp/tokens';
import { DELIVERY_POLL, NHE_REVOCATION_EVENT } from '../src/domain/event-types';
import { outboundSsfFetch } from '../src/outbound-fetch';
import { eventually, startHarness, type Harness } from './harness';

const A = 9701; // the enterprise IdP
const B = 9702; // the API's authorization server, trusts A
const C = 9703; // another tenant that trusts A too, without a subscription
const OTHER_PEER = 'https://other-idp.example/auth/5';
const BRIDGE_CLIENT = 'b-at-a-signals';
const BRIDGE_SECRET = 'bridge-secret-at-a';

let h: Harness;
let router: Server;
let base: string;
const issuerOf = (t: number) => `${base}/auth/${t}`;

/** The local router at the public base URL: oidc-core's part for A stood in, the rest to the transmitter. */
async function startRouter(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        const path = req.url ?? '/';
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (path === `/auth/${A}/.well-known/openid-configuration`)
          return json(200, {
            issuer: issuerOf(A),
            jwks_uri: `${issuerOf(A)}/jwks`,
            token_endpoint: `${issuerOf(A)}/oidc/token`,
          });
        if (path === `/auth/${A}/jwks`) return json(200, await h.jwks(A));
        if (path === `/auth/${A}/oidc/token`) {
          const form = new URLSearchParams(body);
          if (req.headers.authorization !== basicAuth(BRIDGE_CLIENT, BRIDGE_SECRET))
            return json(401, { error: 'invalid_client' });
          if (
            form.get('grant_type') !== 'client_credentials' ||
            form.get('resource') !== SSF_AUDIENCE ||
            form.get('scope') !== 'ssf.manage'
          )
            return json(400, { error: 'invalid_request' });
          tokensIssued++;
          const token = await h.token(A, BRIDGE_CLIENT, { iss: issuerOf(A) });
          return json(200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
        }
        const headers: Record<string, string> = {};
        for (const name of ['authorization', 'content-type', 'accept'])
          if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
        const answer = await fetch(`${h.base()}${path}`, {
          method: req.method ?? 'GET',
          headers,
          ...(body ? { body } : {}),
          redirect: 'manual',
        });
        const text = await answer.text();
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(text);
      })().catch((err: unknown) => res.writeHead(502).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
let tokensIssued = 0;

interface Row {
  tenantId: number;
  jti: string;
  crossDomain?: CrossDomainAudit;
  /** Seconds ago. */
  age?: number;
  ttl?: number;
}
async function audit(rows: Row[]): Promise<void> {
  await h.db.models.TokenAudit.insertMany(
    rows.map((r) => ({
      tenantId: r.tenantId,
      jti: r.jti,
      userId: 'local-user',
      nheId: 'nhe-id',
      nheIdentifier: 'b-orders-agent',
      clientId: 'b-client',
      clientNumericId: 4,
      resourceServer: 'https://mcp.b.example',
      scopes: ['orders:read'],
      ttl: r.ttl ?? 600,
      sourceIp: '127.0.0.1',
      issuedAt: new Date(Date.now() - (r.age ?? 5) * 1000),
      ...(r.crossDomain ? { crossDomain: r.crossDomain } : {}),
    })),
  );
}
const fromA = (actor: string, subject: string, assertionJti: string): CrossDomainAudit => ({
  direction: 'redeemed',
  peer: issuerOf(A),
  actor,
  subject,
  assertionJti,
});

/** B's entries made from A's events, by the token jti they name. */
const bridged = async (tenantId = B) =>
  (await h.store.active(new Date(), tenantId)).filter((e) => e.reason === 'issuer.revoked');
const bridgedJtis = async (tenantId = B) => (await bridged(tenantId)).map((e) => e.jti).sort();

/** Milliseconds from the publication of A's entry until B holds entries for every jti expected. */
async function timeUntilBridged(publish: () => Promise<RevocationEntry>, expected: string[]): Promise<number> {
  const t0 = Date.now();
  await publish();
  await eventually(async () => {
    const have = new Set(await bridgedJtis());
    return expected.every((j) => have.has(j));
  }, 15_000);
  return Date.now() - t0;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  h = await startHarness({
    PUBLIC_BASE_URL: base,
    UPSTREAM_ALLOW_LOOPBACK: 'true',
    // The record change reaches the service through the invalidation event, not this timer.
    SSF_ISSUER_RELOAD_SECONDS: '3600',
  });
  router = await startRouter(port);
  await h.seedTenant(A);
  await h.seedTenant(B);
  await h.seedTenant(C);
  for (const t of [B, C])
    await h.db.models.TrustedIssuer.create({
      tenantId: t,
      issuer: issuerOf(A),
      jwksUri: `${issuerOf(A)}/jwks`,
      subjectMapping: 'user_id',
      allowAct: true,
      maxLifetimeSeconds: 300,
      ...(t === B
        ? {
            signals: {
              enabled: true,
              clientId: BRIDGE_CLIENT,
              clientSecretSealed: h.keyStore.kek.encrypt(BRIDGE_SECRET, trustedIssuerSecretAad(B, issuerOf(A))),
              pollIntervalSeconds: 1,
            },
          }
        : {}),
    });
  // What the management API publishes after a trusted-issuer change.
  await publishInvalidation(h.publisher.nc, { tenantId: B, kind: 'tenant', id: String(B) });
  await eventually(() => h.transmitter.issuers.status().find((s) => s.lastSuccessAt !== undefined), 15_000);
}, 90_000);

afterAll(async () => {
  await (h as Harness | undefined)?.close(); // unset when beforeAll failed
  await new Promise((resolve) => (router as Server | undefined)?.close(resolve) ?? resolve(undefined));
});

it("subscribes B to A's transmitter with B's client at A (client credentials) and a poll stream of its own", async () => {
  const [status] = h.transmitter.issuers.status();
  expect(status).toMatchObject({ tenantId: B, issuer: issuerOf(A), lastError: undefined });
  expect(tokensIssued).toBeGreaterThanOrEqual(1);
  const stream = await h.db.connection.collection('ssf_streams').findOne({ _id: status!.streamId as never });
  expect(stream).toMatchObject({ tenantId: A, clientId: BRIDGE_CLIENT });
  expect((stream?.delivery as { method?: string } | undefined)?.method).toBe(DELIVERY_POLL);
  // C trusts A without a subscription: no receiver.
  expect(h.transmitter.issuers.status()).toHaveLength(1);
});

it("the receivers' requests go through the SSRF-safe client: without the operator's loopback allowance, none reaches A", async () => {
  const init = () => ({
    method: 'GET',
    headers: new Headers(),
    redirect: 'manual' as const,
    signal: new AbortController().signal,
  });
  const url = `${base}/.well-known/ssf-configuration/auth/${A}`;
  await expect(outboundSsfFetch({ policy: {} })(url, init())).rejects.toThrow(/https|loopback/);
  await expect(
    outboundSsfFetch({ policy: {} })(url.replace('http://127.0.0.1', 'https://localhost'), init()),
  ).rejects.toThrow(/loopback/);
  const allowed = await outboundSsfFetch({ policy: { allowLoopback: true } })(url, init());
  expect(allowed.status).toBe(200);
  expect(((await allowed.json()) as { issuer?: string }).issuer).toBe(issuerOf(A));
});

it('a SET that fails verification (signed with another key under A’s kid) is reported and revokes nothing', async () => {
  await audit([{ tenantId: B, jti: 'b-any', crossDomain: fromA('nhe:any-agent', 'zoe', 'idjag-any') }]);
  const streamId = h.transmitter.issuers.status()[0]!.streamId!;
  const { privateKey } = await generateKeyPair('ES256');
  const kid = (await h.jwks(A)).keys.find((k) => k.alg === 'ES256')!.kid!;
  const jti = randomUUID();
  const now = Math.floor(Date.now() / 1000);
  // A tenant-wide entry: were it applied, every token from A would be revoked.
  const set = await new SignJWT({
    txn: 'forged',
    sub_id: { format: 'complex', tenant: { format: 'opaque', id: String(A) } },
    events: {
      [NHE_REVOCATION_EVENT]: { id: 'forged', reason: 'tenant.nhe.disabled', issuedBefore: now, until: now + 960 },
    },
  })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'secevent+jwt' })
    .setIssuer(issuerOf(A))
    .setAudience(BRIDGE_CLIENT)
    .setJti(jti)
    .setIssuedAt()
    .sign(privateKey);
  await h.db.connection.collection('ssf_events').insertOne({
    _id: `${streamId}:forged:vendor` as never,
    tenantId: A,
    streamId,
    txn: 'forged',
    jti,
    set,
    state: 'pending',
    createdAt: new Date(),
    expiresAt: new Date(Date.now() + 600_000),
  });
  const row = await eventually(async () => {
    const r = await h.db.connection.collection('ssf_events').findOne({ jti });
    return r?.state === 'rejected' ? r : undefined;
  });
  expect(String(row.error)).toContain('invalid_key');
  expect(await bridged()).toEqual([]);
});

describe("A's revocations become B's kill-switch entries for the matching tokens only", () => {
  beforeAll(async () => {
    await audit([
      // B tokens minted from A's assertions for A's orders-agent.
      { tenantId: B, jti: 'b-alice-orders', crossDomain: fromA('nhe:orders-agent', 'alice', 'idjag-1') },
      { tenantId: B, jti: 'b-bob-orders', crossDomain: fromA('nhe:orders-agent', 'bob', 'idjag-2') },
      // Expired already: nothing to revoke.
      {
        tenantId: B,
        jti: 'b-expired-orders',
        age: 700,
        ttl: 600,
        crossDomain: fromA('nhe:orders-agent', 'bob', 'idjag-0'),
      },
      // Another agent at A.
      { tenantId: B, jti: 'b-alice-report', crossDomain: fromA('nhe:report-bot', 'alice', 'idjag-3') },
      { tenantId: B, jti: 'b-bob-report', crossDomain: fromA('nhe:report-bot', 'bob', 'idjag-4') },
      { tenantId: B, jti: 'b-carol-helper', crossDomain: fromA('nhe:helper', 'carol', 'idjag-5') },
      // A nested chain at A: its ID-JAG's act is {sub: nhe:dispatcher, act: {sub: nhe:planner}} (outermost first).
      {
        tenantId: B,
        jti: 'b-erin-dispatcher',
        crossDomain: { ...fromA('nhe:dispatcher', 'erin', 'idjag-6'), actors: ['nhe:dispatcher', 'nhe:planner'] },
      },
      // The same agent name at another issuer B trusts.
      {
        tenantId: B,
        jti: 'b-other-peer',
        crossDomain: {
          direction: 'redeemed',
          peer: OTHER_PEER,
          actor: 'nhe:orders-agent',
          subject: 'alice',
          assertionJti: 'idjag-1',
        },
      },
      // A token B minted on its own (no crossDomain), and an ID-JAG B issued to A (direction issued).
      { tenantId: B, jti: 'b-local' },
      {
        tenantId: B,
        jti: 'b-issued',
        crossDomain: { direction: 'issued', peer: issuerOf(A), assertionJti: 'b-issued' },
      },
      // Tenant C's token from the very same assertion of A: C did not subscribe, and B's receiver never touches C.
      { tenantId: C, jti: 'c-alice-orders', crossDomain: fromA('nhe:orders-agent', 'alice', 'idjag-1') },
    ]);
  });

  it('an agent disabled at A: every live B token minted for that agent, within the poll bound', async () => {
    const ms = await timeUntilBridged(
      () => h.revoke({ tenantId: A, nheIdentifier: 'orders-agent', reason: 'nhe.disabled' }),
      ['b-alice-orders', 'b-bob-orders'],
    );
    console.log(`issuer revocation (A poll interval 1 s): publication at A to B's entries in ${ms} ms`);
    // A's poll interval (1 s) + A's fan-out + one poll round trip + the mapping.
    expect(ms).toBeLessThan(4000);
    await new Promise((r) => setTimeout(r, 1500)); // one more poll: nothing else arrives
    expect(await bridgedJtis()).toEqual(['b-alice-orders', 'b-bob-orders']);
    expect(await bridgedJtis(C)).toEqual([]);
    const entries = await bridged();
    for (const e of entries) {
      expect(e).toMatchObject({ tenantId: B, reason: 'issuer.revoked' });
      expect(Object.keys(e).sort()).toEqual(['expiresAt', 'id', 'jti', 'reason', 'revokedAt', 'tenantId']);
    }
  });

  it('a person revoking the agent on their ledger at A (user AND agent): only that person’s token for that agent', async () => {
    await timeUntilBridged(
      () => h.revoke({ tenantId: A, subject: 'alice', nheIdentifier: 'report-bot', reason: 'user.agent.revoked' }),
      ['b-alice-report'],
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(await bridgedJtis()).toEqual(['b-alice-orders', 'b-alice-report', 'b-bob-orders']);
  });

  it('one token revoked at A: the B token minted from that assertion (its jti)', async () => {
    await timeUntilBridged(
      () => h.revoke({ tenantId: A, jti: 'idjag-5', reason: 'token.revoked' }),
      ['b-carol-helper'],
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(await bridgedJtis()).toEqual(['b-alice-orders', 'b-alice-report', 'b-bob-orders', 'b-carol-helper']);
  });

  it('an inner agent of a nested chain disabled at A: the B token minted from that chain (any actor matches)', async () => {
    await timeUntilBridged(
      () => h.revoke({ tenantId: A, nheIdentifier: 'planner', reason: 'nhe.disabled' }),
      ['b-erin-dispatcher'],
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(await bridgedJtis()).toEqual([
      'b-alice-orders',
      'b-alice-report',
      'b-bob-orders',
      'b-carol-helper',
      'b-erin-dispatcher',
    ]);
  });

  it("an entry naming only one of A's clients (B cannot map them) revokes nothing at B", async () => {
    const before = await bridgedJtis();
    await audit([{ tenantId: B, jti: 'b-frank-orders2', crossDomain: fromA('nhe:orders2', 'frank', 'idjag-7') }]);
    await h.revoke({ tenantId: A, clientNumericId: 42, reason: 'client.deleted' });
    // Delivered in order: once the next entry is applied at B, the client-only one has been handled.
    await timeUntilBridged(
      () => h.revoke({ tenantId: A, jti: 'idjag-7', reason: 'token.revoked' }),
      ['b-frank-orders2'],
    );
    expect(await bridgedJtis()).toEqual([...before, 'b-frank-orders2'].sort());
  });

  it('a token B mints after the event from an assertion A issued before it is revoked too (the selector stays open)', async () => {
    await audit([{ tenantId: B, jti: 'b-late-orders', crossDomain: fromA('nhe:orders-agent', 'dave', 'idjag-late') }]);
    const t0 = Date.now();
    await eventually(async () => (await bridgedJtis()).includes('b-late-orders'), 10_000);
    console.log(`issuer revocation: a token minted after the event revoked ${Date.now() - t0} ms after its audit row`);
    expect(h.transmitter.issuers.status()[0]!.openSelectors).toBeGreaterThanOrEqual(2);
  });

  it("B's own transmitter tells B's receivers: a new B stream gets one-token SETs for those tokens", async () => {
    const token = await h.token(B, 'b-mcp-server', { iss: issuerOf(B) });
    const created = await request(h.base())
      .post(`/auth/${B}/ssf/streams`)
      .auth(token, { type: 'bearer' })
      .send({ delivery: { method: DELIVERY_POLL }, events_requested: [NHE_REVOCATION_EVENT] });
    expect(created.status).toBe(201);
    const polled = await request(h.base())
      .post(`/auth/${B}/ssf/poll/${created.body.stream_id as string}`)
      .auth(token, { type: 'bearer' })
      .send({ returnImmediately: true, maxEvents: 100 });
    expect(polled.status).toBe(200);
    const jtis = Object.values(polled.body.sets as Record<string, string>)
      .map((set) => JSON.parse(Buffer.from(set.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>)
      .map((c) => (c.events as Record<string, { jti?: string; reason?: string }>)[NHE_REVOCATION_EVENT]!)
      .filter((e) => e.reason === 'issuer.revoked')
      .map((e) => e.jti)
      .sort();
    expect(jtis).toEqual(await bridgedJtis());
  });

  it('a restart: the new stream gets every entry of A in force again, and B writes nothing twice', async () => {
    const before = (await bridged()).map((e) => e.id).sort();
    const oldStream = h.transmitter.issuers.status()[0]!.streamId;
    await h.restart();
    await eventually(() => {
      const s = h.transmitter.issuers.status().at(0);
      return s?.lastSuccessAt !== undefined && s.streamId !== oldStream;
    }, 15_000);
    // The stream of the stopped process was deleted at A.
    expect(await h.db.connection.collection('ssf_streams').countDocuments({ _id: oldStream as never })).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await bridged()).map((e) => e.id).sort()).toEqual(before);
    expect(await h.db.connection.collection('nhe_revocations').countDocuments({ tenantId: B })).toBe(before.length);
  });

  it('the subscription switched off: the receiver stops and deletes its stream at A', async () => {
    const streamId = h.transmitter.issuers.status()[0]!.streamId;
    await h.db.models.TrustedIssuer.updateOne(
      { tenantId: B, issuer: issuerOf(A) },
      { $set: { 'signals.enabled': false } },
    );
    await publishInvalidation(h.publisher.nc, { tenantId: B, kind: 'tenant', id: String(B) });
    await eventually(() => h.transmitter.issuers.status().length === 0);
    expect(await h.db.connection.collection('ssf_streams').countDocuments({ _id: streamId as never })).toBe(0);
  });
});

it("one hand-written trusted issuer document (no poll interval, or no client) keeps no other tenant's subscription from starting", async () => {
  const raw = h.db.models.TrustedIssuer.collection;
  // C's record, as written by hand or restored from an older version: signals without pollIntervalSeconds.
  await raw.updateOne(
    { tenantId: C, issuer: issuerOf(A) },
    {
      $set: {
        signals: {
          enabled: true,
          clientId: BRIDGE_CLIENT,
          clientSecretSealed: h.keyStore.kek.encrypt(BRIDGE_SECRET, trustedIssuerSecretAad(C, issuerOf(A))),
        },
      },
    },
  );
  // Another, with no client at all.
  await raw.insertOne({
    tenantId: C,
    issuer: OTHER_PEER,
    jwksUri: `${OTHER_PEER}/jwks`,
    signals: { enabled: true, clientSecretSealed: 'sealed' },
  });
  // B's record read after them (a new document): it must start all the same.
  const b = await h.db.models.TrustedIssuer.findOneAndDelete({ tenantId: B, issuer: issuerOf(A) }).lean();
  await h.db.models.TrustedIssuer.create({
    ...b,
    _id: undefined,
    signals: { ...b!.signals!, enabled: true },
  });
  await publishInvalidation(h.publisher.nc, { tenantId: B, kind: 'tenant', id: String(B) });
  const running = await eventually(() => {
    const all = h.transmitter.issuers.status();
    return all.length === 2 && all.every((s) => s.lastSuccessAt !== undefined) ? all : undefined;
  }, 15_000);
  expect(running.map((s) => s.tenantId).sort()).toEqual([B, C]);
  expect(running.every((s) => !s.failing)).toBe(true);
  // C's stream polls at the default interval: its stream at A exists and is B's client's.
  const cStream = running.find((s) => s.tenantId === C)!.streamId;
  expect(await h.db.connection.collection('ssf_streams').countDocuments({ _id: cStream as never })).toBe(1);

  const metrics = async () => (await fetch(`${h.base()}/metrics`)).text();
  expect(await metrics()).toMatch(/signals_issuer_subscriptions\{state="ok"[^}]*\} 2/);

  // C's secret at A no longer valid: its subscription is failing, and says so (status and metric).
  await h.db.models.TrustedIssuer.updateOne(
    { tenantId: C, issuer: issuerOf(A) },
    {
      $set: {
        'signals.clientSecretSealed': h.keyStore.kek.encrypt('wrong', trustedIssuerSecretAad(C, issuerOf(A))),
      },
    },
  );
  await publishInvalidation(h.publisher.nc, { tenantId: C, kind: 'tenant', id: String(C) });
  await eventually(() => h.transmitter.issuers.status().find((s) => s.tenantId === C && s.failing), 15_000);
  expect(await metrics()).toMatch(/signals_issuer_subscriptions\{state="failing"[^}]*\} 1/);
});
