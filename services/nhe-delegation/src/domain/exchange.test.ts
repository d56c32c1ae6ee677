import { consentedScopes, parseExchangeParams } from './exchange';

const valid = {
  subject_token: 'eyJ.x.y',
  subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  actor_token: 'agent-1',
  actor_token_type: 'urn:vendor:token-type:nhe-id',
  resource: 'https://api.example',
  scope: 'read write',
};

describe('parseExchangeParams', () => {
  it('accepts the NHE profile', () => {
    expect(parseExchangeParams(valid)).toEqual({
      subjectToken: 'eyJ.x.y',
      actorToken: 'agent-1',
      actorTokenType: 'urn:vendor:token-type:nhe-id',
      resource: 'https://api.example',
      scopes: ['read', 'write'],
    });
  });

  it.each(['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'resource', 'scope'])(
    'names a missing %s',
    (name) => {
      const params: Record<string, string | undefined> = { ...valid, [name]: undefined };
      expect(() => parseExchangeParams(params)).toThrow(
        expect.objectContaining({ error: 'invalid_request', message: expect.stringContaining(name) }),
      );
    },
  );

  it.each([
    [{ subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }, 'invalid_request'],
    [{ actor_token_type: 'urn:ietf:params:oauth:token-type:id_token' }, 'invalid_request'],
    [{ resource: 'not a uri' }, 'invalid_target'],
    [{ resource: 'https://api.example#frag' }, 'invalid_target'],
    [{ scope: 'read "quoted"' }, 'invalid_scope'],
    [{ requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }, 'invalid_request'],
    [{ audience: 'x' }, 'invalid_request'],
  ])('refuses %j with %s', (override, error) => {
    expect(() => parseExchangeParams({ ...valid, ...override })).toThrow(expect.objectContaining({ error }));
  });
});

describe('consentedScopes', () => {
  it.each([
    ['aud names the resource', { aud: 'https://api.example', scope: 'read write' }, ['read', 'write']],
    [
      'aud is an array naming the resource',
      { aud: ['https://other.example', 'https://api.example'], scope: 'read' },
      ['read'],
    ],
    ['aud is another resource', { aud: 'https://other.example', scope: 'read write' }, []],
    ['no scope', { aud: 'https://api.example' }, []],
    ['no aud', { scope: 'read' }, []],
  ] as const)('%s', (_name, payload, expected) => {
    expect(consentedScopes(payload as Record<string, unknown>, 'https://api.example')).toEqual(expected);
  });
});
