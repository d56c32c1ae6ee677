/**
 * The per-tenant SCIM 2.0 service provider (RFC 7643, RFC 7644) over real HTTP (supertest) and the real store:
 * authentication by SCIM credential or scoped access token, Users and Groups CRUD, filters and pagination, ETags,
 * the PATCH shapes Microsoft Entra ID and Okta send, offboarding (kill switch, sessions, grants, tokens, pending
 * interactions), and the refusals: another tenant's or a revoked credential, malformed filters and patches (SCIM
 * errors, never a 500), writes that would reach another tenant or a local administrator.
 */
import express from 'express';
import request, { type Response } from 'supertest';
import { userPermissions } from '@idp/db';
import { createLogger } from '@idp/logger';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { credentialDigest } from '../src/scim/auth';
import { SCIM_PATH, scimRouter } from '../src/scim/router';
import { startHarness, type Harness } from './harness';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let credA: string;
let credB: string;

const base = (t: number) => `/auth/${t}/scim/v2`;

async function scim(
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  let req = request(h.app)[method](path);
  if (token) req = req.set('authorization', `Bearer ${token}`);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  if (typeof body === 'string') req = req.set('content-type', 'application/scim+json').send(body);
  else if (body !== undefined) req = req.set('content-type', 'application/scim+json').send(JSON.stringify(body));
  const res = await req;
  if (res.status >= 500 && res.status !== 503)
    throw new Error(`${method} ${path} -> ${res.status} ${res.text}: never a server error for what a client sends`);
  if (res.status >= 400) {
    // RFC 7644 section 3.12: every error is a SCIM error body.
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: String(res.status) });
  }
  return res;
}

const scimType = (res: Response) => (res.body as { scimType?: string }).scimType;

async function createCredential(tenantId: number, token: string) {
  const res = await h.call('post', `/auth/admin/tenants/${tenantId}/scim-credentials`, token, { description: 'entra' });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string; scimBaseUrl: string };
}

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER, ENTERPRISE],
  userName,
  externalId: `ext-${userName}`,
  active: true,
  name: { givenName: 'Grace', familyName: 'Hopper', formatted: 'Grace Hopper' },
  displayName: 'Grace Hopper',
  emails: [{ value: `${userName}@example.com`, type: 'work', primary: true }],
  [ENTERPRISE]: { department: 'Research', employeeNumber: '42' },
  ...extra,
});

beforeAll(async () => {
  h = await startHarness('mgmtscim');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  credA = (await createCredential(A, adminA)).secret;
  credB = (await createCredential(B, await h.token(B, [...MANAGEMENT_SCOPES]))).secret;
});
afterAll(async () => h.close());

describe('credentials and authentication', () => {
  it('issues a credential once, lists it without the secret, and refuses it once revoked', async () => {
    const issued = await createCredential(A, adminA);
    expect(issued.secret).toMatch(/^scim_/);
    expect(issued.scimBaseUrl).toBe(`https://idp.test/auth/${A}/scim/v2`);
    const stored = await h.db.models.ScimCredential.findOne({ tenantId: A, credentialId: issued.id }).lean();
    expect(stored?.digest).toHaveLength(64);
    expect(JSON.stringify(stored)).not.toContain(issued.secret);

    expect((await scim('get', `${base(A)}/ServiceProviderConfig`, issued.secret)).status).toBe(200);
    const list = await h.call('get', `/auth/admin/tenants/${A}/scim-credentials`, adminA);
    const row = (list.body.items as Array<Record<string, unknown>>).find((i) => i.id === issued.id);
    expect(row).toBeDefined();
    expect(row?.lastUsedAt).toBeDefined();
    expect(JSON.stringify(list.body)).not.toContain(issued.secret);

    const revoked = await h.call('post', `/auth/admin/tenants/${A}/scim-credentials/${issued.id}/revoke`, adminA);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toBeDefined();
    const refused = await scim('get', `${base(A)}/Users`, issued.secret);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await h.call('delete', `/auth/admin/tenants/${A}/scim-credentials/${issued.id}`, adminA)).status).toBe(204);
  });

  it('needs every user and group scope to create a credential', async () => {
    const narrow = await h.token(A, ['auth.users.create']);
    expect((await h.call('post', `/auth/admin/tenants/${A}/scim-credentials`, narrow, {})).status).toBe(403);
    const usersOnly = await h.token(A, ['auth.users.create', 'auth.users.update', 'auth.users.delete']);
    const refused = await h.call('post', `/auth/admin/tenants/${A}/scim-credentials`, usersOnly, {});
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('auth.groups.create');
  });

  it("refuses no credential, another tenant's credential and a token without the SCIM scope", async () => {
    expect((await scim('get', `${base(A)}/Users`, undefined)).status).toBe(401);
    expect((await scim('get', `${base(A)}/Users`, 'scim_not-a-credential')).status).toBe(401);
    expect((await scim('get', `${base(A)}/Users`, credB)).status).toBe(401);
    expect((await scim('get', `${base(A)}/Users`, await h.token(A, ['auth.users.list']))).status).toBe(403);
    expect((await scim('get', `${base(A)}/Users`, await h.token(B, ['auth.scim.provision']))).status).toBe(403);
    expect((await scim('get', `${base(A)}/Users`, await h.token(A, ['auth.scim.provision']))).status).toBe(200);
    expect((await scim('get', `/auth/999999999999/scim/v2/Users`, credA)).status).toBe(404);
  });
});

