/**
 * The sidecar's ID-JAG audit call (routes/id-jag-issued.ts): oidc-core alone may make it (loopback and the shared
 * secret); it takes only the issuance event of an ID-JAG (crossDomain `issued`), publishes it on the delegation tokens'
 * audit path, and answers 503 temporarily_unavailable when the publish is not acknowledged.
 */
import request from 'supertest';
import type { NheTokenIssued } from '@idp/events';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { createApp } from '../src/app';

const SECRET = 's'.repeat(40);
const PATH = '/internal/id-jag-issued';
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let app: ReturnType<typeof createApp>['listener'];
const published: NheTokenIssued[] = [];
let failPublish = false;

beforeAll(async () => {
  db = await openTestDatabase('sidecaridjag');
  ({ listener: app } = createApp({
    logger: createLogger({ service: 'test', level: 'silent' }),
    models: db.models,
    sidecarSecret: SECRET,
    issuerFor: (t) => `https://idp.test/auth/${t}`,
    keysFor: () => Promise.reject(new Error('no keys needed')),
    publishIssued: (e) => {
      if (failPublish) return Promise.reject(new Error('JetStream unavailable (test)'));
      published.push(e);
      return Promise.resolve();
    },
    readiness: [],
  }));
});

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

const event: NheTokenIssued = {
  type: 'nhe.token.issued',
  jti: 'b6f1c0de-0000-4000-8000-000000000001',
  tenantId: 7,
  userId: '665f1c2ab1e4a3d2c1b0a999',
  nheId: '665f1c2ab1e4a3d2c1b0a111',
  nheIdentifier: 'orders-agent',
  clientId: 'demo-app',
  clientNumericId: 3,
  resourceServer: 'https://mcp.partner.example/mcp',
  scopes: ['files.read'],
  ttl: 240,
  sourceIp: '203.0.113.10',
  issuedAt: new Date().toISOString(),
  parentJti: 'delegation-token-jti',
  crossDomain: {
    direction: 'issued',
    peer: 'https://as.partner.example',
    assertionJti: 'b6f1c0de-0000-4000-8000-000000000001',
  },
};

it('refuses a caller without the shared secret, and publishes nothing', async () => {
  const res = await request(app).post(PATH).send(event);
  expect([res.status, res.body.error]).toEqual([403, 'access_denied']);
  expect(published).toHaveLength(0);
});

it('takes only an ID-JAG issuance: a delegation token’s event, or a malformed one, is invalid_request', async () => {
  const { crossDomain: _c, ...plain } = event;
  for (const body of [
    plain,
    { ...event, crossDomain: { ...event.crossDomain, direction: 'redeemed' } },
    { ...event, ttl: 0 },
    { ...event, extra: 1 },
  ]) {
    const res = await request(app).post(PATH).set('x-sidecar-secret', SECRET).send(body);
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  }
  expect(published).toHaveLength(0);
});

it('publishes the event and answers once it is acknowledged; 503 when it is not', async () => {
  const ok = await request(app).post(PATH).set('x-sidecar-secret', SECRET).send(event);
  expect([ok.status, ok.body]).toEqual([200, { recorded: true }]);
  expect(published).toEqual([event]);
  failPublish = true;
  const down = await request(app).post(PATH).set('x-sidecar-secret', SECRET).send(event);
  expect([down.status, down.body.error]).toEqual([503, 'temporarily_unavailable']);
  expect(down.body.error_description).toMatch(/no identity assertion was issued/);
});
