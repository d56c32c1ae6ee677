#!/usr/bin/env node
// npm runs this before it packs the package (`npm pack`, `npm publish`, from this folder or with
// `--workspace=libs/resource-server` at the repository root): the tarball carries only the compiled dist/, which
// is never committed, so it is built here from src/, and packing stops with an error when the build fails or
// leaves a file that package.json's entry points name missing. A tarball without code must never be produced.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const fail = (message) => {
  console.error(`@idp/resource-server prepack: ${message}`);
  process.exit(1);
};

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  fail(
    'typescript is not installed; run `npm ci` at the repository root first (it is a devDependency), then pack again',
  );
}

// A clean build: files of modules removed from src/ must not be packed from an old dist/.
rmSync(join(root, 'dist'), { recursive: true, force: true });
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0)
  fail(`the build (tsc -p tsconfig.build.json) failed${build.error ? `: ${build.error.message}` : ''}`);

// Every file an entry point names (main, types, exports) must exist.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const named = new Set([pkg.main, pkg.types]);
const walk = (v) =>
  typeof v === 'string' ? named.add(v) : v && typeof v === 'object' && Object.values(v).forEach(walk);
walk(pkg.exports);
const missing = [...named].filter((f) => f && !existsSync(join(root, f)));
if (missing.length) fail(`the build left entry points missing: ${missing.join(', ')}`);