describe('discovery', () => {
  it('serves ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    const spc = await scim('get', `${base(A)}/ServiceProviderConfig`, credA);
    expect(spc.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true },
      etag: { supported: true },
    });
    const types = await scim('get', `${base(A)}/ResourceTypes`, credA);
    expect((types.body.Resources as Array<{ id: string }>).map((r) => r.id)).toEqual(['User', 'Group']);
    const schemas = await scim('get', `${base(A)}/Schemas`, credA);
    expect((schemas.body.Resources as Array<{ id: string }>).map((r) => r.id)).toEqual([USER, ENTERPRISE, GROUP]);
    expect((await scim('get', `${base(A)}/Schemas/${encodeURIComponent(USER)}`, credA)).body.name).toBe('User');
    expect((await scim('get', `${base(A)}/Nothing`, credA)).status).toBe(404);
  });
});

describe('Users', () => {
  it('creates, reads, filters, pages, replaces with ETags, and maps claims', async () => {
    const created = await scim('post', `${base(A)}/Users`, credA, newUser('grace'));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.headers.location).toBe(`https://idp.test/auth/${A}/scim/v2/Users/${id}`);
    expect(created.headers.etag).toBe(created.body.meta.version);
    expect(created.body).toMatchObject({
      userName: 'grace',
      active: true,
      externalId: 'ext-grace',
      [ENTERPRISE]: { department: 'Research' },
    });
    const stored = await h.db.models.User.findOne({ tenantId: A, _id: id }).lean();
    expect(stored).toMatchObject({ managedBy: 'scim', externalId: 'ext-grace', enabled: true });
    expect(stored?.claims).toMatchObject({
      email: 'grace@example.com',
      given_name: 'Grace',
      family_name: 'Hopper',
      name: 'Grace Hopper',
    });

    // userName is unique regardless of case (RFC 7643 section 4.1.1).
    const dup = await scim('post', `${base(A)}/Users`, credA, newUser('GRACE', { externalId: 'other' }));
    expect(dup.status).toBe(409);
    expect(scimType(dup)).toBe('uniqueness');

    await scim('post', `${base(A)}/Users`, credA, newUser('alan'));
    await scim('post', `${base(A)}/Users`, credA, newUser('ada', { active: false }));
    const q = async (filter: string) =>
      (
        (await scim('get', `${base(A)}/Users?filter=${encodeURIComponent(filter)}`, credA)).body.Resources as Array<{
          userName: string;
        }>
      )
        .map((r) => r.userName)
        .sort();
    expect(await q('userName eq "Grace"')).toEqual(['grace']);
    expect(await q('userName sw "a"')).toEqual(['ada', 'alan']);
    expect(await q('externalId eq "ext-alan"')).toEqual(['alan']);
    expect(await q('emails[type eq "work" and value eq "ada@example.com"]')).toEqual(['ada']);
    expect(await q('emails.value eq "ALAN@example.com"')).toEqual(['alan']);
    expect(await q('active eq false')).toEqual(['ada']);
    expect(await q('userName eq "grace" or userName eq "ada"')).toEqual(['ada', 'grace']);
    expect(await q('userName sw "a" and active eq true')).toEqual(['alan']);
    expect(await q('not (userName sw "a")')).toEqual(['grace']);

    const page1 = await scim('get', `${base(A)}/Users?startIndex=1&count=2`, credA);
    expect(page1.body).toMatchObject({ totalResults: 3, startIndex: 1, itemsPerPage: 2 });
    const page2 = await scim('get', `${base(A)}/Users?startIndex=3&count=2`, credA);
    expect(page2.body).toMatchObject({ totalResults: 3, startIndex: 3, itemsPerPage: 1 });
    const countOnly = await scim('get', `${base(A)}/Users?count=0`, credA);
    expect(countOnly.body).toMatchObject({ totalResults: 3, itemsPerPage: 0 });

    const attrs = await scim('get', `${base(A)}/Users/${id}?attributes=userName`, credA);
    expect(Object.keys(attrs.body).sort()).toEqual(['id', 'meta', 'schemas', 'userName']);

    // PUT with a stale ETag: 412; with the current one: replaced.
    const stale = await scim('put', `${base(A)}/Users/${id}`, credA, newUser('grace', { title: 'x' }), {
      'if-match': 'W/"1"',
    });
    expect(stale.status).toBe(412);
    const put = await scim('put', `${base(A)}/Users/${id}`, credA, newUser('grace', { title: 'Rear Admiral' }), {
      'if-match': created.headers.etag as string,
    });
    expect(put.status).toBe(200);
    expect(put.body.title).toBe('Rear Admiral');
  });
});

