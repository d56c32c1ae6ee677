import { audienceKey, isReservedScope, reservedAudienceOf } from './reserved-identifiers';

describe('reserved audiences', () => {
  it.each([
    'urn:idp:management',
    'urn:IDP:management',
    'URN:idp:MANAGEMENT',
    'urn:idp:management/',
    'urn:idp:management?',
    'urn:idp:management#',
    'urn:idp:management/?#',
    'urn:idp:%6Danagement',
    ' urn:idp:management ',
  ])('%j is the management audience', (v) => {
    expect(reservedAudienceOf(v)).toBe('urn:idp:management');
  });

  it.each([
    'urn:idp:management-2',
    'urn:idp:management:orders',
    'urn:idp:manage',
    'https://idp.example/management',
    'urn:idp:management/x',
    'urn:idp:management?x=1',
  ])('%j is not', (v) => {
    expect(reservedAudienceOf(v)).toBeUndefined();
  });

  it('normalises hierarchical URIs (scheme and host case, default port, dot segments, trailing slash, empty query)', () => {
    const key = audienceKey('https://api.example/orders');
    for (const v of [
      'HTTPS://API.Example/orders',
      'https://api.example:443/orders/',
      'https://api.example/x/../orders?',
      'https://api.example/orders#',
    ])
      expect(audienceKey(v)).toBe(key);
    expect(audienceKey('https://api.example/orders2')).not.toBe(key);
  });
});

describe('reserved scopes', () => {
  it("the auth. prefix, in any case, is the management API's", () => {
    for (const s of ['auth.users.update', 'auth.anything', 'AUTH.users.update', 'Auth.x'])
      expect(isReservedScope(s)).toBe(true);
    for (const s of ['orders:read', 'authz.read', 'oauth.read', 'auth', 'x.auth.y'])
      expect(isReservedScope(s)).toBe(false);
  });
});
