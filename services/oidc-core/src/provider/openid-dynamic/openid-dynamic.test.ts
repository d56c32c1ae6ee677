import { dynamicProfileConfiguration, isIdTokenResponseType, openidDynamicProfileOn } from './profile';
import { pkceRequired, REQUIRE_PKCE_METADATA, validatePkceChoice } from './client-choices';
import { unverifiedPayload } from './authorization-requests';
import { httpsUrl, registeredClientPresentation } from './client-presentation';
import { pageCsp } from '../../views/pages';

describe('openidDynamicProfileOn', () => {
  const tenant = (settings: Record<string, unknown>, system = false) => ({ settings, system }) as never;
  it('is off by default, on when enabled, never with FAPI 2.0 or in the system tenant', () => {
    expect(openidDynamicProfileOn(tenant({}))).toBe(false);
    expect(openidDynamicProfileOn(tenant({ openidDynamicProfile: { enabled: true } }))).toBe(true);
    expect(
      openidDynamicProfileOn(tenant({ openidDynamicProfile: { enabled: true }, security: { profile: 'fapi2' } })),
    ).toBe(false);
    expect(openidDynamicProfileOn(tenant({ openidDynamicProfile: { enabled: true } }, true))).toBe(false);
  });
});

describe('dynamicProfileConfiguration', () => {
  it('off: the code flow only, no request objects, no signed UserInfo', () => {
    expect(dynamicProfileConfiguration(false)).toEqual({
      responseTypes: ['code'],
      features: { requestObjects: { enabled: false }, jwtUserinfo: { enabled: false } },
      enabledJWA: {},
    });
  });
  it('on: signed request objects with asymmetric algorithms only', () => {
    const c = dynamicProfileConfiguration(true);
    expect(c.responseTypes).toEqual(['code', 'id_token', 'id_token token']);
    expect(c.enabledJWA.requestObjectSigningAlgValues).not.toContain('none');
    expect(c.enabledJWA.requestObjectSigningAlgValues?.some((a) => a.startsWith('HS'))).toBe(false);
    expect(c.enabledJWA.userinfoSigningAlgValues).toEqual(['ES256', 'RS256']);
  });
  it.each([
    ['id_token', true],
    ['id_token token', true],
    ['code id_token', true],
    ['code', false],
    [undefined, false],
  ])('isIdTokenResponseType(%j) is %s', (rt, expected) => expect(isIdTokenResponseType(rt)).toBe(expected));
});

describe('validatePkceChoice', () => {
  const run = (metadata: Record<string, unknown>, o: Parameters<typeof validatePkceChoice>[1]) => {
    validatePkceChoice(metadata, o);
    return metadata[REQUIRE_PKCE_METADATA];
  };
  const registering = { profile: true, registering: true, selfIntroduced: 'dynamic' as const };
  it('records a confidential client choice under the profile, false when none is sent', () => {
    expect(run({ token_endpoint_auth_method: 'private_key_jwt' }, registering)).toBe(false);
    expect(run({ token_endpoint_auth_method: 'private_key_jwt', [REQUIRE_PKCE_METADATA]: true }, registering)).toBe(
      true,
    );
  });
  it('ignores any value outside the profile (no refusal that registration did not have before)', () => {
    expect(run({ [REQUIRE_PKCE_METADATA]: 'no' }, { ...registering, profile: false })).toBeUndefined();
  });
  it('drops it for a public client, outside the profile and for a metadata document', () => {
    expect(run({ token_endpoint_auth_method: 'none', [REQUIRE_PKCE_METADATA]: false }, registering)).toBeUndefined();
    const sent = { token_endpoint_auth_method: 'private_key_jwt', [REQUIRE_PKCE_METADATA]: false };
    expect(run({ ...sent }, { ...registering, profile: false })).toBeUndefined();
    expect(
      run({ ...sent }, { profile: true, registering: false, selfIntroduced: 'metadata_document' }),
    ).toBeUndefined();
  });
  it('keeps what a stored registered client has when it is loaded', () =>
    expect(
      run(
        { token_endpoint_auth_method: 'private_key_jwt', [REQUIRE_PKCE_METADATA]: false },
        { profile: true, registering: false, selfIntroduced: 'dynamic' },
      ),
    ).toBe(false));
  it('refuses a non-boolean', () =>
    expect(() => run({ [REQUIRE_PKCE_METADATA]: 'no' }, registering)).toThrow(
      expect.objectContaining({
        error: 'invalid_client_metadata',
        error_description: expect.stringMatching(/boolean/),
      }),
    ));
});

describe('pkceRequired', () => {
  const dyn = { clientAuthMethod: 'private_key_jwt', idp_registration: 'dynamic', idp_pkce_required: true };
  it('lets a registered confidential client that chose so go without, only under the profile', () => {
    expect(pkceRequired(true, { ...dyn, [REQUIRE_PKCE_METADATA]: false })).toBe(false);
    expect(pkceRequired(false, { ...dyn, [REQUIRE_PKCE_METADATA]: false })).toBe(true);
    expect(pkceRequired(true, dyn)).toBe(true);
    expect(pkceRequired(true, { ...dyn, clientAuthMethod: 'none', [REQUIRE_PKCE_METADATA]: false })).toBe(true);
    expect(pkceRequired(true, { ...dyn, idp_registration: undefined, [REQUIRE_PKCE_METADATA]: false })).toBe(true);
  });
});

describe('unverifiedPayload', () => {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  it('reads a compact JWS or unsecured JWT, nothing else', () => {
    expect(unverifiedPayload(`${b64({ alg: 'none' })}.${b64({ response_mode: 'form_post' })}.`)).toEqual({
      response_mode: 'form_post',
    });
    expect(unverifiedPayload('a.b')).toBeUndefined();
    expect(unverifiedPayload(`x.${b64([1])}.y`)).toBeUndefined();
    expect(unverifiedPayload('x.%%%.y')).toBeUndefined();
  });
});

describe('registeredClientPresentation', () => {
  it('keeps https URLs only', () => {
    expect(
      registeredClientPresentation({
        logoUri: 'https://cdn.example.com/l.png',
        policyUri: 'http://example.com/p',
        tosUri: 'javascript:alert(1)',
      }),
    ).toEqual({ logoUri: 'https://cdn.example.com/l.png' });
    expect(httpsUrl('https://u:p@example.com/')).toBeUndefined();
    // Hosts the URL parser takes that are no host name: a CSP wildcard, or no valid source.
    for (const u of ['https://*/l.png', 'https://*.example.com/l.png', 'https://a;b.example/l.png'])
      expect(httpsUrl(u)).toBeUndefined();
    expect(httpsUrl('https://[::1]/l.png')).toBe('https://[::1]/l.png');
    expect(httpsUrl(42)).toBeUndefined();
    expect(registeredClientPresentation(undefined)).toEqual({});
  });
});

describe('pageCsp images', () => {
  it('names exactly the logo URL without its query, and never a wildcard host', () => {
    expect(pageCsp({ images: ['https://cdn.example.com/l.png?a=1'] })).toContain(
      "img-src 'self' data: https://cdn.example.com/l.png;",
    );
    expect(pageCsp({ images: ['https://*/l.png', 'https://*.example.com/l.png'] })).toContain("img-src 'self' data:;");
    expect(pageCsp({ images: ["https://cdn.example.com/a;b,c'd.png"] })).toContain(
      "img-src 'self' data: https://cdn.example.com/a%3Bb%2Cc%27d.png;",
    );
  });
});
