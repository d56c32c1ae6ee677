#!/usr/bin/env node
'use strict';
/**
 * Generates charts/idp/values.schema.json and charts/idp/README.md from the `## @section` and `## @param`
 * comments of charts/idp/values.yaml (the format of Bitnami's readme-generator-for-helm, whose npm package is not
 * a dependency here).
 *
 *   node scripts/chart-docs.js          write both files
 *   node scripts/chart-docs.js --check  exit 1 when a committed file differs from the generator's output
 *
 * Comment format, one line each:
 *   ## @section <title>                      starts a README table
 *   ## @param <dotted.path> [types] <text>   documents a value; [types] is optional, comma-separated from
 *                                            object, array, string, integer, number, boolean, null (default: the
 *                                            type of the value); [object]/[array] values are documented whole
 * Other `##` lines after a @section line are the section's description. Every value in values.yaml must be
 * documented (a leaf, or inside an [object]/[array] param); a @param naming no value is an error.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const YAML = require('yaml');

const chartDir = join(__dirname, '..', 'charts', 'idp');
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']);

function parseComments(text) {
  const sections = [];
  const params = [];
  let section = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let m;
    if ((m = /^## @section\s+(.+)$/.exec(line))) {
      section = { title: m[1].trim(), description: [], params: [] };
      sections.push(section);
    } else if ((m = /^## @param\s+(\S+)\s*(?:\[([^\]]+)\])?\s*(.*)$/.exec(line))) {
      if (!section) throw new Error(`@param ${m[1]} before any @section`);
      const types = m[2] ? m[2].split(',').map((t) => t.trim()) : null;
      for (const t of types ?? []) if (!TYPES.has(t)) throw new Error(`@param ${m[1]}: unknown type ${t}`);
      const param = { path: m[1], types, description: m[3].trim(), section: section.title };
      if (!param.description) throw new Error(`@param ${m[1]} has no description`);
      params.push(param);
      section.params.push(param);
    } else if ((m = /^##(?:\s+(.*))?$/.exec(line)) && section && section.params.length === 0) {
      if (m[1]) section.description.push(m[1].trim());
    }
  }
  return { sections, params };
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function get(values, path) {
  let cur = values;
  for (const key of path.split('.')) {
    if (!isPlainObject(cur) || !(key in cur)) return { found: false };
    cur = cur[key];
  }
  return { found: true, value: cur };
}

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value === 'number' ? 'number' : typeof value;
}

/** Paths of values that must be documented: leaves, and empty objects/arrays. */
function leafPaths(value, prefix = '') {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

/** Problems: undocumented values and params naming no value. */
function lint(values, params) {
  const documented = new Set(params.map((p) => p.path));
  const wholes = params
    .filter((p) => p.types && (p.types.includes('object') || p.types.includes('array')))
    .map((p) => p.path);
  const problems = [];
  for (const leaf of leafPaths(values)) {
    if (documented.has(leaf) || wholes.some((w) => leaf.startsWith(`${w}.`))) continue;
    problems.push(`values.yaml: ${leaf} has no ## @param`);
  }
  for (const p of params)
    if (!get(values, p.path).found) problems.push(`values.yaml: ## @param ${p.path} names no value`);
  const seen = new Set();
  for (const p of params) {
    if (seen.has(p.path)) problems.push(`values.yaml: ## @param ${p.path} appears twice`);
    seen.add(p.path);
  }
  return problems;
}

function buildSchema(values, params) {
  const root = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Values of the idp chart (generated from values.yaml by scripts/chart-docs.js)',
    type: 'object',
    additionalProperties: false,
    properties: {},
  };
  for (const p of params) {
    const { value } = get(values, p.path);
    const keys = p.path.split('.');
    let node = root;
    for (const key of keys.slice(0, -1)) {
      node.properties[key] ??= { type: 'object', additionalProperties: false, properties: {} };
      node = node.properties[key];
    }
    const types = p.types ?? [typeOf(value)];
    // A number documented as integer also accepts a whole number written as a float by --set (still an integer).
    const leaf = { type: types.length === 1 ? types[0] : types, description: p.description, default: value };
    node.properties[keys[keys.length - 1]] = leaf;
  }
  return root;
}

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function formatValue(value) {
  if (typeof value === 'string') return value === '' ? '`""`' : `\`${cell(value)}\``;
  return `\`${cell(JSON.stringify(value))}\``;
}

