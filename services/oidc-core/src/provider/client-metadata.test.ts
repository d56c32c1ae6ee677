import type { ClientDoc } from '@idp/db';
import { CLIENT_PROPS, clientMetadata, pkceRequiredFor } from './client-metadata';

const doc = (over: Partial<ClientDoc>): ClientDoc =>
  ({
    tenantId: 1,
    numericId: 1001,
    clientId: 'app',
    name: 'App',
    tokenEndpointAuthMethod: 'client_secret_basic',
    redirectUris: ['https://app.example/cb'],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code'],
    responseTypes: ['code'],
    roleIds: [],
    firstParty: false,
    showLogoutPrompt: true,
    enabled: true,
    config: {
      nhe: { delegationEnabled: false, allowedNheIdentifiers: [] },
      featureToggles: { requireAuthorizationScopesInRequest: false, requireResourceIndicatorInRequest: false },
      legacyRoleCompatibility: false,
    },
    ...over,
  }) as ClientDoc;

/** What the provider's Client would hold: the metadata plus clientAuthMethod (its token_endpoint_auth_method). */
const asClient = (d: ClientDoc) => ({ ...clientMetadata(d), clientAuthMethod: d.tokenEndpointAuthMethod });

describe('PKCE per client', () => {
  it('is required by default, and for a record written before the setting existed', () => {
    expect(pkceRequiredFor(asClient(doc({})))).toBe(true);
    expect(pkceRequiredFor(asClient(doc({ pkceRequired: true })))).toBe(true);
  });

  it('a confidential client may turn it off', () => {
    for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const) {
      expect(pkceRequiredFor(asClient(doc({ tokenEndpointAuthMethod: method, pkceRequired: false })))).toBe(false);
    }
  });

  it('a public client needs it whatever its record says', () => {
    const spa = doc({ tokenEndpointAuthMethod: 'none', pkceRequired: false });
    expect(clientMetadata(spa)[CLIENT_PROPS.pkceRequired]).toBe(true);
    expect(pkceRequiredFor(asClient(spa))).toBe(true);
    // Even if the metadata said otherwise.
    expect(pkceRequiredFor({ clientAuthMethod: 'none', [CLIENT_PROPS.pkceRequired]: false })).toBe(true);
  });
});

it("maps the record's DPoP and PAR settings to the provider's client metadata", () => {
  expect(clientMetadata(doc({}))).toMatchObject({
    dpop_bound_access_tokens: false,
    require_pushed_authorization_requests: false,
  });
  expect(clientMetadata(doc({ requireDpop: true, requirePushedAuthorizationRequests: true }))).toMatchObject({
    dpop_bound_access_tokens: true,
    require_pushed_authorization_requests: true,
  });
});

describe('a dynamically registered public client stored with the client credentials grant', () => {
  it('loses that grant when read, and keeps its others; a confidential one keeps it', () => {
    const registeredMetadata = (method: string) =>
      JSON.stringify({
        token_endpoint_auth_method: method,
        grant_types: ['authorization_code', 'client_credentials'],
        redirect_uris: ['http://127.0.0.1/cb'],
      });
    expect(
      clientMetadata(doc({ registration: 'dynamic', registeredMetadata: registeredMetadata('none') })).grant_types,
    ).toEqual(['authorization_code']);
    expect(
      clientMetadata(doc({ registration: 'dynamic', registeredMetadata: registeredMetadata('private_key_jwt') }))
        .grant_types,
    ).toEqual(['authorization_code', 'client_credentials']);
  });
});
