import { escape, pageCsp, renderConsentPage, renderLogoutPrompt } from './pages';
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

describe('consent page', () => {
  const base = { action: '/a', abortAction: '/b', clientName: 'Partner', tenantName: 'Acme' };

  it('lists every scope of every API, with the resource server description when it has one', () => {
    const html = renderConsentPage({
      ...base,
      scopes: ['openid'],
      resources: [
        { resource: 'https://api.example', name: 'Orders', scopes: [{ scope: 'orders:read', description: 'See your orders' }, { scope: 'orders:write' }] },
        { resource: 'https://empty.example', scopes: [] },
      ],
    });
    expect(html).toContain('Know who you are <span class="muted">(openid)</span>');
    expect(html).toContain('<h2>Orders <span class="muted">(https://api.example)</span></h2>');
    expect(html).toContain('See your orders <span class="muted">(orders:read)</span>');
    expect(html).toContain('<li>orders:write</li>');
    expect(html).toContain('<h2>API https://empty.example</h2><p class="muted">No permissions on this API.</p>');
  });

  it('escapes descriptions and names a tenant admin wrote', () => {
    const html = renderConsentPage({ ...base, scopes: [], resources: [{ resource: 'https://x.example', name: '<i>n</i>', scopes: [{ scope: 's', description: '<img src=x onerror=alert(1)>' }] }] });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<i>n</i>');
    expect(html).toContain(escape('<img src=x onerror=alert(1)>'));
  });
});
