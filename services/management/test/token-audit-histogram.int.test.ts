/**
 * The token audit histogram (tokens issued per bucket and per NHE) against a real database: counts from real rows,
 * bucket alignment, filters, the window bounds, and tenant isolation; every response validated against the OpenAPI
 * document.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
beforeAll(async () => {
  h = await startHarness('mgmthist');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  await h.db.models.TokenAudit.deleteMany({});
  let n = 0;
  const row = (tenantId: number, nheIdentifier: string, issuedAt: string, extra: Record<string, unknown> = {}) => ({
    tenantId,
    jti: `h-${(n += 1)}`,
    userId: 'u1',
    nheId: `n-${nheIdentifier}`,
    nheIdentifier,
    clientId: 'c1',
    clientNumericId: 1,
    resourceServer: 'https://api',
    scopes: ['s'],
    ttl: 60,
    sourceIp: '127.0.0.1',
    issuedAt: new Date(issuedAt),
    ...extra,
  });
  await h.db.models.TokenAudit.create([
    row(A, 'agent-a', '2026-03-01T10:05:00Z'),
    row(A, 'agent-a', '2026-03-01T10:59:59.999Z'),
    row(A, 'agent-a', '2026-03-01T12:00:00Z', { userId: 'u2' }),
    row(A, 'agent-b', '2026-03-01T11:30:00Z'),
    // Outside the window of the tests below (before and at its end: `to` is exclusive).
    row(A, 'agent-a', '2026-03-01T09:59:59Z'),
    row(A, 'agent-b', '2026-03-01T13:00:00Z'),
    // Tenant B, inside the window: never counted for A.
    row(B, 'agent-a', '2026-03-01T10:30:00Z'),
    row(B, 'agent-z', '2026-03-01T11:30:00Z'),
  ]);
});
afterAll(async () => h.close());

const hist = (t: number, q: string) => `/auth/admin/tenants/${t}/non-human-entities/token-audit/histogram${q}`;
const WINDOW = '?from=2026-03-01T10:00:00Z&to=2026-03-01T13:00:00Z';

describe('token audit histogram', () => {
  it('counts the rows per hour and per NHE, most tokens first', async () => {
    const res = await h.call('get', hist(A, WINDOW), adminA);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      from: '2026-03-01T10:00:00.000Z',
      to: '2026-03-01T13:00:00.000Z',
      bucketSeconds: 3600,
      series: [
        { nheIdentifier: 'agent-a', counts: [2, 0, 1], total: 3 },
        { nheIdentifier: 'agent-b', counts: [0, 1, 0], total: 1 },
      ],
      total: 4,
      truncated: false,
    });
  });

  it('aligns the buckets to their width and applies the list filters', async () => {
    const res = await h.call(
      'get',
      hist(A, '?from=2026-03-01T10:20:00Z&to=2026-03-01T12:10:00Z&bucketSeconds=1800&userId=u2'),
      adminA,
    );
    expect(res.body).toMatchObject({
      from: '2026-03-01T10:00:00.000Z',
      to: '2026-03-01T12:30:00.000Z',
      bucketSeconds: 1800,
      series: [{ nheIdentifier: 'agent-a', counts: [0, 0, 0, 0, 1], total: 1 }],
      total: 1,
    });
    const b = await h.call('get', hist(A, `${WINDOW}&nheIdentifier=agent-b`), adminA);
    expect(b.body.series).toEqual([{ nheIdentifier: 'agent-b', counts: [0, 1, 0], total: 1 }]);
  });

  it('defaults to the last 24 hours in hourly buckets', async () => {
    const res = await h.call('get', hist(A, ''), adminA);
    expect(res.status).toBe(200);
    expect(res.body.bucketSeconds).toBe(3600);
    // 24 hours from a moment inside an hour: 25 aligned buckets, no rows (they are all in March 2026's past).
    const span = (Date.parse(res.body.to) - Date.parse(res.body.from)) / 3600_000;
    expect([24, 25]).toContain(span);
  });

  it.each([
    ['?from=2026-03-01T10:00:00Z&to=2026-03-01T10:30:00Z', 'query.from', 'shorter than an hour'],
    ['?from=2026-03-01T10:00:00Z&to=2026-03-09T10:00:00Z', 'query.from', 'longer than seven days'],
    ['?from=2026-03-02T10:00:00Z&to=2026-03-01T10:00:00Z', 'query.from', 'from after to'],
    ['?from=2026-03-01T10:00:00Z&to=2026-03-08T10:00:00Z&bucketSeconds=60', 'query.bucketSeconds', 'too many buckets'],
    ['?bucketSeconds=10', 'query.bucketSeconds', 'a bucket under a minute'],
    ['?from=yesterday', 'query.from', 'a time that is not RFC 3339'],
    ['?ip=1', 'query', 'an unknown filter'],
  ])('400 for %s (%s: %s)', async (q, name) => {
    const res = await h.call('get', hist(A, q), adminA);
    expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
  });

  it("tenant A's token cannot read tenant B's histogram, and B's rows are never in A's", async () => {
    expect((await h.call('get', hist(B, WINDOW), adminA)).status).toBe(404);
    const adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
    const res = await h.call('get', hist(B, WINDOW), adminB);
    expect(res.body.series).toEqual([
      { nheIdentifier: 'agent-a', counts: [1, 0, 0], total: 1 },
      { nheIdentifier: 'agent-z', counts: [0, 1, 0], total: 1 },
    ]);
  });

  it('needs auth.nhe.audit.list, and is read only', async () => {
    const other = await h.token(A, ['auth.users.list']);
    expect((await h.call('get', hist(A, WINDOW), other)).status).toBe(403);
    const res = await h.call('post', hist(A, WINDOW), adminA, {});
    expect(res.status).toBe(405);
  });
});
