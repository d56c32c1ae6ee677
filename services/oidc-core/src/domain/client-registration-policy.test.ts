import {
  clientPolicyProblem,
  hostAllowed,
  redirectUriProblem,
  registrableMetadata,
} from './client-registration-policy';

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
  const policy = {
    grantTypes: ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
  };
  const ok = {
    application_type: 'native',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    redirect_uris: ['http://127.0.0.1/cb'],
  };

  it('accepts a public native client', () => expect(clientPolicyProblem(ok, policy)).toBeUndefined());
  it('refuses a method outside the policy', () =>
    expect(clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'client_secret_basic' }, policy)).toMatch(
      /client_secret_basic is not allowed/,
    ));
  it('refuses a grant outside the policy', () =>
    expect(clientPolicyProblem({ ...ok, grant_types: ['authorization_code', 'client_credentials'] }, policy)).toMatch(
      /client_credentials not allowed/,
    ));
  it('refuses a secret', () => expect(clientPolicyProblem({ ...ok, client_secret: 'x' }, policy)).toMatch(/secret/));
  it('needs keys for private_key_jwt (jwks_uri only where asked)', () => {
    expect(clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'private_key_jwt' }, policy)).toMatch(
      /jwks_uri or jwks/,
    );
    expect(
      clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } }, policy),
    ).toBeUndefined();
    expect(
      clientPolicyProblem({ ...ok, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } }, policy, {
        requireJwksUri: true,
      }),
    ).toMatch(/jwks_uri/);
  });
  it('needs a redirect URI for the code flow', () =>
    expect(clientPolicyProblem({ ...ok, redirect_uris: [] }, policy)).toMatch(/redirect_uris/));
  it('takes a client without application_type as web', () =>
    expect(clientPolicyProblem({ ...ok, application_type: undefined }, policy)).toMatch(/https/));
  it('refuses client_credentials for a public client even where the policy allows both (RFC 6749 section 4.4)', () => {
    const both = {
      grantTypes: ['authorization_code', 'client_credentials'],
      tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
    };
    expect(clientPolicyProblem({ ...ok, grant_types: ['client_credentials'], redirect_uris: [] }, both)).toMatch(
      /confidential client/,
    );
    expect(
      clientPolicyProblem(
        {
          ...ok,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [] },
        },
        both,
      ),
    ).toBeUndefined();
  });
});

describe('registrableMetadata', () => {
  const policy = {
    grantTypes: ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
  };

  it.each([[['http://127.0.0.1:5000/cb']], [['http://localhost/cb']], [['http://[::1]:1/cb', 'http://127.0.0.1/cb']]])(
    'makes a client of loopback redirects %j native',
    (uris) => {
      const body: Record<string, unknown> = { redirect_uris: uris, token_endpoint_auth_method: 'none' };
      expect(registrableMetadata(body, policy)).toEqual({ application_type: 'native' });
      expect(body.application_type).toBe('native');
    },
  );

  it.each([
    ['an explicit web client', { application_type: 'web', redirect_uris: ['http://127.0.0.1/cb'] }],
    ['https redirects', { redirect_uris: ['https://app.example.com/cb'] }],
    ['a mix', { redirect_uris: ['http://127.0.0.1/cb', 'https://app.example.com/cb'] }],
    ['no redirect URIs', { redirect_uris: [] }],
    ['https on loopback', { redirect_uris: ['https://127.0.0.1/cb'] }],
  ])('leaves the application type of %s', (_what, body) => {
    expect(
      registrableMetadata({ ...body, token_endpoint_auth_method: 'none' }, policy).application_type,
    ).toBeUndefined();
  });

  it.each([undefined, 'client_secret_basic', 'client_secret_post', 'client_secret_jwt'])(
    'replaces the secret-based or absent method %s by none',
    (method) => {
      const body: Record<string, unknown> = {
        redirect_uris: ['https://app.example.com/cb'],
        ...(method ? { token_endpoint_auth_method: method } : {}),
      };
      expect(registrableMetadata(body, policy)).toEqual({ token_endpoint_auth_method: 'none' });
      expect(body.token_endpoint_auth_method).toBe('none');
    },
  );

  it('keeps the method for client_credentials, a client secret of its own, private_key_jwt, or a policy without none', () => {
    expect(
      registrableMetadata(
        { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' },
        policy,
      ),
    ).toEqual({});
    expect(
      registrableMetadata({ token_endpoint_auth_method: 'client_secret_basic', client_secret: 'x' }, policy),
    ).toEqual({});
    expect(registrableMetadata({ token_endpoint_auth_method: 'private_key_jwt' }, policy)).toEqual({});
    expect(
      registrableMetadata(
        { token_endpoint_auth_method: 'client_secret_post' },
        { ...policy, tokenEndpointAuthMethods: ['private_key_jwt'] },
      ),
    ).toEqual({});
  });
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

describe('clientPolicyProblem: the id_token response types (OpenID Dynamic profile)', () => {
  const policy = {
    grantTypes: ['authorization_code', 'refresh_token'],
    tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
  };
  const implicit = {
    application_type: 'web',
    grant_types: ['implicit'],
    response_types: ['id_token', 'id_token token'],
    token_endpoint_auth_method: 'none',
    redirect_uris: ['https://rp.example.com/cb'],
  };
  it('refuses them, and the implicit grant, without the profile', () => {
    expect(clientPolicyProblem(implicit, policy)).toMatch(/implicit not allowed/);
    expect(clientPolicyProblem({ ...implicit, grant_types: [] }, policy)).toMatch(/response_types id_token/);
  });
  it('accepts them, with the implicit grant the provider adds, under the profile', () =>
    expect(clientPolicyProblem(implicit, { ...policy, idTokenResponseTypes: true })).toBeUndefined());
  it('never accepts implicit without an id_token response type, nor `token` alone', () => {
    const on = { ...policy, idTokenResponseTypes: true };
    expect(clientPolicyProblem({ ...implicit, response_types: ['code'] }, on)).toMatch(/implicit not allowed/);
    expect(clientPolicyProblem({ ...implicit, response_types: ['token'] }, on)).toMatch(/not allowed/);
    expect(clientPolicyProblem({ ...implicit, response_types: ['code id_token'] }, on)).toMatch(/not allowed/);
    expect(clientPolicyProblem({ ...implicit, grant_types: [], response_types: ['token'] }, on)).toMatch(
      /response_types token is not allowed/,
    );
  });
});
