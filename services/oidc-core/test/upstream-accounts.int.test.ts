/**
 * Which local account an upstream identity signs in as, and what each sign-in writes on it, against the real store
 * (one database for this file, every index created), calling the account rules directly:
 *
 * - a verified email in an authoritative domain links only to the one account whose address is verified here and
 *   that no upstream identity signs in to yet: never to an account another provider made or wrote (that provider may
 *   have let someone claim any address), never when two accounts have the address, never to a disabled one;
 * - a link made while the alias named another issuer is not used (that issuer's subjects are other people); a link
 *   an administrator made before the first sign-in learns its issuer then;
 * - an address a provider writes is verified exactly when the provider vouched for it (OpenID Connect Core 5.1
 *   email_verified), and the memberships its mappers granted go when it stops asserting them, an admin's stay;
 * - two concurrent first sign-ins of one identity share one account; a mapped username outside the management API's
 *   rule is not used;
 * - what a hostile upstream asserts is bounded as an administrator's writes are, and `__proto__` is never a key.
 *
 * Upstream sign-in through real identity providers (Keycloak, SimpleSAMLphp) is tested end to end elsewhere.
 */
import type { Database, UpstreamMapper, UpstreamProviderDoc } from '@idp/db';
import { DUMMY_PASSWORD_HASH } from '@idp/tokens';
import { openTestDatabase } from '@idp/testing';
import { applyProfile, createAccount, createLink, resolveAccount } from '../src/upstream/accounts';
import { MAX_JSON_BYTES, mapProfile, type UpstreamAssertion } from '../src/upstream/mappers';
import { UpstreamError } from '../src/upstream/oidc-upstream';

const CORP_ISSUER = 'https://login.corp.example/realms/corp';
const PARTNER_ISSUER = 'https://partner.example';

let db: Database;
/** Each test works in its own tenant of the file's database. */
let nextTenant = 6100;
const newTenant = () => ++nextTenant;

beforeAll(async () => {
  db = await openTestDatabase('upstreamaccounts');
});
afterAll(async () => {
  await db.close();
});

const models = () => db.models;

async function provider(
  tenantId: number,
  alias: string,
  issuer: string,
  settings: Partial<Pick<UpstreamProviderDoc, 'authoritativeEmailDomains' | 'jitProvisioning'>> & {
    mappers?: UpstreamMapper[];
  } = {},
): Promise<UpstreamProviderDoc> {
  const doc = await models().UpstreamProvider.create({
    tenantId,
    alias,
    displayName: alias,
    type: 'oidc',
    oidc: {
      issuer,
      clientId: 'broker',
      clientAuthMethod: 'client_secret_basic',
      scopes: ['openid'],
      pkce: true,
      subjectClaim: 'sub',
      fetchUserinfo: false,
    },
    mappers: [{ source: 'email', target: 'claim', claim: 'email' }],
    ...settings,
  });
  return doc.toObject();
}

/** An ID token's claims as the OP asserted them; verifiedEmail only where it asserted email_verified true. */
const assertion = (
  issuer: string,
  subject: string,
  claims: Record<string, unknown>,
  verifiedEmail?: string,
): UpstreamAssertion => ({
  issuer,
  subject,
  claims: { sub: subject, ...claims },
  amr: [],
  ...(verifiedEmail !== undefined ? { verifiedEmail } : {}),
});

async function localUser(tenantId: number, username: string, claims: Record<string, unknown>, enabled = true) {
  const u = await models().User.create({ tenantId, username, passwordHash: DUMMY_PASSWORD_HASH, claims, enabled });
  return String(u._id);
}

const linksOf = (tenantId: number, filter: Record<string, unknown> = {}) =>
  models()
    .UpstreamLink.find({ tenantId, ...filter })
    .lean();
const userOf = async (tenantId: number, userId: string) => {
  const u = await models().User.findOne({ tenantId, _id: userId }).lean();
  if (!u) throw new Error(`no user ${userId}`);
  return u;
};

/** The sign-in's rejection, to read its code. */
async function rejection(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error('the sign-in was not refused');
}

