import type { UpstreamProviderDoc } from '@idp/db';
import { ACR_FEDERATED, AMR_FEDERATED, mapProfile, valueAt, type UpstreamAssertion } from './mappers';

const provider: Pick<UpstreamProviderDoc, 'alias' | 'mappers' | 'amrMap' | 'acrMap'> = {
  alias: 'corp',
  mappers: [
    { source: 'groups', target: 'externalGroups' },
    { source: 'realm_access.roles', target: 'externalGroups' },
    { source: 'groups', target: 'groups', values: [{ upstream: 'engineering', local: 'engineers' }] },
    { source: 'department', target: 'customClaims', claim: 'department' },
    { source: 'given_name', target: 'claim', claim: 'given_name' },
    { source: 'preferred_username', target: 'username' },
    { source: 'email', target: 'providerClaims' },
  ],
  amrMap: [
    { upstream: 'pwd', amr: ['pwd'] },
    { upstream: 'otp', amr: ['otp', 'mfa'] },
  ],
  acrMap: [{ upstream: 'gold', acr: 'urn:idp:acr:mfa' }],
};

const assertion = (claims: Record<string, unknown>, amr: string[] = [], acr?: string): UpstreamAssertion => ({
  issuer: 'https://corp.example',
  subject: 'u-1',
  claims,
  amr,
  ...(acr ? { acr } : {}),
});

describe('mapProfile', () => {
  it('maps claims, SAML attribute lists and dot paths, and keeps the raw authentication facts', () => {
    const m = mapProfile(
      provider,
      assertion(
        {
          groups: ['engineering', 'finance'],
          realm_access: { roles: ['admin'] },
          department: ['R&D'],
          given_name: 'Alice',
          preferred_username: 'alice',
          email: 'alice@corp.example',
          nonce: 'n',
        },
        ['pwd', 'otp'],
        'gold',
      ),
    );
    expect(m.externalGroups).toEqual(['engineering', 'finance', 'admin']);
    expect(m.groups).toEqual(['engineers']);
    expect(m.customClaims).toEqual({ department: 'R&D' });
    expect(m.claims).toEqual({ given_name: 'Alice' });
    expect(m.username).toBe('alice');
    expect(m.providerClaims).toEqual({
      iss: 'https://corp.example',
      sub: 'u-1',
      amr: ['pwd', 'otp'],
      acr: 'gold',
      email: 'alice@corp.example',
    });
    expect([m.identityProvider, m.linkedIdentity]).toEqual(['corp', { provider: 'corp', subject: 'u-1' }]);
    expect([m.amr, m.acr]).toEqual([['pwd', 'otp', 'mfa', AMR_FEDERATED], 'urn:idp:acr:mfa']);
  });

  it('a value upstream stopped asserting maps to nothing, so the next sign-in removes it', () => {
    const m = mapProfile(provider, assertion({ groups: ['finance'] }));
    expect(m.externalGroups).toEqual(['finance']);
    expect(m.groups).toEqual([]);
    expect(m.customClaims).toEqual({ department: undefined });
    expect(m.claims).toEqual({ given_name: undefined });
  });

  it('never claims more than upstream asserted: unmapped amr and acr record nothing', () => {
    const m = mapProfile(provider, assertion({}, ['face', 'hwk'], 'platinum'));
    expect(m.amr).toEqual([AMR_FEDERATED]);
    expect(m.acr).toBe(ACR_FEDERATED);
  });

  it('providerClaims `*` copies every claim but one-time protocol values', () => {
    const m = mapProfile(
      { ...provider, mappers: [{ source: '*', target: 'providerClaims' }] },
      assertion({ tid: 't', oid: 'o', nonce: 'n', at_hash: 'h', aud: 'x' }),
    );
    expect(m.providerClaims).toEqual({ iss: 'https://corp.example', sub: 'u-1', tid: 't', oid: 'o' });
  });
});

test('claim names the store cannot keep (dots, a leading $) are kept with those characters replaced', () => {
  const m = mapProfile(
    { ...provider, mappers: [{ source: '*', target: 'providerClaims' }] },
    assertion({
      'urn:oid:0.9.2342.19200300.100.1.3': ['a@b.example'],
      nested: { 'https://x.example/r': 1, $where: 2 },
    }),
  );
  expect(m.providerClaims).toMatchObject({
    'urn:oid:0_9_2342_19200300_100_1_3': ['a@b.example'],
    nested: { 'https://x_example/r': 1, _where: 2 },
  });
});

test('valueAt reads a claim with dots in its name before a path', () => {
  expect(valueAt({ 'a.b': 1, a: { b: 2 } }, 'a.b')).toBe(1);
  expect(valueAt({ a: { b: 2 } }, 'a.b')).toBe(2);
  expect(valueAt({ a: [1] }, 'a.0')).toBeUndefined();
});
