import { accessTokenScope } from './access-token-scope';

describe('accessTokenScope', () => {
  const held = new Set(['read', 'write']);

  it('grants the full RBAC set when narrowing is off, whatever was requested', () => {
    expect(accessTokenScope(['read'], held, false)).toEqual(['read', 'write']);
    expect(accessTokenScope([], held, false)).toEqual(['read', 'write']);
  });

  it('grants exactly the requested scopes the subject holds when narrowing is on', () => {
    expect(accessTokenScope(['write', 'admin', 'openid'], held, true)).toEqual(['write']);
  });

  it('grants nothing when the subject holds none of the requested scopes', () => {
    expect(accessTokenScope(['admin'], held, true)).toEqual([]);
  });
});