describe('PATCH shapes of Microsoft Entra ID', () => {
  // learn.microsoft.com, "Tutorial: Develop and plan provisioning for a SCIM endpoint in Microsoft Entra ID",
  // section "User operations" / "Group operations" request examples, and Entra's observed shapes (capitalised op
  // names, "False" strings, a bare string for the enterprise manager).
  it('updates attributes, deactivates and reactivates a user, and adds and removes group members', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('entra.user'))).body.id as string;
    const m = (await scim('post', `${base(A)}/Users`, credA, newUser('entra.manager'))).body.id as string;
    const patched = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updated@example.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: m },
        { op: 'Replace', value: { 'name.givenName': 'Gracie', [`${ENTERPRISE}:department`]: 'Navy' } },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.emails[0].value).toBe('updated@example.com');
    expect(patched.body.name).toMatchObject({ givenName: 'Gracie', familyName: 'updatedFamilyName' });
    expect(patched.body[ENTERPRISE]).toMatchObject({ department: 'Navy', manager: { value: m } });
    expect((await h.db.models.User.findById(u).lean())?.claims).toMatchObject({
      email: 'updated@example.com',
      given_name: 'Gracie',
    });

    const before = h.revocations.length;
    const off = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(h.revocations.slice(before)).toEqual([
      expect.objectContaining({ tenantId: A, subject: u, reason: 'user.deprovisioned' }),
    ]);

    const on = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    expect(on.body.active).toBe(true);
    expect(h.revocations.length).toBe(before + 1);

    const g = await scim('post', `${base(A)}/Groups`, credA, {
      schemas: [GROUP],
      displayName: 'Entra Engineers',
      externalId: 'entra-g',
    });
    expect(g.status).toBe(201);
    const gid = g.body.id as string;
    const add = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: u }, { value: m }] }],
    });
    expect(add.status).toBe(200);
    expect((add.body.members as Array<{ value: string }>).map((x) => x.value).sort()).toEqual([u, m].sort());
    expect((await h.db.models.User.findById(u).lean())?.groupIds).toContain(gid);
    const remove = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: m }] }],
    });
    expect((remove.body.members as Array<{ value: string }>).map((x) => x.value)).toEqual([u]);
    expect((await h.db.models.User.findById(m).lean())?.groupIds).not.toContain(gid);
    const rename = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'displayName', value: 'Entra Engineering' }],
    });
    expect(rename.body.displayName).toBe('Entra Engineering');
    // Entra asks for groups without members when it only checks existence.
    const excluded = await scim(
      'get',
      `${base(A)}/Groups?filter=${encodeURIComponent('displayName eq "Entra Engineering"')}&excludedAttributes=members`,
      credA,
    );
    expect(excluded.body.Resources[0].members).toBeUndefined();
  });
});

