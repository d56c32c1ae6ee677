/**
 * The admin console's API client is typed from the served OpenAPI document (console/src/api/schema.d.ts, made by
 * openapi-typescript): this test builds the document from the declared routes, generates the types again and
 * fails when the committed file differs, so the console cannot drift from the API.
 * Regenerate with: UPDATE_CONSOLE_API_TYPES=1 npx jest --selectProjects unit console-api-types
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@idp/logger';
import { API_VERSION, managementRoutes } from '../app';
import { buildOpenApiDocument } from './document';

const ROOT = join(__dirname, '..', '..', '..', '..');
const TYPES = join(ROOT, 'console', 'src', 'api', 'schema.d.ts');

jest.setTimeout(60_000);

test('console/src/api/schema.d.ts is generated from the current OpenAPI document', () => {
  const { routes } = managementRoutes(
    {
      models: {} as never,
      logger: createLogger({ service: 'types', level: 'silent' }),
      keyStore: {} as never,
      clientSecretPepper: 'x',
      jobs: {} as never,
    },
    () => ({}),
  );
  const document = buildOpenApiDocument(routes, { version: API_VERSION });
  const dir = mkdtempSync(join(tmpdir(), 'console-api-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    const generated = execFileSync(
      process.execPath,
      [join(ROOT, 'console', 'scripts', 'generate-api-types.mjs'), join(dir, 'openapi.json')],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (process.env.UPDATE_CONSOLE_API_TYPES === '1') writeFileSync(TYPES, generated);
    let committed = '';
    try {
      committed = readFileSync(TYPES, 'utf8');
    } catch {
      // missing: fails below
    }
    expect(generated.length).toBeGreaterThan(1000);
    if (committed !== generated) {
      throw new Error(
        'console/src/api/schema.d.ts is stale: regenerate it with UPDATE_CONSOLE_API_TYPES=1 npx jest --selectProjects unit console-api-types',
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
