/**
 * The package as an outside team gets it. The package is not on a registry: it is packed (`npm pack`) from a
 * checkout that has never been built (no dist/, as after `git clone` and `npm ci`), in its folder and with
 * `--workspace` at the root; the tarball is installed without a registry into a directory outside the repository;
 * plain Node then requires and imports both entry points, TypeScript type-checks an API against the shipped typings,
 * and a token signed by an issuer served on loopback (discovery and JWKS over real HTTP) passes the verifier and the
 * express middleware, as Bearer and as a DPoP-bound token. A source that does not compile stops the pack.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { DEFAULT_DPOP_ALGORITHMS } from '../src/algorithms';

const REPO = join(__dirname, '..', '..', '..');
const PACKAGE = join(REPO, 'libs', 'resource-server');
const work = mkdtempSync(join(realpathSync(tmpdir()), 'idp-rs-pack-'));
const checkout = join(work, 'checkout');
const consumer = join(work, 'orders-api');
// npm's own environment (jest run through `npm test`) and a cache of its own: nothing may come from a registry.
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_PATH' && k !== 'NODE_OPTIONS'),
  ),
  npm_config_cache: join(work, 'npm-cache'),
  npm_config_update_notifier: 'false',
};

interface Packed {
  filename: string;
  files: { path: string }[];
}

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** `npm pack --json`: the tarball's name and files (the JSON array from its first line: older npm prints the prepack banner before it). */
function pack(args: string[], cwd: string, destination: string): Packed {
  mkdirSync(destination, { recursive: true });
  const out = run('npm', ['pack', '--json', '--pack-destination', destination, ...args], cwd);
  const [packed] = JSON.parse(out.slice(out.search(/^\[/m))) as Packed[];
  return { ...packed, filename: join(destination, packed.filename) };
}

/** The modules a consumer gets: every source file but the unit tests. */
const modules = readdirSync(join(PACKAGE, 'src'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => f.replace(/\.ts$/, ''));

let inFolder: Packed;

beforeAll(() => {
  // The checkout: the root manifest (workspaces) and base tsconfig, and the package's committed files: no dist/.
  mkdirSync(join(checkout, 'libs'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.base.json']) cpSync(join(REPO, f), join(checkout, f));
  cpSync(PACKAGE, join(checkout, 'libs', 'resource-server'), {
    recursive: true,
    filter: (src) =>
      !relative(PACKAGE, src)
        .split(sep)
        .some((part) => part === 'dist' || part === 'node_modules' || part.endsWith('.tsbuildinfo')),
  });
  // `npm ci` at the root of a clone: the repository's installed dependencies (typescript among them).
  symlinkSync(join(REPO, 'node_modules'), join(checkout, 'node_modules'), 'junction');
  expect(existsSync(join(checkout, 'libs', 'resource-server', 'dist'))).toBe(false);
  inFolder = pack([], join(checkout, 'libs', 'resource-server'), join(work, 'packed'));
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack from a checkout that was never built', () => {
  it('builds the package and packs the code, its typings and the documents, nothing else', () => {
    const files = inFolder.files.map((f) => f.path).sort();
    const expected = [
      ...modules.flatMap((m) => [`dist/${m}.js`, `dist/${m}.d.ts`]),
      'package.json',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
    ].sort();
    expect(files).toEqual(expected);
  });

  it('packs the same files with --workspace at the repository root', () => {
    const atRoot = pack(['--workspace=libs/resource-server'], checkout, join(work, 'packed-at-root'));
    expect(atRoot.files.map((f) => f.path).sort()).toEqual(inFolder.files.map((f) => f.path).sort());
  }, 120_000);

  it('fails, and packs nothing, when the source does not compile', () => {
    const broken = join(work, 'broken');
    cpSync(checkout, broken, { recursive: true, verbatimSymlinks: true });
    writeFileSync(
      join(broken, 'libs', 'resource-server', 'src', 'index.ts'),
      'export const broken: number = "not a number";\n',
      { flag: 'a' },
    );
    const destination = join(work, 'packed-broken');
    mkdirSync(destination);
    const r = spawnSync('npm', ['pack', '--pack-destination', destination], {
      cwd: join(broken, 'libs', 'resource-server'),
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(
      /@idp\/resource-server prepack: the build \(tsc -p tsconfig.build.json\) failed/,
    );
    expect(readdirSync(destination)).toEqual([]);
  }, 120_000);
});

describe('the documents say what the package is', () => {
  const version = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string }).version;
  const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');

  it("name one version, package.json's: the tarball's name, the changelog's latest entry, the repository's SDK page", () => {
    expect(inFolder.filename.endsWith(`idp-resource-server-${version}.tgz`)).toBe(true);
    const tarballs = [...readme.matchAll(/idp-resource-server-(\d+\.\d+\.\d+)\.tgz/g)].map((m) => m[1]);
    expect(tarballs.length).toBeGreaterThan(0);
    expect(new Set(tarballs)).toEqual(new Set([version]));
    expect(/^## (\S+)$/m.exec(readFileSync(join(PACKAGE, 'CHANGELOG.md'), 'utf8'))?.[1]).toBe(version);
    const named = [
      ...readFileSync(join(REPO, 'docs', 'developers', 'sdk.md'), 'utf8').matchAll(
        /`@idp\/resource-server` (\d+\.\d+\.\d+)/g,
      ),
    ].map((m) => m[1]);
    expect(new Set(named)).toEqual(new Set([version]));
  });

  it('show the default DPoP algorithms the code has, and no install from a registry that does not have the package', () => {
    expect(readme).toContain(
      `dpop: { algorithms: [${DEFAULT_DPOP_ALGORITHMS.map((a) => `'${a}'`).join(', ')}], maxAge: 60, required: false }, // default`,
    );
    expect(readme).not.toMatch(/npm install @idp\/resource-server/);
  });
});

describe('the tarball installed outside the repository', () => {
  beforeAll(() => {
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'orders-api', version: '1.0.0', private: true }),
    );
    // jose (the only dependency) comes as a tarball too: the install has no registry to fetch it from.
    const jose = pack(
      ['--ignore-scripts', realpathSync(join(REPO, 'node_modules', 'jose'))],
      consumer,
      join(work, 'packed-jose'),
    );
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', jose.filename, inFolder.filename], consumer);
  }, 120_000);

  it('is a real copy in the directory, not a link into the repository', () => {
    const installed = join(consumer, 'node_modules', '@idp', 'resource-server');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(relative(REPO, realpathSync(installed)).startsWith('..')).toBe(true);
  });

  it('loads from plain Node with require and import, both entry points', () => {
    writeFileSync(
      join(consumer, 'entry-points.cjs'),
      `const rs = require('@idp/resource-server'); const ex = require('@idp/resource-server/express');
       console.log(JSON.stringify({ require: [typeof rs.createVerifier, typeof rs.createSsfPollReceiver, typeof ex.requireAccess, typeof ex.accessOf], resolved: require.resolve('@idp/resource-server') }));`,
    );
    writeFileSync(
      join(consumer, 'entry-points.mjs'),
      `import { createVerifier, DEFAULT_DPOP_ALGORITHMS } from '@idp/resource-server'; import { requireAccess } from '@idp/resource-server/express';
       console.log(JSON.stringify({ import: [typeof createVerifier, typeof requireAccess], dpop: DEFAULT_DPOP_ALGORITHMS }));`,
    );
    const cjs = JSON.parse(run(process.execPath, ['entry-points.cjs'], consumer)) as {
      require: string[];
      resolved: string;
    };
    expect(cjs.require).toEqual(['function', 'function', 'function', 'function']);
    expect(cjs.resolved).toBe(
      join(realpathSync(consumer), 'node_modules', '@idp', 'resource-server', 'dist', 'index.js'),
    );
    const esm = JSON.parse(run(process.execPath, ['entry-points.mjs'], consumer)) as {
      import: string[];
      dpop: string[];
    };
    expect(esm).toEqual({ import: ['function', 'function'], dpop: ['ES256', 'EdDSA', 'Ed25519', 'PS256'] });
  });

  it('has typings: an API written in TypeScript type-checks against them, and a misuse does not', () => {
    // A Node API type-checks with Node's own types (fetch, URL): the repository's @types/node stands in for its own.
    const compilerOptions = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2023'],
      strict: true,
      noEmit: true,
      typeRoots: [join(REPO, 'node_modules', '@types')],
      types: ['node'],
    };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['api.ts'] }));
    const api = `import { createVerifier, type Access } from '@idp/resource-server';
import { accessOf, requireAccess } from '@idp/resource-server/express';
const verifier = createVerifier({ issuer: 'https://idp.example.com/auth/42', audience: 'https://api.example.com' });
export const guard = requireAccess(verifier, { scopes: ['orders:read'], delegation: 'deny' });
export const userOf = (req: Parameters<typeof accessOf>[0]): string => accessOf(req).userId;
export const verified: Promise<Access> = verifier.verify({ authorization: 'Bearer x', method: 'GET', url: 'https://api.example.com/orders' });
`;
    // One compilation: the misuse on the last line is the only error (a missing typing would add its own, and
    // typings resolved to any would hide the misuse).
    writeFileSync(join(consumer, 'api.ts'), `${api}export const wrong: number = verifier.dpopAlgorithms;\n`);
    const r = spawnSync(
      process.execPath,
      [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      { cwd: consumer, env, encoding: 'utf8' },
    );
    expect(r.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^api\.ts\(7,\d+\): error TS2322: Type 'readonly string\[\]' is not assignable to type 'number'\.$/,
      ),
    ]);
  }, 60_000);

  it('verifies tokens of an issuer on loopback: Bearer and DPoP, with the verifier and the express middleware', () => {
    writeFileSync(join(consumer, 'api.mjs'), CONSUMER_API);
    const result = JSON.parse(run(process.execPath, ['api.mjs'], consumer)) as Record<string, unknown>;
    expect(result).toEqual({
      bearer: { userId: 'alice', scopes: ['orders:read'], clientId: 'orders-app', scheme: 'Bearer' },
      dpop: { userId: 'alice', scheme: 'DPoP' },
      middleware: { nextCalled: true, userId: 'alice' },
      noToken: { status: 401, challenge: 'Bearer, DPoP algs="ES256 EdDSA Ed25519 PS256"' },
      dpopEs384: { error: 'invalid_dpop_proof', message: 'DPoP proof alg is not supported' },
      wrongAudience: { error: 'invalid_token', status: 401 },
    });
  }, 60_000);
});