describe('PATCH shapes of Okta', () => {
  // developer.okta.com, "SCIM 2.0 protocol reference" (Update a specific User (PATCH), Update a specific Group name,
  // Update specific Group membership): path-less replace with a partial resource, members[value eq "..."] removal.
  it('deactivates with a path-less replace and changes group name and members', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('okta.user'))).body.id as string;
    const v = (await scim('post', `${base(A)}/Users`, credA, newUser('okta.other'))).body.id as string;
    const gid = (
      await scim('post', `${base(A)}/Groups`, credA, {
        schemas: [GROUP],
        displayName: 'Okta Group',
        members: [{ value: u, display: 'okta.user' }],
      })
    ).body.id as string;

    const rename = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: gid, displayName: 'Okta Group Renamed' } }],
    });
    expect(rename.status).toBe(200);
    expect(rename.body).toMatchObject({ id: gid, displayName: 'Okta Group Renamed' });
    const add = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: v, display: 'okta.other' }] }],
    });
    expect((add.body.members as unknown[]).length).toBe(2);
    const remove = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${u}"]` }],
    });
    expect((remove.body.members as Array<{ value: string }>).map((x) => x.value)).toEqual([v]);
    const member = await scim(
      'get',
      `${base(A)}/Groups?filter=${encodeURIComponent(`members[value eq "${v}"]`)}`,
      credA,
    );
    expect((member.body.Resources as Array<{ id: string }>).map((r) => r.id)).toEqual([gid]);

    const before = h.revocations.length;
    const off = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.body.active).toBe(false);
    expect(h.revocations.slice(before)).toEqual([
      expect.objectContaining({ subject: u, reason: 'user.deprovisioned' }),
    ]);
    // Okta's PUT replacing the whole user, with the password it manages.
    const put = await scim(
      'put',
      `${base(A)}/Users/${v}`,
      credA,
      newUser('okta.other', { password: 'correct horse battery' }),
    );
    expect(put.status).toBe(200);
    expect(put.body.password).toBeUndefined();
  });
});

describe('group membership drives RBAC', () => {
  it("gives members the roles an administrator assigned to the directory's group", async () => {
    const rs = 'https://api.example/scim-rbac';
    const role = await h.db.models.Role.create({
      tenantId: A,
      name: 'scim-readers',
      resourceServer: rs,
      permissions: ['read'],
    });
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('rbac.user'))).body.id as string;
    const gid = (await scim('post', `${base(A)}/Groups`, credA, { schemas: [GROUP], displayName: 'Readers' })).body
      .id as string;
    await h.db.models.Group.updateOne({ tenantId: A, _id: gid }, { $set: { roleIds: [String(role._id)] } });
    expect([...(await userPermissions(h.db.models, A, u, rs))]).toEqual([]);
    await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: u }] }],
    });
    expect([...(await userPermissions(h.db.models, A, u, rs))]).toEqual(['read']);
    await scim('delete', `${base(A)}/Groups/${gid}`, credA);
    expect([...(await userPermissions(h.db.models, A, u, rs))]).toEqual([]);
  });
});

describe('offboarding', () => {
  it('ends sessions, grants and what was issued under them, pending interactions, and revokes through the kill switch', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('leaver'))).body.id as string;
    const other = (await scim('post', `${base(A)}/Users`, credA, newUser('stayer'))).body.id as string;
    const exp = new Date(Date.now() + 3_600_000);
    const row = (model: string, id: string, payload: Record<string, unknown>, grantId?: string) => ({
      _id: `${A}:${model}:${id}`,
      tenantId: A,
      model,
      payload: JSON.stringify(payload),
      expiresAt: exp,
      ...(grantId ? { grantId } : {}),
    });
    await h.db.models.OidcPayload.insertMany([
      row('Session', 's1', { accountId: u, loginTs: 1 }),
      row('Grant', 'g1', { accountId: u, clientId: 'app' }),
      row('RefreshToken', 'r1', { accountId: u, grantId: 'g1' }, 'g1'),
      row('AccessToken', 'a1', { accountId: u, grantId: 'g1' }, 'g1'),
      row('Interaction', 'i1', { session: { accountId: u }, prompt: { name: 'consent' } }),
      row('Session', 's2', { accountId: other, loginTs: 1 }),
    ]);
    const before = h.revocations.length;
    const res = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(res.status).toBe(200);
    expect(h.revocations.slice(before)).toEqual([
      expect.objectContaining({ tenantId: A, subject: u, reason: 'user.deprovisioned' }),
    ]);
    const left = (
      await h.db.models.OidcPayload.find({ tenantId: A, _id: { $regex: `^${A}:` } }, { _id: 1 }).lean()
    ).map((d) => String(d._id));
    expect(left).toContain(`${A}:Session:s2`);
    for (const gone of ['Session:s1', 'Grant:g1', 'RefreshToken:r1', 'AccessToken:a1', 'Interaction:i1'])
      expect(left).not.toContain(`${A}:${gone}`);
    const line = h.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.action === 'scim.user.patched' && l.userId === u && l.offboarding);
    expect(line?.offboarding).toMatchObject({
      reason: 'user.deprovisioned',
      sessionsEnded: 1,
      grantsEnded: 1,
      tokensDeleted: 2,
      pendingCancelled: 1,
    });
  });

  it('DELETE offboards and removes the user and its memberships', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('deleted.user'))).body.id as string;
    const before = h.revocations.length;
    expect((await scim('delete', `${base(A)}/Users/${u}`, credA)).status).toBe(204);
    expect(h.revocations.slice(before)).toEqual([expect.objectContaining({ subject: u, reason: 'user.deleted' })]);
    expect(await h.db.models.User.exists({ _id: u })).toBeNull();
    expect((await scim('get', `${base(A)}/Users/${u}`, credA)).status).toBe(404);
  });

  it('answers 503 (and changes nothing it cannot undo) when the kill switch cannot confirm', async () => {
    const failing = await startHarness(
      'mgmtscim503',
      {},
      { revoke: () => Promise.reject(new Error('nats down')) },
      { db: h.db },
    );
    const app = failing.app;
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('retry.user'))).body.id as string;
    const res = await request(app)
      .delete(`${base(A)}/Users/${u}`)
      .set('authorization', `Bearer ${credA}`);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: '503' });
    expect(await h.db.models.User.exists({ _id: u })).not.toBeNull();
  });
});

