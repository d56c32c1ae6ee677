/**
 * Hostile JSON input: no JSON body, however nested or odd, makes any management route answer 5xx. Every route of the
 * API is enumerated from the same list the router and the OpenAPI document are built from (so a route added later is
 * fuzzed too) and sent, with real ids in its path: whole bodies of nasty shapes (5,000-deep arrays and objects, depth
 * exactly at the bound, prototype keys, wide arrays, invalid UTF-8, lone surrogates, huge numbers, bodies over the
 * size limit) and, for each top-level field of the body, nasty values in that field. Routes without a body get a deep
 * body. Each answer is below 500, and is a status and shape the OpenAPI document declares for the operation.
 */
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { z } from 'zod';
import { MAX_JSON_BODY_DEPTH } from '@idp/http';
import { createLogger } from '@idp/logger';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { managementRoutes } from '../src/app';
import { routeAccess, type RouteDef } from '../src/openapi/route';
import { startHarness, type Harness } from './harness';

jest.setTimeout(180_000);

const ALL = [...MANAGEMENT_SCOPES];
const D = MAX_JSON_BODY_DEPTH;

/** The declared routes (no dependency is touched to list them). */
const ROUTES: RouteDef[] = managementRoutes(
  {
    models: {} as never,
    logger: createLogger({ service: 'fuzz', level: 'silent' }),
    keyStore: {} as never,
    clientSecretPepper: 'x',
    jobs: {} as never,
  },
  () => ({}),
).routes;

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + 'null' + '}'.repeat(n);
const deepMixed = (n: number) => '[{"a":'.repeat(Math.floor(n / 2)) + '1' + '}]'.repeat(Math.floor(n / 2));

/** Whole bodies (raw JSON text or bytes). */
const WHOLE: Array<[string, string | Buffer]> = [
  ['array 5000 deep', deepArray(5000)],
  ['object 5000 deep', deepObject(5000)],
  ['mixed 5000 deep', deepMixed(5000)],
  ['object exactly at the bound', deepObject(D)],
  ['array exactly at the bound', deepArray(D)],
  ['object one past the bound', deepObject(D + 1)],
  ['empty array', '[]'],
  ['a string', '"x"'],
  ['null', 'null'],
  ['huge number', '1e999'],
  ['__proto__', '{"__proto__":{"polluted":true,"enabled":false}}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}}}'],
  ['wide array', `[${new Array(20_000).fill('0').join(',')}]`],
  ['many keys', `{${Array.from({ length: 3000 }, (_, i) => `"k${i}":${i}`).join(',')}}`],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x7d])],
  ['lone surrogate', '{"a":"\\ud800"}'],
  ['duplicate keys', '{"a":1,"a":2}'],
  ['truncated', '{"a":[{"b":'],
  ['over the size limit', `{"a":"${'x'.repeat(70_000)}"}`],
];

/** Values put into each top-level field (raw JSON text). */
const VALUES: Array<[string, string]> = [
  ['array at the bound', deepArray(D - 1)],
  ['object at the bound', deepObject(D - 1)],
  ['array 5000 deep', deepArray(5000)],
  ['object 5000 deep', deepObject(5000)],
  // Deep below a member: what reaches free-form records (claims, customOptions) and lists of objects (jwks.keys).
  ['member 5000 deep', `{"k":${deepArray(5000)}}`],
  ['element 5000 deep', `[${deepObject(5000)}]`],
  ['member at the bound', `{"k":${deepArray(D - 2)}}`],
  ['element at the bound', `[${deepObject(D - 2)}]`],
  ['__proto__ object', '{"__proto__":{"polluted":true}}'],
  ['operator keys', '{"$where":"sleep(1000)","$gt":"","a.b":1}'],
  ['operator in array', '[{"$gt":""},{"$ne":null}]'],
  ['nested arrays', '[[[[]]]]'],
  ['NUL string', '"a\\u0000b"'],
  ['long string', `"${'x'.repeat(60_000)}"`],
  ['huge number', '-1e308'],
  ['fraction', '1.5'],
  ['null', 'null'],
  ['empty object', '{}'],
  ['empty string', '""'],
];

/** Top-level field names of a body schema (a zod object, possibly wrapped). */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  let s = schema as unknown as
    { shape?: Record<string, unknown>; def?: { innerType?: unknown; in?: unknown; schema?: unknown } } | undefined;
  for (let i = 0; i < 5 && s && !s.shape; i++) s = (s.def?.innerType ?? s.def?.in ?? s.def?.schema) as typeof s;
  return s?.shape ? Object.keys(s.shape) : [];
}

let h: Harness;
let tenantToken: string;
let systemToken: string;
let ids: Partial<Record<string, string>>;

