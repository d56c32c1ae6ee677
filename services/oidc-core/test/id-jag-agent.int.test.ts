/**
 * Identity Assertion Authorization Grants for an agent (draft-ietf-oauth-identity-assertion-authz-grant; MCP
 * Enterprise-Managed Authorization), this tenant as the enterprise identity provider, end to end: oidc-core (real app,
 * the person's sign-in by form posts), the nhe-delegation sidecar in process (token exchange, and the audit call of the
 * ID-JAG) publishing to a real NATS JetStream, the audit writer's own batch writer storing the TokenAudit rows from
 * that stream, and the Shared Signals transmitter (services/signals) with the resource-server SDK's SSF poll receiver.
 *
 * - the agent's delegation token (RFC 8693 subject token of type access_token) becomes an ID-JAG carrying its `act`
 *   (unchanged) and `agent`, sub the person, never outliving the delegation; audited like a delegation token (crossDomain
 *   issued) before it leaves, and no ID-JAG without the durable record;
 * - refused: an agent the audience does not list, another client's delegation token, an expired one, one of a disabled
 *   NHE, a person's access token (no act), another tenant's delegation token, an actor_token; the person's ID-token path
 *   is unchanged;
 * - the person's ledger lists the ID-JAG under the agent as an identity assertion for the other server; "Revoke its
 *   access now" covers it, its kill-switch entry reaches a Shared Signals receiver, and the revoked delegation token
 *   obtains no further ID-JAG.
 */
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
} from 'jose';
import { AckPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { TokenAuditDoc } from '@idp/db';
import { AUDIT_STREAM, auditSubject, REVOCATION_COLLECTION, revocationStore, type RevocationStore } from '@idp/events';
import { createLogger } from '@idp/logger';
import { createSsfPollReceiver, type SsfPollReceiver } from '@idp/resource-server';
import { createClient, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { writeBatch } from '../../audit-writer/src/writer';
import {
  eventually,
  PUBLIC_BASE_URL,
  startHarness as startSignals,
  type Harness as Signals,
} from '../../signals/test/harness';
import { ledgerRevoker } from '../src/account/revoke';
import { exchangeSidecar } from './exchange-sidecar';
import {
  Browser,
  PEPPER,
  followToRedirectUri,
  redeem,
  startAuthorize,
  startPagesApp,
  type PagesApp,
} from './pages-app';
import { post, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const PARTNER = 'https://as.partner.example';
const MCP = 'https://mcp.partner.example/mcp';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

const sidecar = exchangeSidecar();
let signals: Signals;
let app: PagesApp;
let T: number;
let store: RevocationStore;
let receiver: SsfPollReceiver;
let nc: NatsConnection;
let other: { clientId: string; clientSecret: string };
/** Alice's browser (signed in at the tenant) and her access token for the Orders API. */
let alice: { browser: Browser; access: string; idToken: string };
/** Alice's delegation tokens: of orders-agent (listed in the audience's agents) and report-bot (not listed). */
let ordersToken: string;
let reportToken: string;
/** A delegation token of another tenant (same client_id, same agent identifier, its own keys). */
let foreignToken: string;

type Client = { clientId: string; clientSecret: string };

async function signIn(on: PagesApp): Promise<{ browser: Browser; access: string; idToken: string }> {
  const browser = new Browser(on.baseUrl);
  const client = on.tenant.client;
  const { interaction, verifier } = await startAuthorize(on, browser, client, {
    scope: 'openid orders:read orders:write',
    resource: ORDERS,
  });
  const res = await browser.go(`${interaction}/login`, {
    form: { username: 'alice', password: on.tenant.user.password },
  });
  const url = await followToRedirectUri(browser, res.location, client.redirectUri);
  const tokens = await redeem(on, client, url.searchParams.get('code')!, verifier);
  return { browser, access: tokens.access_token, idToken: tokens.id_token };
}

async function delegationToken(on: PagesApp, subject: string, actor: string): Promise<string> {
  const res = await post(
    on,
    '/oidc/token',
    {
      grant_type: TE,
      subject_token: subject,
      subject_token_type: ACCESS_TOKEN,
      actor_token: actor,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: ORDERS,
      scope: 'orders:read',
    },
    on.tenant.client,
  );
  if (res.status !== 200) throw new Error(`exchange for ${actor}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token!;
}

/** The agent's request for an ID-JAG (the contract: its delegation token as the subject token). */
const idJag = (
  subjectToken: string,
  o: { client?: Client; extra?: Record<string, string> } = {},
): Promise<{ status: number; body: TokenBody & Record<string, unknown> }> =>
  post(
    app,
    '/oidc/token',
    {
      grant_type: TE,
      requested_token_type: ID_JAG,
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN,
      audience: PARTNER,
      resource: MCP,
      scope: 'files.read admin',
      ...o.extra,
    },
    o.client ?? app.tenant.client,
  );

/** The audit writer's batch writer over the tenant's issuance events (a consumer of this test's own). */
async function writeAuditRows(): Promise<void> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(AUDIT_STREAM, `idjag-agent-${T}`);
  const logger = createLogger({ service: 'test', level: 'silent' });
  for (;;) {
    const batch: JsMsg[] = [];
    for await (const m of await consumer.fetch({ max_messages: 50, expires: 1000 })) batch.push(m);
    if (!batch.length) return;
    await writeBatch({ models: app.db.models, js, logger }, batch);
  }
}

const ledgerOf = async (browser: Browser) => {
  let res = await browser.go(`/auth/${T}/account/agents`);
  for (let i = 0; i < 8 && res.location; i++) res = await browser.go(res.location);
  return { ...res, csrf: /name="csrf" value="([^"]+)"/.exec(res.text)?.[1] ?? '' };
};

beforeAll(async () => {
  signals = await startSignals();
  app = await startPagesApp('idjagagent', {
    forwardTokenExchange: sidecar.forwarder,
    // The ledger's kill switch as main.ts wires it: persisted, then published on the NATS the transmitter listens to.
    account: (db) => {
      store = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
      return { revocations: store, revoke: ledgerRevoker({ nc: () => signals.publisher.nc, store }) };
    },
  });
  T = app.tenant.tenantId;
  await signals.seedTenant(T);
  const { models } = app.db;
  nc = await connect({ servers: sidecar.natsUrl! });
  await (
    await jetstreamManager(nc)
  ).consumers.add(AUDIT_STREAM, {
    durable_name: `idjag-agent-${T}`,
    filter_subject: auditSubject(T),
    ack_policy: AckPolicy.Explicit,
  });

  const reportBot = await models.Nhe.create({
    tenantId: T,
    identifier: 'report-bot',
    type: 'llm-assistive',
    allowedScopes: ['orders:read'],
    maxTokenLifetime: 300,
    operator: 'Ops',
  });
  await models.DelegationPolicy.create({
    tenantId: T,
    nheId: String(reportBot._id),
    target: { type: 'user', id: app.tenant.user.id },
    allowedScopes: ['orders:read'],
  });
  other = await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'other-app',
    name: 'Other App',
    grantTypes: [TE],
    delegationEnabled: true,
  });
  await models.IdJagAudience.create({
    tenantId: T,
    audience: PARTNER,
    resources: [MCP],
    clients: [
      { clientId: 'demo-app', clientIdAtAudience: 'partner-42' },
      { clientId: 'other-app', clientIdAtAudience: 'partner-43' },
    ],
    agents: ['orders-agent'],
    scopes: ['files.read', 'files.write'],
  });

  alice = await signIn(app);
  ordersToken = await delegationToken(app, alice.access, 'orders-agent');
  reportToken = await delegationToken(app, alice.access, 'report-bot');

  // Another tenant of the same deployment, with the same client id and agent identifier.
  const t2: SeededTenant = await seedDelegationTenant(models, app.keyStore, {
    tenantId: T + 1,
    clientSecretPepper: PEPPER,
  });
  const app2 = { ...app, tenant: t2 };
  foreignToken = await delegationToken(app2, (await signIn(app2)).access, 'orders-agent');

  // A Shared Signals receiver of the tenant (what organisation B runs when it subscribes to A's transmitter).
  const ssfIssuer = `${PUBLIC_BASE_URL}/auth/${T}`;
  const ssfJwks = await signals.jwks(T);
  receiver = createSsfPollReceiver({
    issuer: ssfIssuer,
    getAccessToken: () => signals.token(T, 'partner-as'),
    fetch: async (url, init) => {
      if (url === `${ssfIssuer}/jwks`) return Response.json(ssfJwks);
      if (url === `${ssfIssuer}/.well-known/openid-configuration`)
        return Response.json({ issuer: ssfIssuer, jwks_uri: `${ssfIssuer}/jwks` });
      return fetch(url.replace(PUBLIC_BASE_URL, signals.base()), init);
    },
    intervalMs: 250,
  });
  await receiver.start();
}, 120_000);

afterAll(async () => {
  await (receiver as SsfPollReceiver | undefined)?.stop();
  await (nc as NatsConnection | undefined)?.close();
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
  await (signals as Signals | undefined)?.close();
});

let issued: { jti: string; iat: number; exp: number };

describe('an agent obtains an ID-JAG with its delegation token', () => {
  it('carries act (unchanged) and agent, sub the person, the scopes cut to the audience’s; never outlives the delegation', async () => {
    const res = await idJag(ordersToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ issued_token_type: ID_JAG, token_type: 'N_A', scope: 'files.read' });
    const assertion = res.body.access_token!;
    expect(decodeProtectedHeader(assertion).typ).toBe('oauth-id-jag+jwt');
    const jwks = (await (await fetch(`${app.baseUrl}/auth/${T}/jwks`)).json()) as { keys: JWK[] };
    const { payload } = await jwtVerify(assertion, createLocalJWKSet(jwks), {
      issuer: `${app.baseUrl}/auth/${T}`,
      audience: PARTNER,
      typ: 'oauth-id-jag+jwt',
    });
    const delegation = decodeJwt(ordersToken);
    expect(payload).toMatchObject({
      sub: app.tenant.user.id,
      client_id: 'partner-42',
      resource: MCP,
      scope: 'files.read',
    });
    expect(payload.act).toEqual(delegation.act);
    expect(payload.act).toEqual({ sub: 'nhe:orders-agent' });
    expect(payload.agent).toEqual(delegation.agent);
    expect((payload.agent as { id: string }).id).toBe('orders-agent');
    expect(payload.exp).toBeLessThanOrEqual(delegation.exp!);
    expect(payload.exp! - payload.iat!).toBe(res.body.expires_in);
    issued = { jti: payload.jti!, iat: payload.iat!, exp: payload.exp! };

    // Audited like a delegation token: the event JetStream acknowledged, then the TokenAudit row the writer stores.
    const event = sidecar.issued.find((e) => e.jti === issued.jti);
    expect(event).toMatchObject({
      type: 'nhe.token.issued',
      tenantId: T,
      userId: app.tenant.user.id,
      nheId: app.tenant.nhe.id,
      nheIdentifier: 'orders-agent',
      clientId: 'demo-app',
      clientNumericId: app.tenant.client.numericId,
      resourceServer: MCP,
      scopes: ['files.read'],
      ttl: res.body.expires_in,
      // The Browser's X-Forwarded-For is not trusted by the providers here: the socket's address.
      sourceIp: '127.0.0.1',
      parentJti: delegation.jti,
      crossDomain: { direction: 'issued', peer: PARTNER, assertionJti: issued.jti },
    });
    await writeAuditRows();
    const row = await app.db.models.TokenAudit.findOne({ tenantId: T, jti: issued.jti }).lean<TokenAuditDoc>();
    expect(row).toMatchObject({
      nheIdentifier: 'orders-agent',
      resourceServer: MCP,
      clientId: 'demo-app',
      crossDomain: { direction: 'issued', peer: PARTNER, assertionJti: issued.jti },
    });
    expect(row!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('issues no ID-JAG when the issuance cannot be recorded (503 temporarily_unavailable)', async () => {
    const before = sidecar.issued.length;
    sidecar.failPublish = true;
    try {
      const res = await idJag(ordersToken);
      expect([res.status, res.body.error, res.body.access_token]).toEqual([503, 'temporarily_unavailable', undefined]);
      expect(res.body.error_description).toMatch(/could not be recorded/);
    } finally {
      sidecar.failPublish = false;
    }
    expect(sidecar.issued.length).toBe(before);
  });
});

describe('refusals', () => {
  const refused = async (
    res: Promise<{ status: number; body: TokenBody & Record<string, unknown> }>,
    error: string,
    description: RegExp,
  ) => {
    const r = await res;
    expect([r.status, r.body.error, r.body.access_token]).toEqual([400, error, undefined]);
    expect(r.body.error_description).toMatch(description);
  };

  it('an agent the audience does not list', () =>
    refused(idJag(reportToken), 'invalid_target', /this agent may not obtain identity assertions/));

  it('a delegation token issued to another client, even one the audience lists', () =>
    refused(idJag(ordersToken, { client: other }), 'invalid_grant', /issued to another client/));

  it('a person’s own access token: no act, not a delegation token', () =>
    refused(idJag(alice.access), 'invalid_grant', /not a delegation token/));

  it('a delegation token of another tenant (same client_id and agent identifier)', () =>
    refused(idJag(foreignToken), 'invalid_grant', /not a valid access token of this tenant/));

  it('an expired delegation token, signed by this tenant', async () => {
    const { signing } = await app.keyStore.load(T);
    const { kid } = decodeProtectedHeader(ordersToken);
    const key = signing.find((k) => k.kid === kid)!;
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ ...decodeJwt(ordersToken), iat: now - 400, exp: now - 100 })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .sign(await importJWK(key, 'ES256'));
    await refused(idJag(expired), 'invalid_grant', /not a valid access token of this tenant: .*exp/i);
  });

  it('the agent disabled; enabled again, it is issued', async () => {
    const { models } = app.db;
    await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: false } });
    try {
      await refused(idJag(ordersToken), 'invalid_grant', /no longer active/);
    } finally {
      await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: true } });
    }
    expect((await idJag(ordersToken)).status).toBe(200);
  });

  it('an actor_token, with a message saying what to send instead', () =>
    refused(
      idJag(ordersToken, { extra: { actor_token: 'orders-agent', actor_token_type: 'urn:vendor:token-type:nhe-id' } }),
      'invalid_request',
      /an agent presents its delegation token as the subject_token/,
    ));

  it('the person’s ID-token path is unchanged: no act, no agent, no audit row', async () => {
    const before = sidecar.issued.length;
    const res = await idJag(alice.idToken, {
      extra: { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' },
    });
    expect(res.status).toBe(200);
    const payload = decodeJwt(res.body.access_token!);
    expect(payload.sub).toBe(app.tenant.user.id);
    expect([payload.act, payload.agent]).toEqual([undefined, undefined]);
    expect(sidecar.issued.length).toBe(before);
  });

  it('an agent client presenting its ID token: the person path is not for it (its delegation token is)', async () => {
    const { models } = app.db;
    const asPerson = () =>
      idJag(alice.idToken, { extra: { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' } });
    // demo-app embodies orders-agent (an agent client): alice's ID token for it no longer gets an ID-JAG.
    await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { agentClients: ['demo-app'] } });
    try {
      await refused(asPerson(), 'invalid_grant', /present its delegation token as the subject_token/);
    } finally {
      await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $unset: { agentClients: 1 } });
    }
    expect((await asPerson()).status).toBe(200);
  });

  it('a DPoP-bound delegation token (cnf.jkt): only with a DPoP proof made with its key (RFC 9449 section 7)', async () => {
    const htu = `${app.baseUrl}/auth/${T}/oidc/token`;
    const keyPair = async () => {
      const { publicKey, privateKey } = await generateKeyPair('ES256');
      const jwk = await exportJWK(publicKey);
      const proof = () =>
        new SignJWT({ htm: 'POST', htu })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
          .setIssuedAt()
          .setJti(randomUUID())
          .sign(privateKey);
      return { proof, jkt: await calculateJwkThumbprint(jwk) };
    };
    const tokenRequest = async (form: Record<string, string>, dpop?: string) => {
      const c = app.tenant.client;
      const res = await fetch(htu, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
          ...(dpop ? { dpop } : {}),
        },
        body: new URLSearchParams(form),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const holder = await keyPair();
    const minted = await tokenRequest(
      {
        grant_type: TE,
        subject_token: alice.access,
        subject_token_type: ACCESS_TOKEN,
        actor_token: 'orders-agent',
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: ORDERS,
        scope: 'orders:read',
      },
      await holder.proof(),
    );
    expect(minted.status).toBe(200);
    const bound = String(minted.body.access_token);
    expect(decodeJwt(bound).cnf).toEqual({ jkt: holder.jkt });
    const ask = (dpop?: string) =>
      tokenRequest(
        {
          grant_type: TE,
          requested_token_type: ID_JAG,
          subject_token: bound,
          subject_token_type: ACCESS_TOKEN,
          audience: PARTNER,
          resource: MCP,
        },
        dpop,
      );
    const before = sidecar.issued.length;
    for (const dpop of [undefined, await (await keyPair()).proof()]) {
      const res = await ask(dpop);
      expect([res.status, res.body.error, res.body.access_token]).toEqual([400, 'invalid_dpop_proof', undefined]);
    }
    expect(sidecar.issued.length).toBe(before);
    const ok = await ask(await holder.proof());
    expect([ok.status, ok.body.issued_token_type]).toEqual([200, ID_JAG]);
  });
});

describe("the person's ledger", () => {
  it('lists the ID-JAG under the agent as an identity assertion for the other server; revoking the agent covers it', async () => {
    await writeAuditRows();
    const { text, csrf } = await ledgerOf(alice.browser);
    const agent = /<section[^>]*data-nhe="orders-agent">([\s\S]*?)<\/section>/.exec(text)?.[1] ?? '';
    expect(agent).toMatch(
      new RegExp(
        `<li data-jti="${issued.jti}">identity assertion for <strong>${PARTNER}</strong> \\(${MCP}\\), through <strong>Demo App</strong> <span class="muted">\\(demo-app\\)</span>`,
      ),
    );
    const audit = /<ol id="audit"[^>]*>([\s\S]*?)<\/ol>/.exec(text)?.[1] ?? '';
    expect(audit).toContain(
      `<strong>orders-agent</strong> identity assertion for ${PARTNER} (${MCP}), through Demo App <span class="muted">(demo-app)</span>`,
    );

    // What a subscribed receiver holds for the person and the agent: nothing yet.
    const forAgent = () =>
      receiver.denyList.entries().find((e) => e.nhe === 'orders-agent' && e.sub === app.tenant.user.id);
    expect(forAgent()).toBeUndefined();
    const res = await alice.browser.go(`/auth/${T}/account/agents/${app.tenant.nhe.id}/revoke`, { form: { csrf } });
    expect(res.status).toBe(303);
    // The kill-switch entry names the person and the agent ...
    const entry = (await store.active(new Date(), T)).at(-1)!;
    expect(entry).toMatchObject({ nheIdentifier: 'orders-agent', subject: app.tenant.user.id });
    // ... and reaches a receiver of the tenant's Shared Signals transmitter (organisation B subscribed to it), naming
    // the same person and agent as the ID-JAG's record.
    const delivered = await eventually(forAgent, 10_000, 20);
    expect(delivered.issuedBefore).toBeGreaterThanOrEqual(issued.iat);
    const page = (await ledgerOf(alice.browser)).text;
    expect(page).toMatch(new RegExp(`data-jti="${issued.jti}" data-revoked="true">Revoked: identity assertion for`));
    // The revoked delegation token obtains no further ID-JAG.
    const again = await idJag(ordersToken);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
    expect(again.body.error_description).toMatch(/no longer active/);
  });
});