describe('refusals', () => {
  it('malformed filters are 400 invalidFilter', async () => {
    for (const filter of [
      'userName eq',
      'userName xx "a"',
      'password eq "x"',
      'active eq "yes"',
      '(userName eq "a"',
      'meta.created gt "2020"',
    ]) {
      const res = await scim('get', `${base(A)}/Users?filter=${encodeURIComponent(filter)}`, credA);
      expect([res.status, scimType(res)]).toEqual([400, 'invalidFilter']);
    }
    const groups = await scim('get', `${base(A)}/Groups?filter=${encodeURIComponent('displayName co')}`, credA);
    expect([groups.status, scimType(groups)]).toEqual([400, 'invalidFilter']);
  });

  it('malformed bodies and patches are SCIM 400s', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('target'))).body.id as string;
    const cases: Array<[unknown, string]> = [
      ['{not json', 'invalidSyntax'],
      [{ Operations: [{ op: 'replace', path: 'active', value: false }] }, 'invalidSyntax'],
      [{ schemas: [PATCH_OP], Operations: [] }, 'invalidSyntax'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'active', value: false }] }, 'invalidSyntax'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }, 'noTarget'],
      [
        { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }] },
        'invalidSyntax',
      ],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active.deep', value: 1 }] }, 'invalidPath'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'maybe' }] }, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: 'has space' }] }, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'nickName' }] }, 'invalidSyntax'],
      [
        { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { 'bad.key$': 1, unknownAttr: 2 } }] },
        'invalidValue',
      ],
    ];
    for (const [body, type] of cases) {
      const res = await scim('patch', `${base(A)}/Users/${u}`, credA, body);
      expect([JSON.stringify(body), res.status, scimType(res)]).toEqual([JSON.stringify(body), 400, type]);
    }
    const deep = await scim('patch', `${base(A)}/Users/${u}`, credA, `${'['.repeat(5000)}${']'.repeat(5000)}`);
    expect([deep.status, scimType(deep)]).toEqual([400, 'invalidSyntax']);
    const large = await scim('post', `${base(A)}/Users`, credA, {
      schemas: [USER],
      userName: 'big',
      title: 'x'.repeat(300_000),
    });
    expect(large.status).toBe(413);
    const noName = await scim('post', `${base(A)}/Users`, credA, { schemas: [USER] });
    expect([noName.status, scimType(noName)]).toEqual([400, 'invalidValue']);
    const wrongSchema = await scim('post', `${base(A)}/Users`, credA, { schemas: [GROUP], userName: 'x' });
    expect([wrongSchema.status, scimType(wrongSchema)]).toEqual([400, 'invalidValue']);
    expect((await scim('get', `${base(A)}/Users/not-an-id`, credA)).status).toBe(404);
  });

  it('never reaches another tenant: its users are 404s and cannot become members', async () => {
    const inB = (await scim('post', `${base(B)}/Users`, credB, newUser('b.person'))).body.id as string;
    const patch = await scim('patch', `${base(A)}/Users/${inB}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(patch.status).toBe(404);
    expect((await scim('put', `${base(A)}/Users/${inB}`, credA, newUser('b.person'))).status).toBe(404);
    expect((await scim('delete', `${base(A)}/Users/${inB}`, credA)).status).toBe(404);
    const gid = (await scim('post', `${base(A)}/Groups`, credA, { schemas: [GROUP], displayName: 'A group' })).body
      .id as string;
    const member = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: inB }] }],
    });
    expect([member.status, scimType(member)]).toEqual([400, 'invalidValue']);
    const bUser = await h.db.models.User.findById(inB).lean();
    expect(bUser).toMatchObject({ enabled: true, groupIds: [] });
    expect((await scim('get', `${base(A)}/Groups/${gid}`, credB)).status).toBe(401);
  });

  it('refuses to take over a local administrator or change a local group', async () => {
    const role = await h.db.models.Role.create({
      tenantId: A,
      name: 'scim-test-admins',
      resourceServer: 'urn:idp:management',
      permissions: ['auth.users.update'],
    });
    const admin = await h.db.models.User.create({
      tenantId: A,
      username: 'local.admin',
      passwordHash: 'x',
      roleIds: [String(role._id)],
    });
    const res = await scim('patch', `${base(A)}/Users/${String(admin._id)}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(res.status).toBe(403);
    expect((await h.db.models.User.findById(admin._id).lean())?.enabled).toBe(true);
    const local = await h.db.models.Group.create({ tenantId: A, name: 'local admins' });
    const g = await scim('patch', `${base(A)}/Groups/${String(local._id)}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: 'taken' }],
    });
    expect(g.status).toBe(403);
    // A plain local user (no management scopes) is adopted: how Entra ID and Okta match existing accounts.
    const plain = await h.db.models.User.create({ tenantId: A, username: 'plain.local', passwordHash: 'x' });
    const adopt = await scim('patch', `${base(A)}/Users/${String(plain._id)}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'externalId', value: 'dir-1' }],
    });
    expect(adopt.status).toBe(200);
    expect(await h.db.models.User.findById(plain._id).lean()).toMatchObject({ managedBy: 'scim', externalId: 'dir-1' });
  });
});