describe('linking by a verified email in an authoritative domain', () => {
  const resolve = async (tenantId: number, p: UpstreamProviderDoc, a: UpstreamAssertion) =>
    resolveAccount(models(), tenantId, p, a, mapProfile(p, a));

  it('links the one account whose address is verified here and that no upstream identity signs in to', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['corp.example'] });
    const alice = await localUser(T, 'alice', { email: 'alice@corp.example', email_verified: true });
    const a = assertion(CORP_ISSUER, 'corp-alice', { email: 'alice@corp.example' }, 'alice@corp.example');

    expect(await resolve(T, corp, a)).toEqual({ kind: 'account', userId: alice });
    const links = await linksOf(T);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({
      provider: 'corp',
      subject: 'corp-alice',
      issuer: CORP_ISSUER,
      userId: alice,
      linkedBy: 'verified_email',
    });
    // The next sign-in goes through the link.
    expect(await resolve(T, corp, a)).toEqual({ kind: 'account', userId: alice });
  });

  it('matches the stored address case-insensitively', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['Corp.Example'] });
    const carol = await localUser(T, 'carol', { email: 'Carol@Corp.Example', email_verified: true });
    const a = assertion(CORP_ISSUER, 'corp-carol', { email: 'carol@corp.example' }, 'carol@corp.example');
    expect(await resolve(T, corp, a)).toEqual({ kind: 'account', userId: carol });
  });

  it('does not link an account whose address is not verified here', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['corp.example'] });
    await localUser(T, 'dan', { email: 'dan@corp.example' });
    await localUser(T, 'erin', { email: 'erin@corp.example', email_verified: 'true' });
    for (const who of ['dan', 'erin']) {
      const email = `${who}@corp.example`;
      expect(await resolve(T, corp, assertion(CORP_ISSUER, `corp-${who}`, { email }, email))).toEqual({
        kind: 'unlinked',
        mayCreate: false,
        conflict: true,
      });
    }
    expect(await linksOf(T)).toHaveLength(0);
  });

  it('does not take over an account another provider created and vouched the same address for', async () => {
    const T = newTenant();
    // The partner lets anyone claim any address and says it is verified: its first sign-in creates an account.
    const partner = await provider(T, 'partner', PARTNER_ISSUER);
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['corp.example'] });
    const claimed = assertion(PARTNER_ISSUER, 'mallory', { email: 'frank@corp.example' }, 'frank@corp.example');
    const mappedClaimed = mapProfile(partner, claimed);
    expect(await resolveAccount(models(), T, partner, claimed, mappedClaimed)).toMatchObject({
      kind: 'unlinked',
      mayCreate: true,
    });
    const mallory = await createAccount(models(), T, partner, claimed, mappedClaimed);
    await applyProfile(models(), T, partner, claimed, mallory, mappedClaimed, undefined);
    expect((await userOf(T, mallory)).claims).toEqual({ email: 'frank@corp.example', email_verified: true });

    // Frank's own first sign-in through the provider authoritative for corp.example does not land in that account.
    const frank = assertion(CORP_ISSUER, 'corp-frank', { email: 'frank@corp.example' }, 'frank@corp.example');
    expect(await resolve(T, corp, frank)).toEqual({ kind: 'unlinked', mayCreate: false, conflict: true });
    expect(await linksOf(T, { provider: 'corp' })).toHaveLength(0);
    expect(await linksOf(T, { userId: mallory })).toHaveLength(1);
  });

  it('does not link when two accounts have the address', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['corp.example'] });
    await localUser(T, 'gina', { email: 'gina@corp.example', email_verified: true });
    await localUser(T, 'gina2', { email: 'GINA@corp.example', email_verified: true });
    const a = assertion(CORP_ISSUER, 'corp-gina', { email: 'gina@corp.example' }, 'gina@corp.example');
    expect(await resolve(T, corp, a)).toEqual({ kind: 'unlinked', mayCreate: false, conflict: true });
    expect(await linksOf(T)).toHaveLength(0);
  });

  it('does not link outside the authoritative domains, nor an address the provider did not vouch for', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['corp.example'] });
    await localUser(T, 'hal', { email: 'hal@other.example', email_verified: true });
    await localUser(T, 'ida', { email: 'ida@corp.example', email_verified: true });
    const other = assertion(CORP_ISSUER, 'corp-hal', { email: 'hal@other.example' }, 'hal@other.example');
    const unverified = assertion(CORP_ISSUER, 'corp-ida', { email: 'ida@corp.example' });
    expect(await resolve(T, corp, other)).toEqual({ kind: 'unlinked', mayCreate: false, conflict: true });
    expect(await resolve(T, corp, unverified)).toEqual({ kind: 'unlinked', mayCreate: false, conflict: true });
    expect(await linksOf(T)).toHaveLength(0);
  });

  it('refuses the sign-in when the one owner is disabled, and links nothing', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, { authoritativeEmailDomains: ['corp.example'] });
    await localUser(T, 'jo', { email: 'jo@corp.example', email_verified: true }, false);
    const a = assertion(CORP_ISSUER, 'corp-jo', { email: 'jo@corp.example' }, 'jo@corp.example');
    expect((await rejection(resolve(T, corp, a))).code).toBe('access_denied');
    expect(await linksOf(T)).toHaveLength(0);
  });
});

