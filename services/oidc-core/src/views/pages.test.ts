import { escape, formatLifetime, pageCsp, renderConsentPage, renderLogoutPrompt } from './pages';
import { stayHref } from '../provider/logout';

describe('pageCsp', () => {
  it('adds only http(s) origins of form targets, never paths or other schemes', () => {
    const csp = pageCsp({
      formTargets: ['https://app.example/cb?x=1', 'javascript:alert(1)', 'not a url', 'https://app.example/other'],
    });
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
    expect(stayHref('/auth/1', 'https://app.example/bye?a=1', 'post_logout', 'c')).toBe(
      'https://app.example/bye?a=1&state=post_logout&logout=cancelled',
    );
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
        {
          resource: 'https://api.example',
          name: 'Orders',
          scopes: [{ scope: 'orders:read', description: 'See your orders' }, { scope: 'orders:write' }],
        },
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
    const html = renderConsentPage({
      ...base,
      scopes: [],
      resources: [
        {
          resource: 'https://x.example',
          name: '<i>n</i>',
          scopes: [{ scope: 's', description: '<img src=x onerror=alert(1)>' }],
        },
      ],
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<i>n</i>');
    expect(html).toContain(escape('<img src=x onerror=alert(1)>'));
  });
});

describe('consent page of an agent client', () => {
  const base = {
    action: '/a',
    abortAction: '/b',
    clientName: 'Orders helper',
    tenantName: 'Acme',
    scopes: ['openid'],
    resources: [],
  };
  const agent = {
    identifier: 'orders-agent',
    type: 'llm-assistive',
    operator: 'Demo Operations',
    model: 'demo-model (example)',
    apis: [
      {
        resource: 'https://api.example',
        name: 'Orders',
        scopes: [{ scope: 'orders:read', description: 'See your orders' }],
        removed: [{ scope: 'orders:refund', layer: 'user-permissions' }],
        lifetimeSeconds: 300,
      },
    ],
  };

  it('says who the agent is, what it may do, for how long, that there is no refresh and how it is revoked', () => {
    const html = renderConsentPage({ ...base, agent });
    expect(html).toContain('<h1>Allow the agent Orders helper to act for you?</h1>');
    expect(html).toContain(
      'the automated agent <strong>orders-agent</strong>, of type <strong>llm-assistive</strong>, running demo-model (example), operated by <strong>Demo Operations</strong>',
    );
    expect(html).toContain('See your orders <span class="muted">(orders:read)</span>');
    expect(html).toContain('<li>orders:refund <span class="muted">(you do not hold this permission)</span></li>');
    expect(html).toContain('Each access lasts at most <strong>5 minutes</strong>.');
    expect(html).toContain('<strong>No refresh:</strong> the agent must ask again after its access expires.');
    expect(html).toContain(
      '<strong>You can end this at any time:</strong> an administrator of Acme can also disable this agent',
    );
    // With the user's agents page (their delegation ledger): revoke or block it there.
    expect(renderConsentPage({ ...base, agent, ledgerUrl: '/auth/7/account/agents' })).toContain(
      'on <a href="/auth/7/account/agents">your agents page</a> you can revoke this agent',
    );
    expect(html).toContain('<form method="post" action="/a"><button type="submit">Allow</button></form>');
    expect(html).not.toMatch(/<script|style=/);
  });

  it('a denied decision: the reason and only a way back, no Allow', () => {
    const html = renderConsentPage({
      ...base,
      agent: {
        ...agent,
        apis: [
          {
            resource: 'https://api.example',
            scopes: [],
            denied: 'no delegation policy allows this user to delegate to this NHE',
          },
        ],
      },
    });
    expect(html).toContain('<h1>Orders helper cannot act for you</h1>');
    expect(html).toContain(
      'The agent cannot act for you on this API: no delegation policy allows this user to delegate to this NHE.',
    );
    expect(html).not.toContain('>Allow<');
    expect(html).not.toContain('action="/a"');
    expect(html).toContain('action="/b"');
  });

  it('escapes the agent facts an administrator or a client wrote', () => {
    const evil = '<img src=x onerror=alert(1)>';
    const html = renderConsentPage({
      ...base,
      clientName: evil,
      tenantName: '<b>t</b>',
      agent: {
        identifier: evil,
        type: '"><script>',
        operator: evil,
        model: evil,
        apis: [
          {
            resource: evil,
            name: evil,
            scopes: [{ scope: evil, description: evil }],
            removed: [{ scope: evil, layer: evil }],
            lifetimeSeconds: 90,
          },
        ],
      },
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>t</b>');
    expect(html).toContain(escape(evil));
    expect(html).toContain('1 minute 30 seconds');
  });

  it("an ordinary client's page has none of the agent wording", () => {
    const html = renderConsentPage({
      ...base,
      resources: [{ resource: 'https://api.example', scopes: [{ scope: 'orders:read' }] }],
    });
    expect(html).not.toMatch(/agent|No refresh|revoked|lasts at most/);
  });
});

describe('formatLifetime', () => {
  it('minutes, with seconds when not whole', () => {
    expect(formatLifetime(60)).toBe('1 minute');
    expect(formatLifetime(900)).toBe('15 minutes');
    expect(formatLifetime(61)).toBe('1 minute 1 second');
  });
});
