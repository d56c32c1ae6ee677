import { defaultResourceScope } from './default-resource-scope';

describe('defaultResourceScope', () => {
  it('is every scope the resource servers register, each once, in order', () => {
    expect(
      defaultResourceScope({
        'https://a': { scope: 'orders:read orders:write' },
        'https://b': { scope: 'orders:read mcp:tools' },
      }),
    ).toBe('orders:read orders:write mcp:tools');
  });
  it('is empty without resource servers or scopes', () => {
    expect(defaultResourceScope({})).toBe('');
    expect(defaultResourceScope({ 'https://a': { scope: '' }, 'https://b': undefined })).toBe('');
  });
});
