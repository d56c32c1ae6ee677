// Checks every internal link of the built site (docs/.vitepress/dist): each href and src of each page must name a
// file of the site, and each #fragment an id on the page it names. VitePress itself only refuses links to missing
// pages; this also catches a dead anchor (a renamed heading), a link to a repository file that is not part of the
// site, and the theme's own navigation. Offline: it reads the files, it fetches nothing.
//   node docs/scripts/check-links.mjs [dist]   (exit 1 and a list when anything is dead)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIST = process.argv[2] ?? fileURLToPath(new URL('../.vitepress/dist', import.meta.url));

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeEntities = (s) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#')
      return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ENTITIES[e.toLowerCase()] ?? m;
  });
const decodeUri = (s) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** The file a site path names, as the static host serves it (`/a/` -> `/a/index.html`, `/a` -> `/a.html`). */
function resolveFile(dist, sitePath) {
  const candidates = sitePath.endsWith('/')
    ? [`${sitePath}index.html`]
    : [sitePath, `${sitePath}.html`, `${sitePath}/index.html`];
  return candidates.find((p) => {
    const file = join(dist, ...p.split('/'));
    return existsSync(file) && statSync(file).isFile();
  });
}

export function checkSite(dist = DIST) {
  const pages = walk(dist).filter((f) => f.endsWith('.html'));
  const ids = new Map();
  const idsOf = (sitePath) => {
    if (!ids.has(sitePath)) {
      const html = readFileSync(join(dist, ...sitePath.split('/')), 'utf8');
      ids.set(sitePath, new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((m) => decodeEntities(m[1]))));
    }
    return ids.get(sitePath);
  };
  const dead = [];
  let links = 0;
  for (const file of pages) {
    const page = '/' + relative(dist, file).split(sep).join('/');
    const html = readFileSync(file, 'utf8');
    // The built HTML: attributes are double-quoted. Skip inline scripts' contents (hashes, not links).
    const markup = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, (s) => s.replace(/>[\s\S]*<\//, '></'));
    for (const m of markup.matchAll(/\s(href|src)="([^"]*)"/g)) {
      const raw = decodeEntities(m[2]);
      if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) continue; // another site, mailto:, data:
      links++;
      const [beforeHash, ...rest] = raw.split('#');
      const fragment = decodeUri(rest.join('#'));
      const pathPart = beforeHash.split('?')[0];
      const sitePath = pathPart === '' ? page : posix.resolve(posix.dirname(page), decodeUri(pathPart));
      const target = pathPart === '' ? page : resolveFile(dist, sitePath);
      if (!target) {
        dead.push(`${page}: ${raw} (no such page or file)`);
        continue;
      }
      if (fragment && target.endsWith('.html') && !idsOf(target).has(fragment))
        dead.push(`${page}: ${raw} (no id "${fragment}" on ${target})`);
    }
  }
  return { pages: pages.length, links, dead };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { pages, links, dead } = checkSite();
  if (pages === 0) dead.push('no page at all: build the site first');
  if (dead.length) {
    process.stderr.write(`check-links: ${dead.length} dead link(s) or anchor(s) in ${DIST}:\n  ${dead.join('\n  ')}\n`);
    process.exit(1);
  }
  process.stdout.write(`check-links: ${links} internal links and anchors on ${pages} pages, none dead\n`);
}
