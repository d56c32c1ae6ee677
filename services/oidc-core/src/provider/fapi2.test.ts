import type { ClientDoc, TenantDoc } from '@idp/db';
import { fapi2Admits, fapi2ClientMetadata, isFapi2Tenant } from './fapi2';

const doc = (over: Partial<ClientDoc>): ClientDoc =>
  ({
    tenantId: 1,
    numericId: 1001,
    clientId: 'app',
    name: 'App',
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] },
    redirectUris: ['https://app.example/cb'],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code'],
    responseTypes: ['code'],
    roleIds: [],
    firstParty: false,
    showLogoutPrompt: true,
    enabled: true,
    ...over,
  }) as ClientDoc;

const settings = (security?: TenantDoc['settings']['security']) => ({
  settings: { nhe: {} as TenantDoc['settings']['nhe'], ...(security ? { security } : {}) },
});

it('only settings.security.profile "fapi2" puts a tenant under the profile; absent (older records) is standard', () => {
  expect(isFapi2Tenant(settings({ profile: 'fapi2' }))).toBe(true);
  expect(isFapi2Tenant(settings({ profile: 'standard' }))).toBe(false);
  expect(isFapi2Tenant(settings())).toBe(false);
});

it('admits private_key_jwt clients with ES256 ID tokens only; the others do not exist for the protocol', () => {
  expect(fapi2Admits(doc({}))).toBe(true);
  expect(fapi2Admits(doc({ idTokenSignedResponseAlg: 'ES256' }))).toBe(true);
  expect(fapi2Admits(doc({ idTokenSignedResponseAlg: 'RS256' }))).toBe(false);
  for (const method of ['client_secret_basic', 'client_secret_post', 'none'] as const) {
    expect(fapi2Admits(doc({ tokenEndpointAuthMethod: method }))).toBe(false);
    expect(fapi2ClientMetadata(doc({ tokenEndpointAuthMethod: method }))).toBeUndefined();
  }
});

it("binds every admitted client's tokens to DPoP, whatever its record says", () => {
  expect(fapi2ClientMetadata(doc({ requireDpop: false }))).toMatchObject({
    client_id: 'app',
    token_endpoint_auth_method: 'private_key_jwt',
    dpop_bound_access_tokens: true,
  });
  expect(fapi2ClientMetadata(doc({}))).toMatchObject({ dpop_bound_access_tokens: true });
});