beforeAll(async () => {
  h = await startHarness('mgmtfuzz');
  const T = h.tenants.a;
  tenantToken = await h.token(T, ALL);
  systemToken = await h.token(h.tenants.system, ALL);
  const base = `/auth/admin/tenants/${T}`;
  const made = async (path: string, body: unknown) => {
    const res = await h.call('post', `${base}${path}`, tenantToken, body);
    if (res.status !== 201) throw new Error(`fixture ${path}: ${res.status} ${res.text}`);
    return res.body as { id?: string; clientId?: string };
  };
  const client = await made('/clients', { clientId: 'fuzz-client', name: 'fuzz', grantTypes: ['client_credentials'] });
  const rs = await made('/resource-servers', {
    identifier: 'https://fuzz.example',
    name: 'fuzz',
    scopes: ['fuzz:read'],
  });
  const user = await made('/users', { username: 'fuzz-user', password: 'a-long-password' });
  const group = await made('/groups', { name: 'fuzz-group' });
  const role = await made('/roles', {
    name: 'fuzz-role',
    resourceServer: 'https://fuzz.example',
    permissions: ['fuzz:read'],
  });
  const nhe = await made('/non-human-entities', {
    identifier: 'fuzz-agent',
    type: 'llm-assistive',
    allowedScopes: ['fuzz:read'],
    operator: 'ops',
  });
  const policy = await made(`/non-human-entities/${nhe.id}/delegation-policies`, {
    target: { type: 'user', id: user.id },
    allowedScopes: ['fuzz:read'],
  });
  const initialAccessToken = await made('/initial-access-tokens', { maxUses: 1, expiresInSeconds: 3600 });
  const workloadIssuer = await made('/workload-issuers', {
    issuer: 'https://issuer.fuzz.example',
    jwksUri: 'https://issuer.fuzz.example/jwks',
  });
  await made('/upstream-providers', {
    alias: 'fuzz',
    type: 'oidc',
    displayName: 'Fuzz IdP',
    oidc: { issuer: 'https://idp.fuzz.example', clientId: 'fuzz', clientSecret: 'fuzz-secret' },
  });
  const idJagAudience = await made('/id-jag-audiences', { audience: 'https://as.fuzz.example' });
  const scimCredential = await made('/scim-credentials', { description: 'fuzz' });
  const absent = () => randomBytes(12).toString('hex');
  ids = {
    tenantId: String(T),
    clientId: client.clientId!,
    resourceServerId: rs.id!,
    userId: user.id!,
    groupId: group.id!,
    roleId: role.id!,
    nheId: nhe.id!,
    policyId: policy.id!,
    tokenId: initialAccessToken.id!,
    issuerId: workloadIssuer.id!,
    alias: 'fuzz',
    provider: 'fuzz',
    audienceId: idJagAudience.id!,
    credentialId: scimCredential.id!,
    auditId: absent(),
    sessionId: absent(),
    streamId: absent(),
    grantId: absent(),
    runId: absent(),
    name: 'nhe-audit-retention',
  };
});
afterAll(async () => h.close());

function urlOf(r: RouteDef): string {
  return `/auth/admin${r.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const v = ids[name];
    if (v === undefined) throw new Error(`no fixture id for :${name} in ${r.path}: add one`);
    return encodeURIComponent(v);
  })}`;
}

/** Sends raw bytes as JSON and checks the answer: below 500, and declared by the OpenAPI document. */
async function send(r: RouteDef, what: string, body: string | Buffer): Promise<number> {
  const token =
    routeAccess(r) === 'system' || r.path.startsWith('/tenants/:tenantId') === false ? systemToken : tenantToken;
  const req = request(h.app)[r.method](urlOf(r));
  const res = await req
    .set('authorization', `Bearer ${token}`)
    .set('content-type', 'application/json')
    .serialize((x: unknown) => x as string)
    .send(body);
  const where = `${r.method.toUpperCase()} ${r.path} with ${what}`;
  if (res.status >= 500) throw new Error(`${where} -> ${res.status}: ${res.text.slice(0, 300)}`);
  try {
    h.validator.check(res);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
  }
  return res.status;
}

describe.each(ROUTES.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s', (_name, r) => {
  if (!r.body) {
    it('refuses a deep body (it takes none)', async () => {
      for (const [what, body] of [
        ['array 5000 deep', deepArray(5000)],
        ['object 5000 deep', deepObject(5000)],
      ] as const)
        expect(await send(r, what, body)).toBe(400);
    });
    return;
  }

  it('never answers 5xx to nasty whole bodies', async () => {
    for (const [what, body] of WHOLE) {
      const status = await send(r, what, body);
      if (/5000 deep|one past/.test(what)) expect([what, status]).toEqual([what, 400]);
      if (what === 'over the size limit') expect([what, status]).toEqual([what, 413]);
    }
  });

  const fields = fieldsOf(r.body);
  if (fields.length) {
    it(`never answers 5xx to nasty values in each field (${fields.join(', ')})`, async () => {
      for (const field of fields) {
        for (const [what, value] of VALUES) {
          const status = await send(r, `${field}: ${what}`, `{"${field}":${value}}`);
          if (/5000 deep/.test(what)) expect([field, what, status]).toEqual([field, what, 400]);
        }
      }
    });
  }
});

it('no body polluted a prototype', () => {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});