describe('the issuer of a link', () => {
  it('a link made while the alias named another issuer is not used', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER);
    const kim = await localUser(T, 'kim', {});
    await createLink(models(), T, corp, { issuer: 'https://old-idp.example', subject: 'k-1' }, kim, 'jit');
    const a = assertion(CORP_ISSUER, 'k-1', {});
    const err = await rejection(resolveAccount(models(), T, corp, a, mapProfile(corp, a)));
    expect(err.code).toBe('access_denied');
    // The link is left as it was, for an administrator to look at.
    expect(await linksOf(T)).toMatchObject([{ issuer: 'https://old-idp.example', userId: kim }]);
  });

  it('a link an administrator made before the first sign-in gets the issuer and signs in', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER);
    const lee = await localUser(T, 'lee', {});
    await models().UpstreamLink.create({
      tenantId: T,
      provider: 'corp',
      subject: 'l-1',
      userId: lee,
      linkedBy: 'admin',
    });
    expect(await linksOf(T)).toMatchObject([{ issuer: '' }]);
    const a = assertion(CORP_ISSUER, 'l-1', {});
    expect(await resolveAccount(models(), T, corp, a, mapProfile(corp, a))).toEqual({ kind: 'account', userId: lee });
    expect(await linksOf(T)).toMatchObject([{ issuer: CORP_ISSUER, userId: lee, linkedBy: 'admin' }]);

    // From then on, another issuer's subject of the same name is someone else.
    const foreign = assertion('https://evil.example', 'l-1', {});
    expect((await rejection(resolveAccount(models(), T, corp, foreign, mapProfile(corp, foreign)))).code).toBe(
      'access_denied',
    );
  });
});

