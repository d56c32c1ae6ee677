/**
 * An outsider cannot stall a tenant through the provider's outbound fetches (provider/outbound-fetches.ts), replayed
 * over real connections: `/authorize` requests whose `client_id` names a Client ID Metadata Document on a tarpit (a
 * server that accepts connections and never answers), and token requests of a dynamically registered
 * private_key_jwt client whose `jwks_uri` never answers. Before, each such request held one of the tenant's admission
 * slots for the whole fetch, twice (node-oidc-provider looks the client up again on its error path) and failures were
 * not remembered: eight of them made a valid client_credentials request of the same tenant wait about 20 s. Now a
 * request waiting on a fetch holds no slot, a tenant has a few fetches in flight at most (one more is refused at once
 * with invalid_client "try again later"), a request fetches a URL once, and a failed URL is refused without fetching
 * for a while. The deadlines are the real ones (1 s to connect, 2.5 s in all).
 *
 * The tenant is capped at 2 requests at once, as every tenant is while another tenant is active in the process
 * (TENANT_MAX_IN_FLIGHT's default); here it is alone, so its alone cap is set to the same 2.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { basicAuth } from '@idp/testing';
import { startDocServer, testResolver, type DocServer } from './doc-server';
import { startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
let docs: DocServer;
let tarpit: { server: Server; port: number; connections: number; sockets: Set<Socket> };
let T: number;
/** A registered private_key_jwt client whose jwks_uri never answers, and a key it signs assertions with. */
let jwtClient: { clientId: string; key: CryptoKey };

const CALLBACK = 'http://127.0.0.1:8733/callback';

beforeAll(async () => {
  docs = await startDocServer();
  // Accepts every connection and never writes a byte: a TLS handshake with it never completes.
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    tarpit.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  tarpit = { server, port: (server.address() as AddressInfo).port, connections: 0, sockets };
  // An https route that never answers: the TLS handshake completes, the HTTP answer never comes.
  docs.route('/silent/jwks.json', () => undefined);
  app = await startPagesApp('outbound', {
    // The operator allows loopback fetches (CIMD_ALLOW_LOOPBACK): the servers of this test are on loopback.
    outbound: { ca: docs.ca, resolve: testResolver, allowLoopback: true },
    admission: { maxInFlight: 2, maxInFlightAlone: 2, maxQueued: 512 },
  });
  T = app.tenant.tenantId;
  await app.db.models.Tenant.updateOne(
    { _id: T },
    {
      $set: {
        'settings.clientIdMetadataDocuments': { enabled: true },
        'settings.registration': {
          mode: 'open',
          grantTypes: ['client_credentials'],
          tokenEndpointAuthMethods: ['private_key_jwt'],
          rateLimit: { maxPerWindow: 1000, windowSeconds: 3600 },
        },
      },
    },
  );
  app.pool.clear();
  jwtClient = await registerJwtClient('Key set on a tarpit', docs.url('/silent/jwks.json'));
}, 60_000);

/** Registers a private_key_jwt client (client_credentials) whose keys are at `jwksUri`; its key pair. */
async function registerJwtClient(
  name: string,
  jwksUri: string,
): Promise<{ clientId: string; key: CryptoKey; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const reg = await fetch(`${app.baseUrl}/auth/${T}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks_uri: jwksUri,
    }),
  });
  const body = (await reg.json()) as Record<string, unknown>;
  if (reg.status !== 201) throw new Error(`registration: ${reg.status} ${JSON.stringify(body)}`);
  return {
    clientId: String(body.client_id),
    key: privateKey,
    publicJwk: { ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig' },
  };
}

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  const pit = tarpit as typeof tarpit | undefined;
  for (const s of pit?.sockets ?? []) s.destroy();
  await new Promise((r) => (pit ? pit.server.close(r) : r(undefined)));
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await (docs as DocServer | undefined)?.stop();
});

/** A metadata document URL on the tarpit (a name the test resolver points at loopback). */
const onTarpit = (path: string) => `https://localhost:${tarpit.port}${path}`;

/** The first step of an authorization request naming `clientId`: the provider's answer, and how long it took. */
async function authorize(clientId: string): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const params = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: CALLBACK,
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${app.baseUrl}/auth/${T}/authorize?${params}`, {
    redirect: 'manual',
    headers: { accept: 'text/html' },
  });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - started };
}

/** A client_credentials request of a private_key_jwt client (its key set has to be fetched to check it). */
async function jwtClientToken(
  client: { clientId: string; key: CryptoKey } = jwtClient,
): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer(client.clientId)
    .setSubject(client.clientId)
    .setAudience(`${app.baseUrl}/auth/${T}`)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(client.key);
  const res = await fetch(`${app.baseUrl}/auth/${T}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: performance.now() - started };
}

