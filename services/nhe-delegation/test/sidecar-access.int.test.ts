/** The sidecar answers oidc-core only, and answers malformed forwarded requests with RFC 6749 errors. */
import request from 'supertest';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { createApp } from '../src/app';

const SECRET = 's'.repeat(40);
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let app: ReturnType<typeof createApp>['listener'];
const published: unknown[] = [];
const logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  db = await openTestDatabase('sidecar');
  ({ listener: app } = createApp({
    logger: createLogger({
      service: 'test',
      level: 'info',
      destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    }),
    models: db.models,
    sidecarSecret: SECRET,
    issuerFor: (t) => `https://idp.test/auth/${t}`,
    keysFor: () => Promise.reject(new Error('no keys needed')),
    publishIssued: (e) => {
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

const forwarded = { tenantId: 1, clientId: 'c', clientNumericId: 1, params: {}, sourceIp: '127.0.0.1' };

it('refuses callers without the shared secret', async () => {
  const none = await request(app).post('/internal/token-exchange').send(forwarded);
  expect(none.status).toBe(403);
  const wrong = await request(app)
    .post('/internal/token-exchange')
    .set('x-sidecar-secret', 'x'.repeat(40))
    .send(forwarded);
  expect(wrong.status).toBe(403);
  expect(wrong.body.error).toBe('access_denied');
  expect(published).toHaveLength(0);
  // The route has no pino-http line (its decision record is its log): each refusal is logged on its own, without
  // the secret that was presented.
  const refused = logs.filter((l) => l.msg === 'token-exchange call refused: not oidc-core');
  expect(refused.map((l) => [l.level, l.secretPresented])).toEqual([
    ['warn', false],
    ['warn', true],
  ]);
  expect(JSON.stringify(refused)).not.toContain('x'.repeat(40));
});

it('answers a malformed forwarded request with invalid_request', async () => {
  const res = await request(app)
    .post('/internal/token-exchange')
    .set('x-sidecar-secret', SECRET)
    .send({ tenantId: 'x' });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('invalid_request');
  const notJson = await request(app)
    .post('/internal/token-exchange')
    .set('x-sidecar-secret', SECRET)
    .set('content-type', 'application/json')
    .send('{');
  expect(notJson.status).toBe(400);
  expect(notJson.body.error).toBe('invalid_request');
});

it('refuses a forwarded body nested deeper than the JSON depth bound before parsing it (invalid_request, never a 500)', async () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  for (const body of [`{"tenantId":1,"params":{"x":${deep(5000)}}}`, '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)]) {
    const res = await request(app)
      .post('/internal/token-exchange')
      .set('x-sidecar-secret', SECRET)
      .set('content-type', 'application/json')
      .send(body);
    expect([res.status, res.body.error, res.body.error_description]).toEqual([
      400,
      'invalid_request',
      expect.stringMatching(/nested too deeply/),
    ]);
  }
  expect(published).toHaveLength(0);
});

it('has no other routes', async () => {
  const res = await request(app).get('/internal/token-exchange');
  expect(res.status).toBe(404);
  expect(res.body.error).toBe('not_found');
});