describe('what each sign-in writes on the account', () => {
  it('writes email_verified with the email: true only for the address the provider vouched for', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, {
      mappers: [
        { source: 'email', target: 'claim', claim: 'email' },
        { source: 'name', target: 'claim', claim: 'name' },
      ],
    });
    // An administrator set the address and marked it verified.
    const max = await localUser(T, 'max', { email: 'max@corp.example', email_verified: true });
    await createLink(models(), T, corp, { issuer: CORP_ISSUER, subject: 'm-1' }, max, 'admin');
    const signIn = async (claims: Record<string, unknown>, verifiedEmail?: string) => {
      const a = assertion(CORP_ISSUER, 'm-1', claims, verifiedEmail);
      await applyProfile(models(), T, corp, a, max, mapProfile(corp, a), undefined);
      return (await userOf(T, max)).claims;
    };

    // Not vouched for: the admin's email_verified true is overwritten.
    expect(await signIn({ email: 'max@corp.example', name: 'Max' })).toEqual({
      email: 'max@corp.example',
      email_verified: false,
      name: 'Max',
    });
    expect(await signIn({ email: 'max@corp.example', name: 'Max' }, 'max@corp.example')).toEqual({
      email: 'max@corp.example',
      email_verified: true,
      name: 'Max',
    });
    // A new address the provider vouched another one for is not verified.
    expect(await signIn({ email: 'maxi@corp.example', name: 'Max' }, 'max@corp.example')).toEqual({
      email: 'maxi@corp.example',
      email_verified: false,
      name: 'Max',
    });
    expect(await signIn({ email: 'maxi@corp.example', name: 'Max' }, 'maxi@corp.example')).toMatchObject({
      email_verified: true,
    });
    // Upstream stops asserting an address: both go.
    expect(await signIn({ name: 'Max' })).toEqual({ name: 'Max' });
  });

  it("removes the memberships the provider granted when upstream stops asserting them, never an admin's", async () => {
    const T = newTenant();
    const [eng, ops, audit] = await Promise.all(
      ['engineers', 'operators', 'auditors'].map((name) => models().Group.create({ tenantId: T, name })),
    );
    const [deployer, viewer] = await Promise.all(
      ['deployer', 'viewer'].map((name) =>
        models().Role.create({ tenantId: T, name, resourceServer: 'https://api.corp.example' }),
      ),
    );
    const id = (x: { _id: unknown } | undefined) => String(x?._id);
    const corp = await provider(T, 'corp', CORP_ISSUER, {
      mappers: [
        {
          source: 'groups',
          target: 'groups',
          values: [
            { upstream: 'eng', local: 'engineers' },
            { upstream: 'ops', local: 'operators' },
          ],
        },
        {
          source: 'groups',
          target: 'roles',
          values: [
            { upstream: 'eng', local: 'deployer' },
            { upstream: 'ops', local: 'viewer' },
          ],
        },
      ],
    });
    // An administrator put the person in operators (with the viewer role) and auditors before the first sign-in.
    const nia = String(
      (
        await models().User.create({
          tenantId: T,
          username: 'nia',
          passwordHash: DUMMY_PASSWORD_HASH,
          groupIds: [id(ops), id(audit)],
          roleIds: [id(viewer)],
        })
      )._id,
    );
    await createLink(models(), T, corp, { issuer: CORP_ISSUER, subject: 'n-1' }, nia, 'admin');
    const signIn = async (groups: string[]) => {
      const a = assertion(CORP_ISSUER, 'n-1', { groups });
      await applyProfile(models(), T, corp, a, nia, mapProfile(corp, a), undefined);
      const u = await userOf(T, nia);
      const [link] = await linksOf(T);
      return {
        groupIds: [...u.groupIds].sort(),
        roleIds: [...u.roleIds].sort(),
        granted: [link.grantedGroupIds, link.grantedRoleIds],
      };
    };
    const sorted = (...xs: string[]) => [...xs].sort();

    // Upstream grants eng and ops: the provider granted engineers and deployer; operators and viewer were there.
    expect(await signIn(['eng', 'ops'])).toEqual({
      groupIds: sorted(id(eng), id(ops), id(audit)),
      roleIds: sorted(id(deployer), id(viewer)),
      granted: [[id(eng)], [id(deployer)]],
    });
    // Upstream stops asserting both: only what it granted goes.
    expect(await signIn([])).toEqual({
      groupIds: sorted(id(ops), id(audit)),
      roleIds: [id(viewer)],
      granted: [[], []],
    });
    // Granted again, removed again.
    expect((await signIn(['eng'])).groupIds).toEqual(sorted(id(eng), id(ops), id(audit)));
    expect(await signIn(['ops'])).toEqual({
      groupIds: sorted(id(ops), id(audit)),
      roleIds: [id(viewer)],
      granted: [[], []],
    });
  });

  it('stores provider claims within the bounds: a 100 KB claim is left out, `__proto__` is a plain key', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, {
      mappers: [
        { source: '*', target: 'providerClaims' },
        { source: 'groups', target: 'externalGroups' },
      ],
    });
    const olu = await localUser(T, 'olu', {});
    await createLink(models(), T, corp, { issuer: CORP_ISSUER, subject: 'o-1' }, olu, 'jit');
    const medium = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`medium${i}`, 'm'.repeat(3_000)]));
    // As JSON.parse makes it from an ID token: `__proto__` an own key, at the top and nested.
    const hostile = JSON.parse(
      '{"__proto__": {"isAdmin": true}, "profile": {"__proto__": {"isAdmin": true}}}',
    ) as Record<string, unknown>;
    const groups = [...Array.from({ length: 600 }, (_, i) => `group-${i}`), 'x'.repeat(257), ''];
    const a = assertion(CORP_ISSUER, 'o-1', {
      ...hostile,
      huge: 'h'.repeat(100_000),
      department: 'R&D',
      ...medium,
      groups,
    });
    const mapped = mapProfile(corp, a);

    const pc = mapped.providerClaims;
    // Neither the object nor the one nested in it has its prototype set by the claim: the key is renamed.
    expect(Object.getPrototypeOf(pc)).toBe(Object.prototype);
    expect(Object.hasOwn(pc, '__proto__')).toBe(false);
    expect((pc as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(pc.profile).toEqual({ _proto__: { isAdmin: true } });
    expect(Object.getPrototypeOf(pc.profile)).toBe(Object.prototype);
    expect(Object.hasOwn(pc.profile as object, '_proto__')).toBe(true);
    expect((pc.profile as { isAdmin?: unknown }).isAdmin).toBeUndefined();
    expect(Object.hasOwn(pc, 'huge')).toBe(false);
    expect(Buffer.byteLength(JSON.stringify(pc))).toBeLessThanOrEqual(MAX_JSON_BYTES);
    expect(pc).toMatchObject({ iss: CORP_ISSUER, sub: 'o-1', department: 'R&D' });
    expect(mapped.externalGroups).toHaveLength(500);
    expect(mapped.externalGroups.every((g) => g.length > 0 && g.length <= 256)).toBe(true);
    expect(mapped.externalGroups.slice(0, 2)).toEqual(['group-0', 'group-1']);

    // And so in the store.
    await applyProfile(models(), T, corp, a, olu, mapped, undefined);
    const stored = await userOf(T, olu);
    const storedPc = stored.providerClaims ?? {};
    expect(Buffer.byteLength(JSON.stringify(storedPc))).toBeLessThanOrEqual(MAX_JSON_BYTES);
    expect(Object.keys(storedPc)).not.toContain('huge');
    expect(storedPc).toMatchObject({ profile: { _proto__: { isAdmin: true } }, department: 'R&D' });
    expect(stored.externalGroups).toHaveLength(500);
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });
});