describe('no privilege escalation through SCIM', () => {
  const HELPDESK = [
    'auth.users.create',
    'auth.users.update',
    'auth.users.delete',
    'auth.groups.create',
    'auth.groups.update',
    'auth.groups.delete',
  ];
  it('a credential never reaches a user or group holding management scopes its creator lacked', async () => {
    const helpdesk = await createCredential(A, await h.token(A, HELPDESK));
    const stored = await h.db.models.ScimCredential.findOne({ tenantId: A, credentialId: helpdesk.id }).lean();
    expect(stored?.scopes).toEqual([...HELPDESK].sort());
    const role = await h.db.models.Role.create({
      tenantId: A,
      name: 'idp-admins-role',
      resourceServer: 'urn:idp:management',
      permissions: ['auth.roles.update', 'auth.clients.update'],
    });
    // The console admin bound the directory's group "IdP-Admins" to an administrator role.
    const gid = (await scim('post', `${base(A)}/Groups`, credA, { schemas: [GROUP], displayName: 'IdP-Admins' })).body
      .id as string;
    await h.db.models.Group.updateOne({ tenantId: A, _id: gid }, { $set: { roleIds: [String(role._id)] } });

    // The helpdesk's credential creates a user with a password (it may) ...
    const mine = await scim('post', `${base(A)}/Users`, helpdesk.secret, newUser('sneaky', { password: 'Passw0rd!!' }));
    expect(mine.status).toBe(201);
    const uid = mine.body.id as string;
    // ... but cannot put it into the administrators' group, change that group or delete it.
    const add = await scim('patch', `${base(A)}/Groups/${gid}`, helpdesk.secret, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: uid }] }],
    });
    expect(add.status).toBe(403);
    expect(add.body.detail).toContain('auth.roles.update');
    const put = await scim('put', `${base(A)}/Groups/${gid}`, helpdesk.secret, {
      schemas: [GROUP],
      displayName: 'IdP-Admins',
      members: [{ value: uid }],
    });
    expect(put.status).toBe(403);
    expect((await scim('delete', `${base(A)}/Groups/${gid}`, helpdesk.secret)).status).toBe(403);
    expect([...(await userPermissions(h.db.models, A, uid, 'urn:idp:management'))]).toEqual([]);

    // A directory-managed administrator: its password, representation and existence are out of the helpdesk's reach.
    const admin = (await scim('post', `${base(A)}/Users`, credA, newUser('dir.admin'))).body.id as string;
    const joined = await scim('patch', `${base(A)}/Groups/${gid}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: admin }] }],
    });
    expect(joined.status).toBe(200);
    const pw = await scim('patch', `${base(A)}/Users/${admin}`, helpdesk.secret, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'password', value: 'Takeover!!1' }],
    });
    expect(pw.status).toBe(403);
    expect((await scim('put', `${base(A)}/Users/${admin}`, helpdesk.secret, newUser('dir.admin'))).status).toBe(403);
    expect((await scim('delete', `${base(A)}/Users/${admin}`, helpdesk.secret)).status).toBe(403);

    // An access token acts with its own scopes: auth.scim.provision alone reaches no administrator.
    const provisionOnly = await h.token(A, ['auth.scim.provision']);
    const viaToken = await scim('patch', `${base(A)}/Groups/${gid}`, provisionOnly, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: uid }] }],
    });
    expect(viaToken.status).toBe(403);
    const allScopes = await h.token(A, [...MANAGEMENT_SCOPES]);
    expect((await scim('get', `${base(A)}/Groups/${gid}`, allScopes)).status).toBe(200);

    // A credential stored before credentials kept scopes holds the three user scopes only.
    const legacySecret = 'scim_legacy-credential-without-scopes-000000000';
    await h.db.models.ScimCredential.create({
      tenantId: A,
      credentialId: 'legacy1',
      digest: credentialDigest(legacySecret),
      createdAt: new Date(),
    });
    const legacy = await scim('patch', `${base(A)}/Groups/${gid}`, legacySecret, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: uid }] }],
    });
    expect(legacy.status).toBe(403);
    const plain = await scim('patch', `${base(A)}/Users/${uid}`, legacySecret, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Still plain' }],
    });
    expect(plain.status).toBe(200);
    expect([...(await userPermissions(h.db.models, A, uid, 'urn:idp:management'))]).toEqual([]);
  });
});

describe('filter parser limits', () => {
  it('refuses control characters and deep nesting at once with 400 invalidFilter', async () => {
    const started = Date.now();
    const redos = `userName eq "${'\n'.repeat(40)}`;
    const get = await scim('get', `${base(A)}/Users?filter=${encodeURIComponent(redos)}`, credA);
    expect([get.status, scimType(get)]).toEqual([400, 'invalidFilter']);
    const search = await scim('post', `${base(A)}/Groups/.search`, credA, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: `displayName eq "${'\n'.repeat(40)}`,
    });
    expect([search.status, scimType(search)]).toEqual([400, 'invalidFilter']);
    const nested = `${'not ('.repeat(300)}userName eq "a"${')'.repeat(300)}`;
    const deep = await scim('get', `${base(A)}/Users?filter=${encodeURIComponent(nested)}`, credA);
    expect([deep.status, scimType(deep)]).toEqual([400, 'invalidFilter']);
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('path.ctl'))).body.id as string;
    const path = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: `emails[type eq "${'\n'.repeat(40)}`, value: 'x' }],
    });
    expect([path.status, scimType(path)]).toEqual([400, 'invalidPath']);
    // A filter a directory sends, a little nested, still works.
    const ok = await scim(
      'get',
      `${base(A)}/Users?filter=${encodeURIComponent('not (userName eq "x") and (emails[type eq "work"] or active eq true)')}`,
      credA,
    );
    expect(ok.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('groups larger than a representation', () => {
  it('PATCH changes only the members it names; replacing all of them is tooMany', async () => {
    const capped = express();
    capped.use(
      SCIM_PATH,
      scimRouter({
        models: h.db.models,
        logger: createLogger({ service: 'test', level: 'silent' }),
        publicBaseUrl: 'https://idp.test',
        accessToken: (_req, _res, next) => next(Object.assign(new Error('no'), { status: 401 })),
        maxGroupMembers: 3,
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await scim('post', `${base(A)}/Users`, credA, newUser(`big.member${i}`))).body.id as string);
    const gid = (
      await scim('post', `${base(A)}/Groups`, credA, {
        schemas: [GROUP],
        displayName: 'All employees',
        members: ids.slice(0, 5).map((value) => ({ value })),
      })
    ).body.id as string;
    const patch = (body: unknown) =>
      request(capped)
        .patch(`${base(A)}/Groups/${gid}`)
        .set('authorization', `Bearer ${credA}`)
        .set('content-type', 'application/scim+json')
        .send(JSON.stringify(body));
    const membersNow = async () =>
      (await h.db.models.User.find({ tenantId: A, groupIds: gid }, { _id: 1 }).lean()).map((u) => String(u._id)).sort();

    const add = await patch({
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: ids[5] }] }],
    });
    expect(add.status).toBe(200);
    expect(await membersNow()).toEqual([...ids].sort());
    // ids[4] is past the three members a representation carries: still removed by value, and only it.
    const remove = await patch({
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${ids[4]}"]` }],
    });
    expect(remove.status).toBe(200);
    expect(await membersNow()).toEqual(ids.filter((_, i) => i !== 4).sort());
    const replace = await patch({
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'members', value: [{ value: ids[0] }] }],
    });
    expect([replace.status, (replace.body as { scimType?: string }).scimType]).toEqual([400, 'tooMany']);
    expect(await membersNow()).toEqual(ids.filter((_, i) => i !== 4).sort());
  });

  it('lists groups without members unless attributes asks for them, then at most 10 per page', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('list.member'))).body.id as string;
    for (let i = 0; i < 12; i++)
      await scim('post', `${base(A)}/Groups`, credA, {
        schemas: [GROUP],
        displayName: `listed ${i}`,
        members: [{ value: u }],
      });
    const filter = encodeURIComponent('displayName sw "listed "');
    const plain = await scim('get', `${base(A)}/Groups?filter=${filter}&count=50`, credA);
    expect(plain.body.totalResults).toBe(12);
    expect((plain.body.Resources as unknown[]).length).toBe(12);
    expect((plain.body.Resources as Array<{ members?: unknown }>).every((g) => g.members === undefined)).toBe(true);
    const asked = await scim(
      'get',
      `${base(A)}/Groups?filter=${filter}&count=50&attributes=displayName,members`,
      credA,
    );
    expect(asked.body.totalResults).toBe(12);
    expect(asked.body.itemsPerPage).toBe(10);
    expect((asked.body.Resources as Array<{ members?: Array<{ value: string }> }>)[0]?.members).toEqual([
      expect.objectContaining({ value: u }),
    ]);
  });
});

