/**
 * A trusted issuer's agents (`actors`) through the management API: its assertions' act.sub mapped to this tenant's
 * NHEs. Empty by default; each mapping must name an NHE of the same tenant (another tenant's NHE of the same
 * identifier does not count); a subject may appear once; PATCH replaces the list; responses match the OpenAPI document.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
beforeAll(async () => {
  h = await startHarness('mgmtissueractors');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  const nhe = (tenantId: number, identifier: string) =>
    h.db.models.Nhe.create({
      tenantId,
      identifier,
      type: 'llm-assistive',
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 300,
      operator: 'Org A',
    });
  await nhe(A, 'partner-orders-agent');
  await nhe(A, 'partner-billing-agent');
  // Only tenant B has this one.
  await nhe(B, 'b-only-agent');
});
afterAll(async () => h.close());

const path = (suffix = '') => `/auth/admin/tenants/${A}/trusted-issuers${suffix}`;
const org = {
  issuer: 'https://idp.org-a.example',
  jwksUri: 'https://idp.org-a.example/jwks',
  subjectMapping: 'user_id',
};

it('maps the issuer’s agents to NHEs of the tenant (none by default), and PATCH replaces the list', async () => {
  const bare = await h.call('post', path(), adminA, { ...org, issuer: 'https://idp.org-z.example' });
  expect(bare.status).toBe(201);
  expect(bare.body.actors).toEqual([]);

  const created = await h.call('post', path(), adminA, {
    ...org,
    allowAct: true,
    actors: [{ subject: 'nhe:orders-agent', nheIdentifier: 'partner-orders-agent' }],
  });
  expect(created.status).toBe(201);
  expect(created.body.actors).toEqual([{ subject: 'nhe:orders-agent', nheIdentifier: 'partner-orders-agent' }]);
  const id = created.body.id as string;
  const stored = await h.db.models.TrustedIssuer.findOne({ tenantId: A, issuer: org.issuer }).lean();
  expect(stored?.actors).toEqual([{ subject: 'nhe:orders-agent', nheIdentifier: 'partner-orders-agent' }]);

  const patched = await h.call('patch', path(`/${id}`), adminA, {
    actors: [
      { subject: 'nhe:orders-agent', nheIdentifier: 'partner-billing-agent' },
      { subject: 'spiffe://org-a.example/agents/billing', nheIdentifier: 'partner-billing-agent' },
    ],
  });
  expect(patched.status).toBe(200);
  expect(patched.body.actors).toHaveLength(2);
  expect(patched.body.allowAct).toBe(true);
  const cleared = await h.call('patch', path(`/${id}`), adminA, { actors: [] });
  expect(cleared.body.actors).toEqual([]);
  expect((await h.call('get', path(`/${id}`), adminA)).body.actors).toEqual([]);
});

it('refuses an NHE the tenant does not have (another tenant’s included), a repeated subject, and bad values', async () => {
  const existing = await h.db.models.TrustedIssuer.findOne({ tenantId: A, issuer: org.issuer }).lean();
  const bad = async (method: 'post' | 'patch', actors: unknown, field: string) => {
    const res =
      method === 'post'
        ? await h.call('post', path(), adminA, { ...org, issuer: 'https://idp.org-y.example', actors })
        : await h.call('patch', path(`/${String(existing!._id)}`), adminA, { actors });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(invalidNames(res).join(' ')).toContain(field);
  };
  await bad('post', [{ subject: 'nhe:x', nheIdentifier: 'no-such-agent' }], 'body.actors.0.nheIdentifier');
  await bad('post', [{ subject: 'nhe:x', nheIdentifier: 'b-only-agent' }], 'body.actors.0.nheIdentifier');
  await bad(
    'patch',
    [
      { subject: 'nhe:x', nheIdentifier: 'partner-orders-agent' },
      { subject: 'nhe:y', nheIdentifier: 'b-only-agent' },
    ],
    'body.actors.1.nheIdentifier',
  );
  await bad(
    'post',
    [
      { subject: 'nhe:x', nheIdentifier: 'partner-orders-agent' },
      { subject: 'nhe:x', nheIdentifier: 'partner-billing-agent' },
    ],
    'body.actors',
  );
  await bad('post', [{ subject: '', nheIdentifier: 'partner-orders-agent' }], 'body.actors');
  await bad('post', [{ subject: 'x'.repeat(1025), nheIdentifier: 'partner-orders-agent' }], 'body.actors');
  await bad('post', [{ subject: 'nhe:x', nheIdentifier: 'has space' }], 'body.actors');
  await bad('post', [{ subject: 'nhe:x', nheIdentifier: 'partner-orders-agent', extra: 1 }], 'body.actors');
  // Nothing was stored by the refused requests.
  expect(await h.db.models.TrustedIssuer.exists({ tenantId: A, issuer: 'https://idp.org-y.example' })).toBeNull();
  const after = await h.db.models.TrustedIssuer.findOne({ tenantId: A, issuer: org.issuer }).lean();
  expect(after?.actors).toEqual([]);
});
