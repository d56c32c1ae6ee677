/**
 * Phishing-resistant delegation in the management API: a delegation policy's phishingResistantSignInMaxAgeMinutes and
 * the tenant default settings.nhe.phishingResistantSignInMaxAgeMinutes (validation as RFC 9457 problem+json naming the
 * field), and the dry run explaining a refusal or a grant from the sign-in it is given (acr, age). Against a real
 * database; every response validated against the OpenAPI document.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let admin: string;
let nheId: string;
let otherNheId: string;
let userId: string;
let policyId: string;
const base = () => `/auth/admin/tenants/${A}/non-human-entities`;
const pol = (rest = '') => `${base()}/${nheId}/delegation-policies${rest}`;
const NEEDS_10 = 'this delegation needs a phishing-resistant sign-in (passkey) within the last 10 minutes';

beforeAll(async () => {
  h = await startHarness('mgmtphr');
  A = h.tenants.a;
  admin = await h.token(A, [...MANAGEMENT_SCOPES]);
  const make = async (identifier: string) =>
    (
      await h.call('post', base(), admin, {
        identifier,
        type: 'llm-assistive',
        allowedScopes: ['orders:read'],
        operator: 'ops',
      })
    ).body.id as string;
  nheId = await make('phr-agent');
  otherNheId = await make('phr-upstream-agent');
  const role = await h.db.models.Role.create({
    tenantId: A,
    name: 'orders',
    resourceServer: 'https://orders.example',
    permissions: ['orders:read'],
  });
  userId = String(
    (await h.db.models.User.create({ tenantId: A, username: 'u', passwordHash: 'x', roleIds: [String(role._id)] }))._id,
  );
  await h.db.models.ResourceServer.create({
    tenantId: A,
    identifier: 'https://orders.example',
    name: 'orders',
    scopes: ['orders:read'],
    config: { accessToken: { lifetime: 600 }, nhe: { acceptDelegationTokens: true } },
  });
  await h.db.models.Client.create({
    tenantId: A,
    numericId: A * 10,
    clientId: 'app',
    name: 'app',
    firstParty: true,
    config: { nhe: { delegationEnabled: true } },
  });
  const enabled = await h.call('patch', `/auth/admin/tenants/${A}`, admin, { settings: { nhe: { enabled: true } } });
  expect(enabled.status).toBe(200);
});
afterAll(async () => h.close());

describe('the policy field', () => {
  it('is absent by default; a user policy takes minutes and returns them', async () => {
    const res = await h.call('post', pol(), admin, {
      target: { type: 'user', id: userId },
      allowedScopes: ['orders:read'],
      phishingResistantSignInMaxAgeMinutes: 10,
    });
    expect(res.status).toBe(201);
    expect(res.body.phishingResistantSignInMaxAgeMinutes).toBe(10);
    policyId = res.body.id;
    const stored = await h.db.models.DelegationPolicy.findById(policyId).lean();
    expect(stored?.phishingResistantSignInMaxAgeMinutes).toBe(10);
  });

  it.each([
    ['negative', -1],
    ['above a day', 1441],
    ['not an integer', 2.5],
    ['not a number', '10'],
  ])('400 problem+json naming the field when it is %s', async (_label, value) => {
    const res = await h.call('patch', pol(`/${policyId}`), admin, { phishingResistantSignInMaxAgeMinutes: value });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(invalidNames(res)).toEqual(['body.phishingResistantSignInMaxAgeMinutes']);
  });

  it('400 for a hand-on policy (NHE target): there is no user sign-in to check', async () => {
    const res = await h.call('post', pol(), admin, {
      target: { type: 'nhe', id: otherNheId },
      allowedScopes: ['orders:read'],
      maxChainDepth: 2,
      phishingResistantSignInMaxAgeMinutes: 5,
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.invalid_params).toEqual([
      { name: 'body.phishingResistantSignInMaxAgeMinutes', reason: 'must be absent or 0 for an NHE target' },
    ]);
    // 0 (no requirement) is fine on a hand-on policy.
    const zero = await h.call('post', pol(), admin, {
      target: { type: 'nhe', id: otherNheId },
      allowedScopes: ['orders:read'],
      maxChainDepth: 2,
      phishingResistantSignInMaxAgeMinutes: 0,
    });
    expect(zero.status).toBe(201);
  });
});

describe('the dry run explains the requirement from the sign-in it is given', () => {
  const sim = (signIn?: Record<string, unknown>) =>
    h.call('post', `${base()}/${nheId}/delegation-simulations`, admin, {
      userId,
      clientId: 'app',
      resource: 'https://orders.example',
      scope: 'orders:read',
      ...(signIn ? { signIn } : {}),
    });

  it('no sign-in given: refused, naming the requirement', async () => {
    const res = await sim();
    expect(res.status).toBe(200);
    expect(res.body.decision).toEqual({
      outcome: 'denied',
      error: 'access_denied',
      gate: 'sign-in-not-phishing-resistant',
      description: `${NEEDS_10}; the user's sign-in is not stated (no acr): sign the user in again with a passkey`,
      signIn: { maxAgeMinutes: 10, setBy: 'policy', met: false },
    });
  });

  it('a password sign-in is refused; a passkey sign-in 4 minutes ago is granted; 12 minutes ago is too old', async () => {
    expect((await sim({ acr: 'urn:idp:acr:pwd', ageMinutes: 1 })).body.decision).toMatchObject({
      outcome: 'denied',
      gate: 'sign-in-not-phishing-resistant',
      signIn: { acr: 'urn:idp:acr:pwd', ageSeconds: 60, met: false },
    });
    expect((await sim({ acr: 'phr', ageMinutes: 4 })).body.decision).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read'],
      signIn: { maxAgeMinutes: 10, setBy: 'policy', acr: 'phr', ageSeconds: 240, met: true },
    });
    expect((await sim({ acr: 'phrh', ageMinutes: 12 })).body.decision).toMatchObject({
      outcome: 'denied',
      error: 'access_denied',
      gate: 'sign-in-too-old',
      description: `${NEEDS_10}; the user signed in 12 minutes ago: sign the user in again with a passkey`,
    });
  });

  it('400 problem+json for a malformed sign-in', async () => {
    const res = await sim({ acr: 'phr', ageMinutes: -1 });
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toEqual(['body.signIn.ageMinutes']);
    expect(invalidNames(await sim({ acr: 'phr', when: 'now' }))).toEqual(['body.signIn']);
  });

  it("null removes the policy's value: the tenant default applies (setBy tenant), 0 by default (granted)", async () => {
    const patched = await h.call('patch', pol(`/${policyId}`), admin, { phishingResistantSignInMaxAgeMinutes: null });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('phishingResistantSignInMaxAgeMinutes');
    const plain = await sim({ acr: 'urn:idp:acr:pwd', ageMinutes: 600 });
    expect(plain.body.decision).toMatchObject({ outcome: 'granted' });
    expect(plain.body.decision).not.toHaveProperty('signIn');

    const tenant = await h.call('patch', `/auth/admin/tenants/${A}`, admin, {
      settings: { nhe: { phishingResistantSignInMaxAgeMinutes: 30 } },
    });
    expect(tenant.status).toBe(200);
    expect(tenant.body.settings.nhe.phishingResistantSignInMaxAgeMinutes).toBe(30);
    expect((await sim({ acr: 'phr', ageMinutes: 20 })).body.decision).toMatchObject({
      outcome: 'granted',
      signIn: { maxAgeMinutes: 30, setBy: 'tenant', met: true },
    });
    expect((await sim({ acr: 'urn:idp:acr:mfa', ageMinutes: 1 })).body.decision).toMatchObject({
      outcome: 'denied',
      gate: 'sign-in-not-phishing-resistant',
      signIn: { setBy: 'tenant' },
    });
  });

  it('the tenant default is validated (problem+json naming the setting)', async () => {
    const res = await h.call('patch', `/auth/admin/tenants/${A}`, admin, {
      settings: { nhe: { phishingResistantSignInMaxAgeMinutes: 5000 } },
    });
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toEqual(['body.settings.nhe.phishingResistantSignInMaxAgeMinutes']);
  });
});