describe('user writes', () => {
  it('drops email_verified when the email changes, keeps it otherwise', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('verified.user'))).body.id as string;
    await h.db.models.User.updateOne({ _id: u }, { $set: { 'claims.email_verified': true } });
    await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Same Mail' }],
    });
    expect((await h.db.models.User.findById(u).lean())?.claims).toMatchObject({ email_verified: true });
    await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'emails', value: [{ value: 'someone.else@example.com', primary: true }] }],
    });
    const claims = (await h.db.models.User.findById(u).lean())?.claims as Record<string, unknown>;
    expect(claims.email).toBe('someone.else@example.com');
    expect(claims.email_verified).toBeUndefined();
  });

  it('a PUT without active keeps a deactivated user deactivated', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('stays.off'))).body.id as string;
    await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    const body: Record<string, unknown> = newUser('stays.off');
    delete body.active;
    const put = await scim('put', `${base(A)}/Users/${u}`, credA, body);
    expect(put.status).toBe(200);
    expect(put.body.active).toBe(false);
    expect((await h.db.models.User.findById(u).lean())?.enabled).toBe(false);
  });

  it('a password set ends sessions, grants and refresh tokens', async () => {
    const u = (await scim('post', `${base(A)}/Users`, credA, newUser('new.password'))).body.id as string;
    const exp = new Date(Date.now() + 3_600_000);
    const row = (model: string, id: string, payload: Record<string, unknown>, grantId?: string) => ({
      _id: `${A}:${model}:${id}`,
      tenantId: A,
      model,
      payload: JSON.stringify(payload),
      expiresAt: exp,
      ...(grantId ? { grantId } : {}),
    });
    await h.db.models.OidcPayload.insertMany([
      row('Session', 'pw-s1', { accountId: u, loginTs: 1 }),
      row('Grant', 'pw-g1', { accountId: u, clientId: 'app' }),
      row('RefreshToken', 'pw-r1', { accountId: u, grantId: 'pw-g1' }, 'pw-g1'),
    ]);
    const res = await scim('patch', `${base(A)}/Users/${u}`, credA, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'password', value: 'N3w-password!' }],
    });
    expect(res.status).toBe(200);
    const left = await h.db.models.OidcPayload.countDocuments({
      _id: { $in: [`${A}:Session:pw-s1`, `${A}:Grant:pw-g1`, `${A}:RefreshToken:pw-r1`] },
    });
    expect(left).toBe(0);
  });
});
