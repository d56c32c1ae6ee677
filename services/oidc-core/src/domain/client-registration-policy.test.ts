import { clientPolicyProblem, hostAllowed, redirectUriProblem } from './client-registration-policy';

describe('redirectUriProblem', () => {
  it.each([
    ['http://127.0.0.1/callback', 'native'],
    ['http://127.0.0.1:8080/callback', 'native'],
    ['http://[::1]/cb', 'native'],
    ['http://localhost:3000/cb', 'native'],
    ['https://app.example.com/cb', 'native'],
    ['com.example.app:/oauth2redirect', 'native'],
    ['https://app.example.com/cb', 'web'],
  ] as const)('accepts %s for a %s client', (uri, type) => {
    expect(redirectUriProblem(uri, type)).toBeUndefined();
  });

  it.each([
    ['http://app.example.com/cb', 'native', /loopback/],
    ['https://127.0.0.1/cb', 'native', /uses http/],
    ['myapp:/cb', 'native', /reverse domain/],
    ['javascript:alert(1)', 'native', /not allowed/],
    ['http://app.example.com/cb', 'web', /https/],
    ['http://127.0.0.1:8080/cb', 'web', /https/],
    ['https://localhost/cb', 'web', /loopback/],
    ['https://app.example.com/cb#frag', 'web', /fragment/],
    ['https://*.example.com/cb', 'web', /wildcard/],
    ['https://app.example.com/*', 'web', /wildcard/],
    ['https://user:pw@app.example.com/cb', 'web', /user info/],
    ['/relative/cb', 'web', /absolute/],
  ] as const)('refuses %s for a %s client', (uri, type, reason) => {
    expect(redirectUriProblem(uri, type)).toMatch(reason);
  });
});

describe('clientPolicyProblem', () => {
  const policy = { grantTypes: ['authorization_code', 'refresh_token'], tokenEndpointAuthMethods: ['none', 'private_key_jwt'] };
  const ok = { application_type: 'native', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1/cb'] };

  it('accepts a public native client', () => expect(clientPolicyProblem(ok, policy)).toBeUndefined());
  it('refuses a method outside the policy', () => expect(clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'client_secret_basic' }, policy)).toMatch(/client_secret_basic is not allowed/));
  it('refuses a grant outside the policy', () => expect(clientPolicyProblem({ ...ok, grant_types: ['authorization_code', 'client_credentials'] }, policy)).toMatch(/client_credentials not allowed/));
  it('refuses a secret', () => expect(clientPolicyProblem({ ...ok, client_secret: 'x' }, policy)).toMatch(/secret/));
  it('needs keys for private_key_jwt (jwks_uri only where asked)', () => {
    expect(clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'private_key_jwt' }, policy)).toMatch(/jwks_uri or jwks/);
    expect(clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } }, policy)).toBeUndefined();
    expect(clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } }, policy, { requireJwksUri: true })).toMatch(/jwks_uri/);
  });
  it('needs a redirect URI for the code flow', () => expect(clientPolicyProblem({ ...ok, redirect_uris: [] }, policy)).toMatch(/redirect_uris/));
  it('takes a client without application_type as web', () => expect(clientPolicyProblem({ ...ok, application_type: undefined }, policy)).toMatch(/https/));
});

describe('hostAllowed', () => {
  it('allows every host without patterns', () => expect(hostAllowed([], 'a.example')).toBe(true));
  it('matches exact names and subdomain wildcards, not the apex for a wildcard', () => {
    expect(hostAllowed(['mcp.example.com'], 'MCP.example.com')).toBe(true);
    expect(hostAllowed(['mcp.example.com'], 'evil.mcp.example.com')).toBe(false);
    expect(hostAllowed(['*.example.com'], 'a.b.example.com')).toBe(true);
    expect(hostAllowed(['*.example.com'], 'example.com')).toBe(false);
    expect(hostAllowed(['*.example.com'], 'evilexample.com')).toBe(false);
  });
});
