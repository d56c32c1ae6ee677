import { escape, pageCsp, renderLogoutPrompt } from './pages';
import { stayHref } from '../provider/logout';

describe('pageCsp', () => {
  it('adds only http(s) origins of form targets, never paths or other schemes', () => {
    const csp = pageCsp({ formTargets: ['https://app.example/cb?x=1', 'javascript:alert(1)', 'not a url', 'https://app.example/other'] });
    expect(csp).toContain("form-action 'self' https://app.example;");
    expect(csp).not.toContain('javascript');
    expect(csp).not.toContain('unsafe-inline');
  });

  it('allows scripts only by the given nonce', () => {
    expect(pageCsp({ nonce: 'abc' })).toContain("script-src 'nonce-abc';");
    expect(pageCsp()).toMatch(/script-src 'sha256-[^']+';/);
  });
});

describe('stayHref', () => {
  it('keeps the registered URI, adds state and logout=cancelled', () => {
    expect(stayHref('/auth/1', 'https://app.example/bye?a=1', 'post_logout', 'c')).toBe('https://app.example/bye?a=1&state=post_logout&logout=cancelled');
  });
  it('falls back to our own page without a post-logout URI', () => {
    expect(stayHref('/_api/auth/7', undefined, 's', 'my app')).toBe('/_api/auth/7/logout/stayed?client_id=my%20app');
  });
});

it('escapes everything interpolated into the logout page', () => {
  const html = renderLogoutPrompt({
    action: 'https://idp/x"><script>',
    xsrf: '"x',
    tenantName: '<b>t</b>',
    clientName: 'c&c',
    otherApps: ['<img src=x>'],
    stayHref: 'javascript:"',
    seconds: 30,
    nonce: 'n',
  });
  expect(html).not.toContain('<b>t</b>');
  expect(html).not.toContain('<img src=x>');
  expect(html).toContain(escape('<img src=x>'));
  expect(html.match(/<script/g)).toHaveLength(1);
});
