/**
 * A trusted issuer's Shared Signals subscription (revocation across organisations) through the management API: the
 * client secret is write-only and stored sealed with the key-encryption key, bound to the tenant and the issuer; a
 * PATCH that leaves it out keeps it (for the same client only); null ends the subscription; bad settings are
 * problem+json naming the field.
 */
import { trustedIssuerSecretAad } from '@idp/db';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let admin: string;
beforeAll(async () => {
  h = await startHarness('mgmtissuersignals');
  ({ a: A } = h.tenants);
  admin = await h.token(A, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const issuers = () => `/auth/admin/tenants/${A}/trusted-issuers`;
const partner = {
  issuer: 'https://idp.signals-partner.example/auth/7',
  jwksUri: 'https://idp.signals-partner.example/auth/7/jwks',
  subjectMapping: 'user_id',
};
const stored = async () =>
  (await h.db.models.TrustedIssuer.findOne({ tenantId: A, issuer: partner.issuer }).lean())!.signals;

it('stores the subscription with its secret sealed, never returns the secret, keeps it across a PATCH, ends it with null', async () => {
  const res = await h.call('post', issuers(), admin, {
    ...partner,
    signals: { clientId: 'b-at-a-ssf', clientSecret: 'first-secret' },
  });
  expect(res.status).toBe(201);
  expect(res.body.signals).toEqual({
    enabled: true,
    clientId: 'b-at-a-ssf',
    clientSecretSet: true,
    pollIntervalSeconds: 5,
  });
  expect(JSON.stringify(res.body)).not.toContain('first-secret');
  const id = res.body.id as string;
  const first = (await stored())!;
  expect(first.clientSecretSealed).not.toContain('first-secret');
  expect(h.keyStore.kek.decrypt(first.clientSecretSealed!, trustedIssuerSecretAad(A, partner.issuer))).toBe(
    'first-secret',
  );
  // Sealed for this tenant and issuer: another binding does not open it.
  expect(() =>
    h.keyStore.kek.decrypt(first.clientSecretSealed!, trustedIssuerSecretAad(A + 1, partner.issuer)),
  ).toThrow();

  // Same client, no secret: kept; another interval.
  const kept = await h.call('patch', `${issuers()}/${id}`, admin, {
    signals: { enabled: false, clientId: 'b-at-a-ssf', pollIntervalSeconds: 30 },
  });
  expect(kept.status).toBe(200);
  expect(kept.body.signals).toEqual({
    enabled: false,
    clientId: 'b-at-a-ssf',
    clientSecretSet: true,
    pollIntervalSeconds: 30,
  });
  expect((await stored())!.clientSecretSealed).toBe(first.clientSecretSealed);
  expect((await h.call('get', `${issuers()}/${id}`, admin)).body.signals.clientSecretSet).toBe(true);

  // Another client without a secret: the stored one belongs to the old client.
  const other = await h.call('patch', `${issuers()}/${id}`, admin, { signals: { clientId: 'another-client' } });
  expect(other.status).toBe(400);
  expect(invalidNames(other)).toContain('body.signals.clientSecret');

  const rotated = await h.call('patch', `${issuers()}/${id}`, admin, {
    signals: { clientId: 'another-client', clientSecret: 'second-secret' },
  });
  expect(rotated.status).toBe(200);
  expect(h.keyStore.kek.decrypt((await stored())!.clientSecretSealed!, trustedIssuerSecretAad(A, partner.issuer))).toBe(
    'second-secret',
  );

  const ended = await h.call('patch', `${issuers()}/${id}`, admin, { signals: null });
  expect(ended.status).toBe(200);
  expect(ended.body.signals).toBeUndefined();
  expect(await stored()).toBeUndefined();
  expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'tenant', id: String(A) });
});

it('refuses an incomplete or out-of-range subscription with a problem naming the field', async () => {
  const bad = async (issuer: string, signals: object, field: string) => {
    const res = await h.call('post', issuers(), admin, { ...partner, issuer, signals });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(invalidNames(res).join(' ')).toContain(field);
    expect(await h.db.models.TrustedIssuer.countDocuments({ tenantId: A, issuer })).toBe(0);
  };
  const issuer = 'https://idp.other-partner.example';
  await bad(issuer, { clientId: 'c' }, 'body.signals.clientSecret');
  await bad(issuer, { clientId: 'c', clientSecret: 's', pollIntervalSeconds: 0 }, 'body.signals.pollIntervalSeconds');
  await bad(issuer, { clientId: 'c', clientSecret: 's', pollIntervalSeconds: 301 }, 'body.signals.pollIntervalSeconds');
  await bad(issuer, { clientId: 'has space', clientSecret: 's' }, 'body.signals.clientId');
  await bad(issuer, { clientId: 'c', clientSecret: 's', extra: 1 }, 'body.signals');
  // Discovery of the transmitter starts from the issuer identifier: it must be a URL this service may reach.
  await bad('urn:example:partner', { clientId: 'c', clientSecret: 's' }, 'body.signals');
});