/** The outside API: plain Node, only the installed packages (jose for the issuer's side of the test). */
const CONSUMER_API = String.raw`
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createVerifier } from '@idp/resource-server';
import { accessOf, requireAccess } from '@idp/resource-server/express';

const signing = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
const server = createServer((req, res) => {
  const body = req.url === '/auth/7/.well-known/openid-configuration' ? { issuer, jwks_uri: issuer + '/jwks' } : req.url === '/auth/7/jwks' ? { keys: [jwk] } : undefined;
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = 'http://127.0.0.1:' + server.address().port + '/auth/7';
const audience = 'https://api.orders.example';
const url = audience + '/orders';
const token = (claims = {}, aud = audience) => new SignJWT({ scope: 'orders:read', client_id: 'orders-app', jti: randomUUID(), ...claims })
  .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }).setIssuer(issuer).setAudience(aud).setSubject('alice')
  .setIssuedAt().setExpirationTime('5m').sign(signing.privateKey);
const holder = async (alg) => { const k = await generateKeyPair(alg); const pub = await exportJWK(k.publicKey); return { ...k, pub, jkt: await calculateJwkThumbprint(pub) }; };
const proof = async (h, at, alg) => new SignJWT({ htm: 'GET', htu: url, jti: randomUUID(), ath: Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(at))).toString('base64url') })
  .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: h.pub }).setIssuedAt().sign(h.privateKey);
const refusal = (p) => p.then(() => ({ passed: true }), (e) => e);

const verifier = createVerifier({ issuer, audience });
const out = {};
const a = await verifier.verify({ authorization: 'Bearer ' + (await token()), method: 'GET', url });
out.bearer = { userId: a.userId, scopes: a.scopes, clientId: a.clientId, scheme: a.scheme };
const es256 = await holder('ES256');
const bound = await token({ cnf: { jkt: es256.jkt } });
const d = await verifier.verify({ authorization: 'DPoP ' + bound, dpop: await proof(es256, bound, 'ES256'), method: 'GET', url });
out.dpop = { userId: d.userId, scheme: d.scheme };
const es384 = await holder('ES384');
const bound384 = await token({ cnf: { jkt: es384.jkt } });
const e = await refusal(verifier.verify({ authorization: 'DPoP ' + bound384, dpop: await proof(es384, bound384, 'ES384'), method: 'GET', url }));
out.dpopEs384 = { error: e.error, message: e.message };
const w = await refusal(verifier.verify({ authorization: 'Bearer ' + (await token({}, 'https://other.example')), method: 'GET', url }));
out.wrongAudience = { error: w.error, status: w.status };

// The middleware with express's shape of request and response (express itself is an optional peer dependency).
const guard = requireAccess(verifier, { scopes: ['orders:read'] });
const call = (headers) => new Promise((resolve) => {
  const req = { method: 'GET', originalUrl: '/orders', headers, headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])) };
  const res = { statusCode: 200, headers: {}, status(s) { this.statusCode = s; return this; }, setHeader(k, v) { this.headers[k.toLowerCase()] = v; return this; }, json() { resolve({ req, res: this, next: false }); return this; } };
  guard(req, res, (err) => resolve({ req, res, next: true, err }));
});
const ok = await call({ authorization: 'Bearer ' + (await token()) });
out.middleware = { nextCalled: ok.next && !ok.err, userId: accessOf(ok.req).userId };
const none = await call({});
out.noToken = { status: none.res.statusCode, challenge: none.res.headers['www-authenticate'] };
server.close();
console.log(JSON.stringify(out));
`;
