// The documentation site. Its source folder is the repository root, so every Markdown file of the repository is a
// page (README.md, SECURITY.md, docs/, the services', the chart's, the SDK's and the benchmarks' READMEs) and a
// relative link means the same on the site as in the repository; VitePress fails the build on a link to a missing
// page, and docs/scripts/check-links.mjs then checks every link and #anchor of the built HTML.
import { posix } from 'node:path';
import { defineConfig } from 'vitepress';

const services = ['oidc-core', 'nhe-delegation', 'management', 'audit-writer', 'audit-retention', 'signals'];

// The repository's README is the site's home page (both sit at the root, so its own relative links are unchanged).
const rewrites = { 'README.md': 'index.md' };

/** Links to a rewritten page (`../README.md`) name its page on the site (`../index.md`), as VitePress does not. */
function rewrittenLinks(md) {
  md.core.ruler.push('rewritten-links', (state) => {
    const from = posix.dirname(state.env.relativePath ?? '');
    for (const token of state.tokens.flatMap((t) => t.children ?? []))
      if (token.type === 'link_open') {
        const href = token.attrGet('href') ?? '';
        if (/^([a-z][a-z0-9+.-]*:|\/\/|#)/i.test(href)) continue;
        const [path, ...hash] = href.split('#');
        const target = rewrites[posix.normalize(path.startsWith('/') ? path.slice(1) : posix.join(from, path))];
        if (target) token.attrSet('href', [posix.relative(from, target) || target, ...hash].join('#'));
      }
  });
}

export default defineConfig({
  title: 'idp',
  description: 'Multi-tenant OAuth 2.0 / OpenID Connect provider with audited, delegated tokens for non-human entities',
  srcDir: '..',
  srcExclude: ['test-output/**', 'coverage/**'],
  // Vite's dependency cache (npm run dev) where git, prettier and eslint already look away.
  cacheDir: '../node_modules/.cache/vitepress',
  rewrites,
  markdown: { config: rewrittenLinks },
  // The API reference is one page of about 450 kB of script (its tables): expected, not a warning.
  vite: { build: { chunkSizeWarningLimit: 1024 } },
  lastUpdated: false,
  themeConfig: {
    nav: [
      { text: 'Getting started', link: '/docs/getting-started/running-locally' },
      { text: 'Operators', link: '/docs/operators/install' },
      { text: 'Application developers', link: '/docs/developers/sign-in' },
      { text: 'Reference', link: '/docs/reference/api' },
    ],
    sidebar: [
      {
        text: 'Getting started',
        items: [
          { text: 'Overview', link: '/docs/' },
          { text: 'Running locally (npm start)', link: '/docs/getting-started/running-locally' },
          { text: 'Tests (npm test)', link: '/docs/getting-started/tests' },
        ],
      },
      {
        text: 'Operators',
        items: [
          { text: 'Deploying with Helm', link: '/docs/operators/install' },
          { text: 'Chart values', link: '/charts/idp/README' },
          { text: 'High availability', link: '/docs/operators/high-availability' },
          { text: 'Security', link: '/SECURITY' },
          { text: 'Admin console', link: '/docs/operators/admin-console' },
          { text: 'Admin walkthrough (curl)', link: '/docs/operators/admin-walkthrough' },
          { text: 'Upstream sign-in (OIDC, SAML)', link: '/docs/operators/upstream-sign-in' },
          { text: 'Trusted issuers (RFC 7523, ID-JAG)', link: '/docs/operators/trusted-issuers' },
          { text: 'Directory provisioning (SCIM 2.0)', link: '/docs/operators/scim' },
          { text: 'Passkeys (WebAuthn)', link: '/docs/operators/passkeys' },
          {
            text: 'Services: configuration, state and replicas',
            collapsed: true,
            items: services.map((s) => ({ text: s, link: `/services/${s}/README` })),
          },
          { text: 'Known limits of the local store', link: '/docs/operators/local-store' },
        ],
      },
      {
        text: 'Application developers',
        items: [
          { text: 'Signing users in (and FAPI 2.0)', link: '/docs/developers/sign-in' },
          { text: 'Signing users out', link: '/docs/developers/logout' },
          { text: 'Delegation to agents', link: '/docs/developers/delegation' },
          { text: 'Human approval (CIBA)', link: '/docs/developers/human-approval' },
          { text: 'Resource-server SDK', link: '/docs/developers/sdk' },
          { text: 'SDK guide', link: '/libs/resource-server/README' },
          { text: 'SDK changelog', link: '/libs/resource-server/CHANGELOG' },
          { text: 'Connecting MCP clients', link: '/docs/developers/mcp' },
          { text: 'Shared Signals', link: '/docs/developers/shared-signals' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Management API', link: '/docs/reference/api' },
          { text: 'Behaviour decisions', link: '/docs/reference/behaviour-decisions' },
          { text: 'Performance', link: '/docs/reference/performance' },
          { text: 'Benchmarks', link: '/bench/README' },
          { text: 'OpenID certification profiles', link: '/docs/reference/certification' },
        ],
      },
    ],
    outline: { level: [2, 3] },
    search: { provider: 'local' },
  },
});