/** The tenant admin's client_credentials request (client_secret_basic: nothing to fetch), and how long it took. */
async function adminToken(): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${app.baseUrl}/auth/${T}/oidc/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(app.tenant.admin.clientId, app.tenant.admin.clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:idp:management' }),
  });
  await res.text();
  return { status: res.status, ms: performance.now() - started };
}

async function until(what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

it('eight tarpit lookups at /authorize and a private_key_jwt client whose jwks_uri never answers leave a valid client_credentials request of the same tenant under 1.5 s', async () => {
  expect((await adminToken()).status).toBe(200);
  const connectionsBefore = tarpit.connections;
  const lookups = Array.from({ length: 8 }, (_, i) => authorize(onTarpit(`/replay/${i}.json`)));
  const keyChecks = Array.from({ length: 2 }, () => jwtClientToken());
  // The attack is under way: fetches are hanging on the tarpit.
  await until('the tarpit holds connections', () => tarpit.connections > connectionsBefore);
  await new Promise((r) => setTimeout(r, 200));
  const token = await adminToken();
  expect(token.status).toBe(200);
  expect(token.ms).toBeLessThan(1500);
  // The requests waiting on the hanging fetches hold none of the tenant's slots.
  await until('no request of the tenant holds a slot', () => app.admission.inFlight(String(T)) === 0);
  // Every attacking request ended with invalid_client, within the deadlines (once each: 1 s to connect, 2.5 s in all).
  for (const res of await Promise.all(lookups)) {
    expect(res.status).toBe(400);
    expect(res.text).toContain('invalid_client');
    expect(res.ms).toBeLessThan(4000);
  }
  for (const res of await Promise.all(keyChecks)) {
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
    expect(res.ms).toBeLessThan(4000);
  }
}, 60_000);

it('refuses a fetch beyond the tenant limit at once, with invalid_client and "try again later", and never makes it', async () => {
  for (let i = 0; i < 5; i++) docs.route(`/limit/${i}.json`, () => undefined);
  const hanging = Array.from({ length: 4 }, (_, i) => authorize(docs.url(`/limit/${i}.json`)));
  await until('four fetches in flight', () => [0, 1, 2, 3].every((i) => docs.hits.get(`/limit/${i}.json`) === 1));
  const refused = await authorize(docs.url('/limit/4.json'));
  expect(refused.status).toBe(400);
  expect(refused.text).toContain('invalid_client');
  expect(refused.text).toMatch(/too many outbound fetches in progress for this tenant; try again later/);
  expect(refused.ms).toBeLessThan(500);
  expect(docs.hits.get('/limit/4.json')).toBeUndefined();
  // A key set that would be a fifth fetch (a client whose key set was never fetched): refused at once too.
  docs.route('/limit/jwks.json', () => undefined);
  const key = await jwtClientToken(await registerJwtClient('Fifth fetch', docs.url('/limit/jwks.json')));
  expect([key.status, key.body.error]).toEqual([401, 'invalid_client']);
  expect(key.ms).toBeLessThan(500);
  await Promise.all(hanging);
  // Once they are over, there is room again.
  expect((await authorize(docs.url('/limit/4.json'))).text).not.toMatch(/too many outbound fetches/);
}, 30_000);

it('remembers a failed URL: the next request naming it is refused at once, without fetching', async () => {
  // No answer: given up at the connect deadline (the TLS handshake never completes), not after 2 x 2.5 s.
  const silent = onTarpit('/remembered/never.json');
  const before = tarpit.connections;
  const first = await authorize(silent);
  expect(first.status).toBe(400);
  expect(first.ms).toBeLessThan(2000);
  expect(tarpit.connections - before).toBe(1);
  const second = await authorize(silent);
  expect(second.status).toBe(400);
  expect(second.text).toMatch(
    /its last fetch failed \(no answer in time\) and is not retried for 30 s; try again later/,
  );
  expect(second.ms).toBeLessThan(500);
  expect(tarpit.connections - before).toBe(1);
  // An error status counts as a failure too.
  docs.route('/remembered/gone.json', (_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  await authorize(docs.url('/remembered/gone.json'));
  const again = await authorize(docs.url('/remembered/gone.json'));
  expect(again.text).toMatch(/its last fetch failed \(answered 404\)/);
  expect(docs.hits.get('/remembered/gone.json')).toBe(1);
}, 30_000);

it("fetches a URL once per request: the provider's second look-up on its error path reuses the answer", async () => {
  // Answered at once, and refused (its client_id is not its URL): nothing to remember as a failed fetch.
  const url = docs.url('/once/client.json');
  docs.json('/once/client.json', {
    client_id: 'https://elsewhere.example/client.json',
    redirect_uris: [CALLBACK],
    token_endpoint_auth_method: 'none',
  });
  const res = await authorize(url);
  expect(res.status).toBe(400);
  expect(res.text).toContain('invalid_client');
  expect(docs.hits.get('/once/client.json')).toBe(1);
});

it("requests of one client that await its key-set refresh hold no slot either: with the tenant's two slots taken by them, the refresh still completes and every request is answered", async () => {
  // A key set that takes a while to come, then is right: node-oidc-provider fetches it once for the client, and the
  // client's other requests await that refresh. Holding slots, two of them would keep the fetching request from
  // going on once its answer is in, and the tenant would stall for good.
  // Filled in once the client is registered (the route may be asked before: it then serves no key).
  const slow: { keys?: JWK } = {};
  docs.route('/slow/jwks.json', (_req, res) => {
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [slow.keys] }));
    }, 800);
  });
  const client = await registerJwtClient('Slow key set', docs.url('/slow/jwks.json'));
  slow.keys = client.publicJwk;
  const hits = docs.hits.get('/slow/jwks.json') ?? 0;
  const requests = Array.from({ length: 4 }, () => jwtClientToken(client));
  let answered = false;
  void Promise.all(requests).then(() => (answered = true));
  // While the key set is being fetched, none of the four holds a slot (the one fetching, the three awaiting it).
  await until('the key set is being fetched', () => docs.hits.get('/slow/jwks.json') === hits + 1);
  await until('no request holds a slot while the key set is fetched', () => app.admission.inFlight(String(T)) === 0);
  expect(answered).toBe(false);
  const answers = await Promise.race([
    Promise.all(requests),
    new Promise<'stalled'>((r) => setTimeout(() => r('stalled'), 15_000)),
  ]);
  expect(answers).not.toBe('stalled');
  for (const res of answers as Array<{ status: number; body: Record<string, unknown> }>)
    expect([res.status, res.body.token_type]).toEqual([200, 'Bearer']);
  expect((docs.hits.get('/slow/jwks.json') ?? 0) - hits).toBe(1);
  expect((await adminToken()).status).toBe(200);
  await until('no request of the tenant holds a slot', () => app.admission.inFlight(String(T)) === 0);
}, 30_000);
