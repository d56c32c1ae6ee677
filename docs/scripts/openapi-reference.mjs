// Writes docs/.generated/management-api.md, the Markdown of the management API's reference, from the OpenAPI document
// the service serves at GET /auth/admin/openapi.json. The document is built the way the service builds it (the
// declared routes and their zod schemas, services/management/src/openapi/document.ts), offline and without a store,
// as services/management/src/openapi/console-api-types.test.ts does; docs/reference/api.md includes the result, so
// the reference is made anew at every build of the site and cannot drift from the API.
//   node docs/scripts/openapi-reference.mjs [out.md]   (from management's build output as it is)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = process.argv[2] ?? join(ROOT, 'docs', '.generated', 'management-api.md');

const require = createRequire(join(ROOT, 'services', 'management', 'package.json'));

/** Compiles the management service and what it uses (`tsc -b`: a no-op when the build output is up to date). */
export function buildManagement() {
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-b', 'services/management/tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

/** The document, from management's build output (docs/scripts/build.mjs compiles it first). */
export function loadDocument() {
  const { managementRoutes, API_VERSION } = require('./dist/app.js');
  const { buildOpenApiDocument } = require('./dist/openapi/document.js');
  const { createLogger } = require('@idp/logger');
  const { routes } = managementRoutes(
    {
      models: {},
      logger: createLogger({ service: 'docs', level: 'silent' }),
      keyStore: {},
      clientSecretPepper: 'x',
      jobs: {},
    },
    () => ({}),
  );
  return buildOpenApiDocument(routes, { version: API_VERSION });
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Text for Markdown outside code spans: no raw HTML (the page is compiled as a Vue template). */
const text = (s) =>
  String(s ?? '')
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 ? part : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
/** A table cell: one line, pipes escaped. */
const cell = (s) =>
  text(s)
    .replace(/\r?\n+/g, ' ')
    .replace(/\|/g, '\\|');
const code = (s) => '`' + String(s).replace(/`/g, "'") + '`';
const schemaName = (ref) => ref.split('/').pop();
const schemaAnchor = (name) => `schema-${name.toLowerCase()}`;

function typeOf(s) {
  if (!s || typeof s !== 'object' || Object.keys(s).length === 0) return 'any';
  if (s.$ref) return `[${schemaName(s.$ref)}](#${schemaAnchor(schemaName(s.$ref))})`;
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) return alternatives.map(typeOf).join(' or ');
  if (s.enum) return s.enum.map((v) => code(JSON.stringify(v))).join(', ');
  if ('const' in s) return code(JSON.stringify(s.const));
  const types = Array.isArray(s.type) ? s.type : [s.type ?? (s.properties ? 'object' : 'any')];
  return types
    .map((t) => {
      if (t === 'array') return `array of ${typeOf(s.items)}`;
      if (t === 'object' && !s.properties && s.additionalProperties && typeof s.additionalProperties === 'object')
        return `map of ${typeOf(s.additionalProperties)}`;
      return s.format ? `${t} (${s.format})` : t;
    })
    .join(' or ');
}

function constraints(s) {
  if (!s || typeof s !== 'object') return '';
  const c = [];
  for (const [k, label] of [
    ['minimum', 'min'],
    ['maximum', 'max'],
    ['minLength', 'min length'],
    ['maxLength', 'max length'],
    ['minItems', 'min items'],
    ['maxItems', 'max items'],
  ])
    if (k in s) c.push(`${label} ${s[k]}`);
  if (s.pattern) c.push(`pattern ${code(s.pattern)}`);
  if ('default' in s) c.push(`default ${code(JSON.stringify(s.default))}`);
  return c.join(', ');
}

const describe = (s) => [s?.description, constraints(s)].filter(Boolean).join('. ');

/** Rows for an object's properties, nested inline objects flattened as `a.b` and `a[].b`. */
function propertyRows(s, prefix = '', depth = 0) {
  const rows = [];
  const required = new Set(s?.required ?? []);
  for (const [name, p] of Object.entries(s?.properties ?? {})) {
    const path = prefix + name;
    rows.push(`| ${code(path)} | ${cell(typeOf(p))} | ${required.has(name) ? 'yes' : ''} | ${cell(describe(p))} |`);
    if (depth < 6 && p && !p.$ref) {
      if (p.properties) rows.push(...propertyRows(p, `${path}.`, depth + 1));
      else if (p.items?.properties) rows.push(...propertyRows(p.items, `${path}[].`, depth + 1));
    }
  }
  return rows;
}

function schemaBlock(s) {
  if (s?.properties) {
    return ['| Property | Type | Required | Description |', '|---|---|---|---|', ...propertyRows(s)].join('\n');
  }
  return `${cell(typeOf(s))}${describe(s) ? `: ${text(describe(s))}` : ''}`;
}

function operation(doc, path, method, op) {
  const out = [
    `### ${text(op.summary ?? `${method.toUpperCase()} ${path}`)} {#${op.operationId ?? `${method}-${path}`}}`,
  ];
  out.push('', code(`${method.toUpperCase()} ${path}`));
  if (op.description) out.push('', text(op.description));
  const security = op.security ?? doc.security ?? [];
  const scopes = security.flatMap((req) => Object.values(req).flat());
  out.push(
    '',
    security.length === 0
      ? '**Authentication:** none (public).'
      : `**Authentication:** a management token${scopes.length ? ` with ${scopes.map(code).join(', ')}` : ''}.`,
  );
  const params = op.parameters ?? [];
  if (params.length) {
    out.push('', '**Parameters**', '', '| Name | In | Type | Required | Description |', '|---|---|---|---|---|');
    for (const p of params)
      out.push(
        `| ${code(p.name)} | ${p.in} | ${cell(typeOf(p.schema))} | ${p.required ? 'yes' : ''} | ${cell(
          [p.description, describe(p.schema)].filter(Boolean).join('. '),
        )} |`,
      );
  }
  if (op.requestBody) {
    for (const [type, media] of Object.entries(op.requestBody.content ?? {})) {
      out.push('', `**Request body** (${code(type)}${op.requestBody.required ? ', required' : ''})`, '');
      out.push(schemaBlock(media.schema));
    }
  }
  out.push('', '**Responses**', '', '| Status | Description | Body |', '|---|---|---|');
  const inline = [];
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const bodies = Object.entries(r.content ?? {}).map(([type, media]) => {
      if (media.schema?.properties) inline.push([status, type, media.schema]);
      return `${cell(typeOf(media.schema))} (${code(type)})`;
    });
    const headers = Object.keys(r.headers ?? {});
    out.push(
      `| ${status} | ${cell(r.description)}${headers.length ? ` Headers: ${headers.map(code).join(', ')}.` : ''} | ${bodies.join(', ')} |`,
    );
  }
  for (const [status, type, schema] of inline)
    out.push('', `Response ${status} (${code(type)}):`, '', schemaBlock(schema));
  return out.join('\n');
}

export function renderReference(doc) {
  const out = ['::: v-pre', ''];
  out.push(`**${text(doc.info.title)}**, version ${text(doc.info.version)} (OpenAPI ${doc.openapi}).`);
  if (doc.info.description) out.push('', text(doc.info.description));
  for (const [name, scheme] of Object.entries(doc.components?.securitySchemes ?? {}))
    out.push(
      '',
      `**Authentication (${code(name)}, ${scheme.type}${scheme.scheme ? ` ${scheme.scheme}` : ''}):** ${text(scheme.description)}`,
    );

  const byTag = new Map();
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, op]);
    }
  out.push('', '## Operations', '');
  for (const [tag, ops] of byTag)
    out.push(`- **${text(tag)}:** ${ops.map(([, , op]) => `[${text(op.summary)}](#${op.operationId})`).join(', ')}`);
  for (const [tag, ops] of byTag) {
    out.push('', `## ${text(tag)}`);
    for (const [path, method, op] of ops) out.push('', operation(doc, path, method, op));
  }
  out.push('', '## Schemas');
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
    out.push('', `### ${name} {#${schemaAnchor(name)}}`);
    if (s.description) out.push('', text(s.description));
    out.push('', schemaBlock(s));
  }
  out.push('', ':::', '');
  return out.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const markdown = renderReference(loadDocument());
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, markdown);
  process.stdout.write(`openapi-reference: ${OUT} (${markdown.length} characters)\n`);
}
