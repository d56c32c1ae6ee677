// @ts-check
/**
 * @idp/resource-server's createVerifier against raw jose jwtVerify, in one process and one run.
 *
 * Both verify the same valid NHE delegation token (ES256, the claims of the token exchange, ~900 characters):
 *   - raw:     jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience, typ: 'at+jwt', algorithms: ['ES256'] })
 *   - package: verifier.verify({ authorization: 'Bearer …', method, url }, { scopes: ['orders:read'], delegation: 'allow' })
 *              with createVerifier({ issuer, audience }) whose discovery and JWKS come from an in-memory fetch
 *              (fetched once at warm-up, like a long-running API: no network in the measured loop).
 * The package does what an API needs on top: canonical-encoding check, RFC 9068 required claims, the remote-JWKS
 * cache lookup, the sender-constraint check, delegation (act, agent) parsing, scopes and the route rules.
 *
 * Rounds alternate raw and package (`--rounds`, `--duration` seconds each) so drift of the machine hits both;
 * each round keeps `--concurrency` verifications in flight. Prints the table and one JSON line; the target is
 * package / raw ≥ 0.9.
 *
 *   npx tsc -b libs/resource-server/tsconfig.build.json && node bench/resource-server-verify/run.js [--duration 2] [--rounds 5] [--concurrency 1,16]
 */
const { randomUUID } = require('node:crypto');
const { cpus } = require('node:os');
const { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } = require('jose');
const { createVerifier } = require('@idp/resource-server');
const { arg } = require('../common');

const ISSUER = 'https://idp.example.com/auth/42';
const AUDIENCE = 'https://api.orders.example';
const URL_ORDERS = `${AUDIENCE}/orders`;
const seconds = Number(arg('duration', '2'));
const rounds = Number(arg('rounds', '5'));
const concurrencies = arg('concurrency', '1,16').split(',').map(Number);

/** Runs `fn` with `inFlight` calls at a time for `ms`; returns calls per second. @param {() => Promise<unknown>} fn @param {number} inFlight @param {number} ms */
async function rate(fn, inFlight, ms) {
  let done = 0;
  const end = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await fn();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

async function main() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const jwks = { keys: [jwk] };
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({
    scope: 'orders:read orders:write',
    gty: 'urn:ietf:params:oauth:grant-type:token-exchange',
    azp: 12,
    client_id: 'orders-app',
    'org.vendor.tenant.name': 'acme',
    'org.vendor.tenant.id': 42,
    act: { sub: 'nhe:invoice-bot' },
    agent: {
      id: 'invoice-bot',
      type: 'llm-autonomous',
      operator: 'acme-ops',
      model: { name: 'model-x', version: '1', provider: 'vendor' },
    },
    'org.vendor.nhe.delegation': true,
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setSubject('user-1')
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(randomUUID())
    .sign(privateKey);

  const local = createLocalJWKSet(jwks);
  const rawOptions = { issuer: ISSUER, audience: AUDIENCE, typ: 'at+jwt', algorithms: ['ES256'] };
  const raw = () => jwtVerify(token, local, rawOptions);

  /** @type {Record<string, unknown>} */
  const documents = {
    [`${ISSUER}/.well-known/openid-configuration`]: { issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` },
    [`${ISSUER}/jwks`]: jwks,
  };
  let fetches = 0;
  const verifier = createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['ES256'],
    fetch: async (url) => {
      fetches++;
      return documents[url] ? Response.json(documents[url]) : new Response('', { status: 404 });
    },
  });
  const request = { authorization: `Bearer ${token}`, method: 'GET', url: URL_ORDERS };
  const rules = /** @type {const} */ ({ scopes: ['orders:read'], delegation: 'allow' });
  const pkg = () => verifier.verify(request, rules);

  // Both must accept the token (and the package must see the delegation) before anything is timed.
  const check = await pkg();
  if (check.delegation?.nheIdentifier !== 'invoice-bot') throw new Error('the package did not read the delegation');
  await raw();
  // Warm-up: JIT both paths.
  await rate(raw, 16, 500);
  await rate(pkg, 16, 500);

  const rows = [];
  for (const c of concurrencies) {
    const rawRates = [];
    const pkgRates = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so a trend in the machine's speed does not favour one side.
      if (r % 2 === 0) {
        rawRates.push(await rate(raw, c, seconds * 1000));
        pkgRates.push(await rate(pkg, c, seconds * 1000));
      } else {
        pkgRates.push(await rate(pkg, c, seconds * 1000));
        rawRates.push(await rate(raw, c, seconds * 1000));
      }
    }
    const mean = (/** @type {number[]} */ xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rawRate = mean(rawRates);
    const pkgRate = mean(pkgRates);
    rows.push({
      concurrency: c,
      raw: Math.round(rawRate),
      package: Math.round(pkgRate),
      ratio: Math.round((pkgRate / rawRate) * 1000) / 1000,
      rawRounds: rawRates.map(Math.round),
      packageRounds: pkgRates.map(Math.round),
    });
  }

  console.log(
    `resource-server verify: createVerifier vs raw jwtVerify, ES256 NHE token (${token.length} chars), ${rounds} x ${seconds} s per side, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`,
  );
  console.log('| in flight | raw jwtVerify verifies/s | createVerifier verifies/s | ratio (target ≥ 0.9) |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.concurrency} | ${r.raw} | ${r.package} | ${r.ratio.toFixed(3)} |`);
  console.log(`fetches during the whole run (discovery + JWKS): ${fetches}`);
  console.log(
    JSON.stringify({
      bench: 'resource-server-verify',
      node: process.version,
      tokenLength: token.length,
      seconds,
      rounds,
      fetches,
      rows,
      pass: rows.every((r) => r.ratio >= 0.9),
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
