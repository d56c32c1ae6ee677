/**
 * The identity fields oidc-core releases as claims (external_groups, identity_provider, linked_identity,
 * provider_claims, federated_identities, custom_claims, GA4GH visas): set on create, replaced and removed by PATCH,
 * read back by GET and the list, stored under the names oidc-core's claims code reads, and refused with the failing
 * field path when malformed. Every response is validated against the OpenAPI document.
 */
import { decodeJwt } from 'jose';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { userClaims } from '../../oidc-core/src/domain/claims-user';
import { PassportSigner } from '../../oidc-core/src/provider/claims-passport';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
beforeAll(async () => {
  h = await startHarness('mgmtuserclaims');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const u = (tenantId: number, rest = '') => `/auth/admin/tenants/${tenantId}/users${rest}`;

const visa = {
  type: 'ControlledAccessGrants',
  value: 'https://dac.example/datasets/710',
  source: 'https://dac.example',
  by: 'dac',
  asserted: 1_700_000_000,
  conditions: [[{ type: 'AffiliationAndRole', value: 'const:faculty@uni.example', by: 'const:so' }]],
};
const full = {
  claims: { name: 'Dana Scully', email: 'dana@example.com', email_verified: true },
  externalGroups: ['fbi-x-files', 'pathology'],
  identityProvider: 'google',
  linkedIdentity: { provider: 'https://accounts.google.com', subject: '1098765' },
  providerClaims: { hd: 'example.com', locale: 'en', nested: { list: [1, 'two', { deep: null }] } },
  federatedIdentities: [{ era_commons: { firstname: 'Dana', lastname: 'Scully', userid: 'DSCULLY' } }],
  customClaims: { employee_number: 'E-42', cost_centre: { id: 7 } },
  ga4ghVisas: [
    visa,
    {
      type: 'AcceptedTermsAndPolicies',
      value: 'https://ga4gh.example/terms',
      source: 'https://uni.example',
      asserted: 1_600_000_000,
    },
  ],
};
const IDENTITY_FIELDS = [
  'externalGroups',
  'identityProvider',
  'linkedIdentity',
  'providerClaims',
  'federatedIdentities',
  'customClaims',
  'ga4ghVisas',
] as const;

describe('identity fields of users', () => {
  let id: string;

  it('create stores every field and returns it; GET and the list return the same', async () => {
    const res = await h.call('post', u(A), adminA, { username: 'dana', password: 'trust no one, ever', ...full });
    expect(res.status).toBe(201);
    id = res.body.id;
    expect(res.body).toMatchObject({ username: 'dana', ...full });
    const got = await h.call('get', u(A, `/${id}`), adminA);
    expect(got.status).toBe(200);
    for (const k of [...IDENTITY_FIELDS, 'claims'] as const) expect([k, got.body[k]]).toEqual([k, full[k]]);
    const listed = await h.call('get', u(A, '?usernamePrefix=dana'), adminA);
    expect(listed.body.items).toEqual([got.body]);
  });

  it('stores them under the names oidc-core reads: the claims come out of the claims code', async () => {
    const stored = (await h.db.models.User.findById(id).lean())!;
    expect(stored.customClaims).toEqual(full.customClaims);
    // Visa conditions (a list of lists) are stored in a form FerretDB accepts; the signed visa has them as sent.
    expect(stored.ga4ghVisas![0]!.conditions).toEqual([{ all: visa.conditions[0] }]);
    const passport = await new PassportSigner((await h.keyStore.load(A)).signing).passport(
      'https://idp.test/auth/1',
      id,
      stored.ga4ghVisas!,
      60,
    );
    expect(passport.map((jwt) => decodeJwt(jwt).ga4gh_visa_v1)).toEqual(full.ga4ghVisas);
    const claims = userClaims({
      sub: id,
      issuer: 'https://idp.test/auth/1',
      tenant: { id: A, name: 'a' },
      user: stored,
      amr: ['pwd'],
      legacyRoleCompatibility: false,
    });
    expect(claims).toMatchObject({
      name: 'Dana Scully',
      email: 'dana@example.com',
      external_groups: full.externalGroups,
      identity_provider: 'google',
      linked_identity: full.linkedIdentity,
      provider_claims: full.providerClaims,
      federated_identities: { identities: full.federatedIdentities },
    });
  });

  it('a user created without them has none (and no empty defaults)', async () => {
    const res = await h.call('post', u(A), adminA, { username: 'plain' });
    expect(res.status).toBe(201);
    for (const k of IDENTITY_FIELDS) expect([k, res.body[k]]).toEqual([k, undefined]);
    const stored = (await h.db.models.User.findById(res.body.id).lean())!;
    for (const k of IDENTITY_FIELDS) expect([k, stored[k]]).toEqual([k, undefined]);
  });

  it('PATCH replaces the fields given, keeps the others, and null removes a field', async () => {
    const res = await h.call('patch', u(A, `/${id}`), adminA, {
      externalGroups: ['lab'],
      customClaims: { employee_number: 'E-43' },
      identityProvider: null,
      linkedIdentity: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      externalGroups: ['lab'],
      customClaims: { employee_number: 'E-43' },
      providerClaims: full.providerClaims,
      ga4ghVisas: full.ga4ghVisas,
      claims: full.claims,
    });
    expect(res.body.identityProvider).toBeUndefined();
    expect(res.body.linkedIdentity).toBeUndefined();
    const stored = (await h.db.models.User.findById(id).lean())!;
    expect([stored.identityProvider, stored.linkedIdentity, stored.externalGroups]).toEqual([
      undefined,
      undefined,
      ['lab'],
    ]);
    expect((await h.call('get', u(A, `/${id}`), adminA)).body).toEqual(res.body);
    expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'user', id });
    // Nothing about the values in the write log (only field names).
    const line = h.logs.filter((l) => l.includes('updateUser')).pop()!;
    expect(line).toContain('externalGroups');
    expect(line).not.toContain('E-43');
    // An empty PATCH changes nothing.
    const empty = await h.call('patch', u(A, `/${id}`), adminA, {});
    expect([empty.status, { ...empty.body, updatedAt: 0 }]).toEqual([200, { ...res.body, updatedAt: 0 }]);
  });

  it('an empty list is kept as given (federated_identities is then released empty)', async () => {
    const res = await h.call('patch', u(A, `/${id}`), adminA, { federatedIdentities: [], ga4ghVisas: [] });
    expect([res.status, res.body.federatedIdentities, res.body.ga4ghVisas]).toEqual([200, [], []]);
  });

  it('another tenant cannot read or change them', async () => {
    expect((await h.call('get', u(B, `/${id}`), adminB)).status).toBe(404);
    expect((await h.call('patch', u(B, `/${id}`), adminB, { externalGroups: ['x'] })).status).toBe(404);
    expect((await h.call('patch', u(A, `/${id}`), adminB, { externalGroups: ['x'] })).status).toBe(404);
    expect((await h.db.models.User.findById(id).lean())!.externalGroups).toEqual(['lab']);
  });

  it('refuses malformed values naming every failing field path', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ externalGroups: 'admins' }, ['body.externalGroups']],
      [{ externalGroups: ['ok', '', 7] }, ['body.externalGroups.1', 'body.externalGroups.2']],
      [{ identityProvider: '' }, ['body.identityProvider']],
      [{ identityProvider: 'goo\ngle' }, ['body.identityProvider']],
      [{ linkedIdentity: { provider: 'google' } }, ['body.linkedIdentity.subject']],
      [{ linkedIdentity: { provider: 'google', subject: '1', extra: true } }, ['body.linkedIdentity']],
      [{ providerClaims: ['not', 'an', 'object'] }, ['body.providerClaims']],
      [{ providerClaims: { 'a.b': 1 } }, ['body.providerClaims.a.b']],
      [
        { providerClaims: { ok: { $where: 'x', 'c.d': 2 } } },
        ['body.providerClaims.ok.$where', 'body.providerClaims.ok.c.d'],
      ],
      [{ providerClaims: { matrix: [[1, 2]], ok: [{ inner: [3] }] } }, ['body.providerClaims.matrix.0']],
      [
        { claims: { name: 'x', grid: [['a']], nested: { 'e.f': 1 } } },
        ['body.claims.grid.0', 'body.claims.nested.e.f'],
      ],
      [{ customClaims: { big: 'x'.repeat(17_000) } }, ['body.customClaims']],
      [
        { customClaims: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } },
        ['body.customClaims.a.b.c.d.e.f.g.h'],
      ],
      [{ federatedIdentities: { identities: [] } }, ['body.federatedIdentities']],
      [
        { federatedIdentities: [{ ok: 1 }, 'x', { 'e.f': 1 }] },
        ['body.federatedIdentities.1', 'body.federatedIdentities.2.e.f'],
      ],
      [{ ga4ghVisas: [{ ...visa, type: undefined }] }, ['body.ga4ghVisas.0.type']],
      [{ ga4ghVisas: [{ ...visa, by: 'someone' }] }, ['body.ga4ghVisas.0.by']],
      [{ ga4ghVisas: [{ ...visa, asserted: Date.now() }] }, ['body.ga4ghVisas.0.asserted']],
      [{ ga4ghVisas: [{ ...visa, asserted: 1.5 }] }, ['body.ga4ghVisas.0.asserted']],
      [{ ga4ghVisas: [{ ...visa, source: 'not a uri' }] }, ['body.ga4ghVisas.0.source']],
      [{ ga4ghVisas: [{ ...visa, value: 'v'.repeat(256) }] }, ['body.ga4ghVisas.0.value']],
      [
        { ga4ghVisas: [{ ...visa, conditions: [[{ type: 'AffiliationAndRole' }]] }] },
        ['body.ga4ghVisas.0.conditions.0.0'],
      ],
      [{ ga4ghVisas: [{ ...visa, extra: 1 }] }, ['body.ga4ghVisas.0']],
    ];
    for (const [fields, names] of cases) {
      const created = await h.call('post', u(A), adminA, { username: 'bad-one', ...fields });
      expect([JSON.stringify(fields).slice(0, 80), created.status, invalidNames(created).sort()]).toEqual([
        JSON.stringify(fields).slice(0, 80),
        400,
        [...names].sort(),
      ]);
      expect(created.body.type).toMatch(/validation-error$/);
      const patched = await h.call('patch', u(A, `/${id}`), adminA, fields);
      expect([patched.status, invalidNames(patched).sort()]).toEqual([400, [...names].sort()]);
    }
    // create does not take null (nothing to remove)
    expect(invalidNames(await h.call('post', u(A), adminA, { username: 'bad-one', identityProvider: null }))).toEqual([
      'body.identityProvider',
    ]);
    expect(await h.db.models.User.exists({ tenantId: A, username: 'bad-one' })).toBeNull();
    // the reason says what is wrong
    const dotted = await h.call('post', u(A), adminA, { username: 'bad-one', providerClaims: { 'a.b': 1 } });
    expect(dotted.body.invalid_params[0].reason).toMatch(/dots/);
    // values (not keys) may start with $ or hold dots
    const dollars = await h.call('post', u(A), adminA, {
      username: 'dollars',
      claims: { nickname: '$5.00' },
      customClaims: { price: '$5.00' },
    });
    expect([dollars.status, dollars.body.claims, dollars.body.customClaims]).toEqual([
      201,
      { nickname: '$5.00' },
      { price: '$5.00' },
    ]);
    // nothing changed by the refused PATCHes
    expect((await h.db.models.User.findById(id).lean())!.externalGroups).toEqual(['lab']);
  });
});
