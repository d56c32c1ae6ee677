// `npm run build --workspace=docs` (scripts/test.sh runs it): the management API's reference from its OpenAPI
// document, the site (VitePress, which refuses a link to a missing page), then every link and #anchor of the built
// HTML (check-links.mjs). Exits non-zero on the first failure. Offline; the site lands in docs/.vitepress/dist.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vitepress';
import { checkSite } from './check-links.mjs';
import { buildManagement, loadDocument, renderReference } from './openapi-reference.mjs';

const DOCS = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

buildManagement();
const reference = join(DOCS, '.generated', 'management-api.md');
mkdirSync(dirname(reference), { recursive: true });
writeFileSync(reference, renderReference(loadDocument()));
process.stdout.write(`docs: management API reference generated (${seconds()})\n`);

await build(DOCS);
process.stdout.write(`docs: site built (${seconds()})\n`);

const dist = join(DOCS, '.vitepress', 'dist');
const { pages, links, dead } = checkSite(dist);
if (pages === 0) dead.push(`no page at all in ${dist}`);
if (dead.length) {
  process.stderr.write(`docs: ${dead.length} dead link(s) or anchor(s):\n  ${dead.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`docs: ${links} internal links and anchors on ${pages} pages, none dead (${seconds()})\n`);