describe('just-in-time accounts', () => {
  it('two concurrent first sign-ins of one identity end with one account and one link', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, {
      mappers: [{ source: 'preferred_username', target: 'username' }],
    });
    // Several rounds: each is a race between the two inserts; the rule must hold whichever wins.
    for (let round = 0; round < 10; round++) {
      const subject = `p-${round}`;
      const a = assertion(CORP_ISSUER, subject, round % 2 ? { preferred_username: `pat${round}` } : {});
      const mapped = mapProfile(corp, a);
      expect(await resolveAccount(models(), T, corp, a, mapped)).toMatchObject({ kind: 'unlinked', mayCreate: true });
      const [first, second] = await Promise.all([
        createAccount(models(), T, corp, a, mapped),
        createAccount(models(), T, corp, a, mapped),
      ]);
      expect(second).toBe(first);
      const username = round % 2 ? `pat${round}` : `corp.${subject}`;
      const users = await models().User.find({ tenantId: T, username }).lean();
      expect(users.map((u) => String(u._id))).toEqual([first]);
      expect((await linksOf(T, { subject })).map((l) => l.userId)).toEqual([first]);
    }
    expect(await models().User.countDocuments({ tenantId: T })).toBe(10);
  });

  it('a mapped username the username rule refuses is not used: the account is named by alias and subject', async () => {
    const T = newTenant();
    const corp = await provider(T, 'corp', CORP_ISSUER, {
      mappers: [{ source: 'preferred_username', target: 'username' }],
    });
    const a = assertion(CORP_ISSUER, 'CN=Quinn Doe/O=Corp', { preferred_username: 'quinn doe <script>' });
    const mapped = mapProfile(corp, a);
    expect(mapped.username).toBeUndefined();
    const userId = await createAccount(models(), T, corp, a, mapped);
    expect((await userOf(T, userId)).username).toBe('corp.CN-Quinn-Doe-O-Corp');
  });
});