function buildReadme(values, sections) {
  const out = [];
  out.push('<!-- GENERATED by `node scripts/chart-docs.js` from values.yaml: edit values.yaml, then run it. -->');
  out.push('# idp Helm chart');
  out.push('');
  out.push(
    'The multi-tenant identity provider: `oidc` (oidc-core with the nhe-delegation sidecar bound to loopback in one pod),',
  );
  out.push(
    '`management` (admin API), `audit-writer` (JetStream consumer), the `nhe-audit-retention` CronJob, an Ingress',
  );
  out.push(
    'generated from `files/routes.json` (the table the local dev router reads), Helm hook jobs creating the MongoDB roles',
  );
  out.push('and users (`files/mongo-roles.json`) and the JetStream stream `IDP_AUDIT`, and `helm test` pods.');
  out.push('');
  out.push(
    'MongoDB and NATS are **external by default**: set `mongodb.hosts` + `mongodb.auth.existingSecret` and `nats.url` +',
  );
  out.push(
    '`nats.auth.existingSecret`. For evaluation only, `mongodb.bundled.enabled=true` and `nats.bundled.enabled=true` (with',
  );
  out.push(
    '`nats.stream.replicas=1`: the bundled NATS is a single node) deploy single-node copies inside the release.',
  );
  out.push('');
  out.push('```sh');
  out.push('helm install idp charts/idp --namespace idp --create-namespace -f my-values.yaml');
  out.push('helm test idp --namespace idp');
  out.push('```');
  out.push('');
  out.push(
    'Contradictory or missing values fail the install with one message naming the keys (`templates/validate.yaml`).',
  );
  out.push('Example value sets: `ci/default-values.yaml`, `ci/ha-values.yaml`, `ci/external-secrets-values.yaml`.');
  out.push('');
  out.push('## Trying the chart against a local API server');
  out.push('');
  out.push(
    '`npm run kube:local` starts a Kubernetes control plane on loopback (etcd, kube-apiserver with RBAC, Pod Security',
  );
  out.push(
    'admission and a ServiceAccount token issuer, kube-controller-manager; built from their Go modules into `.tools/bin`',
  );
  out.push('by `scripts/tools.sh kube`, several minutes the first time) and prints the path of an admin kubeconfig:');
  out.push('');
  out.push('```sh');
  out.push('npm run kube:local            # prints: export KUBECONFIG=/tmp/idp-kube-.../kubeconfig; Ctrl-C stops it');
  out.push('kubectl create namespace idp  # or the API; label it pod-security.kubernetes.io/enforce=restricted');
  out.push('.tools/bin/helm install idp charts/idp -n idp -f charts/idp/ci/default-values.yaml --no-hooks');
  out.push('```');
  out.push('');
  out.push(
    'It is **an API server without nodes**: objects are validated, authorized and admitted (Pod Security included), the',
  );
  out.push(
    'controllers create ReplicaSets, Pods and Jobs, but no scheduler or kubelet exists, so Pods are admitted and stay',
  );
  out.push(
    '`Pending`; images are never pulled and nothing runs. Install with `--no-hooks`: the hook Jobs never complete there,',
  );
  out.push(
    'so `helm install` with hooks waits until its timeout. Data lives in a temporary directory removed on exit.',
  );
  out.push('');
  out.push('## Parameters');
  for (const s of sections) {
    out.push('');
    out.push(`### ${s.title}`);
    out.push('');
    if (s.description.length) {
      out.push(s.description.join(' '));
      out.push('');
    }
    out.push('| Name | Description | Value |');
    out.push('| ---- | ----------- | ----- |');
    for (const p of s.params)
      out.push(`| \`${p.path}\` | ${cell(p.description)} | ${formatValue(get(values, p.path).value)} |`);
  }
  out.push('');
  return out.join('\n');
}

/** The generated files' contents from values.yaml's text. Throws on undocumented or unknown values. */
function generate(valuesText) {
  const values = YAML.parse(valuesText);
  const { sections, params } = parseComments(valuesText);
  const problems = lint(values, params);
  if (problems.length) throw new Error(problems.join('\n'));
  return {
    'values.schema.json': `${JSON.stringify(buildSchema(values, params), null, 2)}\n`,
    'README.md': buildReadme(values, sections),
  };
}

module.exports = { generate, parseComments, lint, buildSchema, chartDir };

if (require.main === module) {
  const check = process.argv.includes('--check');
  const files = generate(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
  let stale = 0;
  for (const [name, content] of Object.entries(files)) {
    const path = join(chartDir, name);
    if (check) {
      let current = '';
      try {
        current = readFileSync(path, 'utf8');
      } catch {
        /* missing */
      }
      if (current !== content) {
        process.stderr.write(`charts/idp/${name} is out of date: run node scripts/chart-docs.js\n`);
        stale++;
      }
    } else {
      writeFileSync(path, content);
      process.stdout.write(`wrote charts/idp/${name}\n`);
    }
  }
  process.exit(stale ? 1 : 0);
}
