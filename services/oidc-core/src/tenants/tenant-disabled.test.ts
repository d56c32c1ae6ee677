import { disabledTenantRefusal, tenantDisabled, wantsPage } from './tenant-disabled';

describe('a disabled tenant', () => {
  it('is only one stored with enabled false (a tenant stored before the field existed is enabled)', () => {
    expect(tenantDisabled({})).toBe(false);
    expect(tenantDisabled({ enabled: true })).toBe(false);
    expect(tenantDisabled({ enabled: false })).toBe(true);
  });

  it('refuses every endpoint with 403 access_denied, except introspection and revocation (RFC 7662, RFC 7009)', () => {
    for (const [method, path] of [
      ['GET', '/.well-known/openid-configuration'],
      ['GET', '/authorize'],
      ['POST', '/oidc/token'],
      ['GET', '/me'],
      ['GET', '/jwks'],
      ['GET', '/token/introspection'],
      ['POST', '/token/introspection/x'],
    ] as const) {
      const refusal = disabledTenantRefusal({ enabled: false }, method, path);
      expect([refusal?.status, refusal?.toJSON()]).toEqual([
        403,
        { error: 'access_denied', error_description: 'tenant disabled' },
      ]);
    }
    expect(disabledTenantRefusal({ enabled: false }, 'POST', '/token/introspection')).toBeUndefined();
    expect(disabledTenantRefusal({ enabled: false }, 'POST', '/token/revocation?x=1')).toBeUndefined();
    expect(disabledTenantRefusal({}, 'POST', '/oidc/token')).toBeUndefined();
  });

  it('answers a browser page request with a page', () => {
    const req = (method: string, accept?: string) =>
      ({ method, headers: accept ? { accept } : {} }) as Parameters<typeof wantsPage>[0];
    expect(wantsPage(req('GET', 'text/html,application/xhtml+xml'))).toBe(true);
    expect(wantsPage(req('GET', 'application/json'))).toBe(false);
    expect(wantsPage(req('POST', 'text/html'))).toBe(false);
    expect(wantsPage(req('GET'))).toBe(false);
  });
});
