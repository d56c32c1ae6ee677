/**
 * Which local account an upstream identity signs in as, and what each sign-in writes on it.
 *
 * The identity key is (tenant, provider, upstream subject), stored as an upstream link. An identity without a link:
 * - is linked at once only where the provider is authoritative for the domain of an email address it asserts
 *   VERIFIED (authoritativeEmailDomains; empty by default) and exactly one account has that address verified here,
 *   with no upstream identity linked to it yet;
 * - otherwise never by email: if an account with the same address or username exists, the person must prove that
 *   account (its password, on the link page) or an administrator links it; an attacker who registers the victim's
 *   address at some upstream gets nothing;
 * - otherwise, where the provider allows it, a new account is created (just-in-time provisioning).
 */
import { newObjectId, type Models, type UpstreamLinkDoc, type UpstreamProviderDoc, type UserDoc } from '@idp/db';
import { DUMMY_PASSWORD_HASH } from '@idp/tokens';
import { isDuplicateKeyError } from '@idp/errors';
import { emailDomainOf, type MappedProfile, type UpstreamAssertion } from './mappers';
import { UpstreamError } from './oidc-upstream';

export const ACCOUNT_DISABLED = 'this account is disabled';

export type Resolution =
  | { kind: 'account'; userId: string }
  /** No account yet: the person may prove an existing one (password), or create one where allowed. */
  | { kind: 'unlinked'; mayCreate: boolean; conflict: boolean };

type UserRow = Pick<UserDoc, 'enabled' | 'username' | 'claims'> & { _id: unknown };

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Accounts whose stored email is `email` (case-insensitively: the domain part is, and people type either case). */
async function accountsWithEmail(
  models: Models,
  tenantId: number,
  email: string,
  o: { verified?: boolean } = {},
): Promise<UserRow[]> {
  return models.User.find(
    {
      tenantId,
      'claims.email': { $regex: `^${escapeRegExp(email)}$`, $options: 'i' },
      ...(o.verified ? { 'claims.email_verified': true } : {}),
    },
    { enabled: 1, username: 1, claims: 1 },
  )
    .limit(2)
    .lean<UserRow[]>();
}

export async function resolveAccount(
  models: Models,
  tenantId: number,
  provider: UpstreamProviderDoc,
  a: UpstreamAssertion,
  mapped: MappedProfile,
): Promise<Resolution> {
  const link = await models.UpstreamLink.findOne({ tenantId, provider: provider.alias, subject: a.subject }).lean();
  if (link) {
    // An alias pointed at another issuer since the link was made: that issuer's subjects are other people.
    if (link.issuer && link.issuer !== a.issuer)
      throw new UpstreamError(
        'access_denied',
        'this identity was linked while the provider had another issuer: an administrator must link it again',
      );
    const user = await models.User.findOne({ tenantId, _id: link.userId }, { enabled: 1 }).lean();
    if (user) {
      if (!user.enabled) throw new UpstreamError('access_denied', ACCOUNT_DISABLED);
      // A link an administrator made before the first sign-in learns its issuer now.
      if (!link.issuer)
        await models.UpstreamLink.updateOne({ tenantId, _id: link._id }, { $set: { issuer: a.issuer } });
      return { kind: 'account', userId: link.userId };
    }
    // A link just written by a concurrent first sign-in is making its account now (createAccount): wait for it.
    if (Date.now() - new Date(link.createdAt).getTime() < 10_000)
      throw new UpstreamError(
        'temporarily_unavailable',
        'another sign-in of this identity is making its account: try again',
      );
    // The account was deleted behind the link's back (a restore, a hand edit): the identity is unlinked again.
    await models.UpstreamLink.deleteOne({ tenantId, _id: link._id });
  }
  const email = a.verifiedEmail;
  const domain = email ? emailDomainOf(email) : undefined;
  if (email && domain && provider.authoritativeEmailDomains.map((d) => d.toLowerCase()).includes(domain)) {
    // Only an account whose address is verified here and that no upstream identity signs in to yet: an account made
    // or written by another provider (which may have let someone claim any address) is never taken over this way.
    const owners = await accountsWithEmail(models, tenantId, email, { verified: true });
    const linked = owners.length
      ? await models.UpstreamLink.countDocuments({ tenantId, userId: { $in: owners.map((u) => String(u._id)) } })
      : 0;
    if (owners.length === 1 && linked === 0) {
      const owner = owners[0]!;
      if (!owner.enabled) throw new UpstreamError('access_denied', ACCOUNT_DISABLED);
      const userId = String(owner._id);
      await createLink(models, tenantId, provider, a, userId, 'verified_email');
      return { kind: 'account', userId };
    }
  }
  const claimedEmail = typeof mapped.claims.email === 'string' ? mapped.claims.email : undefined;
  const conflict =
    (claimedEmail !== undefined && (await accountsWithEmail(models, tenantId, claimedEmail)).length > 0) ||
    (await models.User.exists({ tenantId, username: jitUsername(provider, a, mapped) })) !== null;
  return { kind: 'unlinked', mayCreate: provider.jitProvisioning && !conflict, conflict };
}

export async function createLink(
  models: Models,
  tenantId: number,
  provider: UpstreamProviderDoc,
  a: Pick<UpstreamAssertion, 'issuer' | 'subject'>,
  userId: string,
  linkedBy: UpstreamLinkDoc['linkedBy'],
): Promise<void> {
  await models.UpstreamLink.create({
    tenantId,
    provider: provider.alias,
    subject: a.subject,
    issuer: a.issuer,
    userId,
    linkedBy,
  });
}

/** The mapped username, else one made of the alias and subject in the characters a username may have. */
export function jitUsername(
  provider: Pick<UpstreamProviderDoc, 'alias'>,
  a: Pick<UpstreamAssertion, 'subject'>,
  mapped: Pick<MappedProfile, 'username'>,
): string {
  return mapped.username ?? `${provider.alias}.${a.subject}`.replace(/[^A-Za-z0-9._@+-]/g, '-').slice(0, 128);
}

/** Just-in-time provisioning: a new account for the upstream identity, with no usable password. */
export async function createAccount(
  models: Models,
  tenantId: number,
  provider: UpstreamProviderDoc,
  a: Pick<UpstreamAssertion, 'issuer' | 'subject'>,
  mapped: Pick<MappedProfile, 'username'>,
): Promise<string> {
  // The link first, under the account id it will have: the link's unique (tenant, provider, subject) index decides
  // which of two concurrent first sign-ins makes the account; the other signs in to it.
  const userId = newObjectId();
  try {
    await createLink(models, tenantId, provider, a, userId, 'jit');
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return winnersAccount(models, tenantId, provider, a);
  }
  try {
    await models.User.create({
      _id: userId,
      tenantId,
      username: jitUsername(provider, a, mapped),
      // No password works for it (a hash no password matches); an administrator may set one.
      passwordHash: DUMMY_PASSWORD_HASH,
      claims: {},
    });
  } catch (err) {
    // Never a link to an account that does not exist.
    await models.UpstreamLink.deleteOne({ tenantId, provider: provider.alias, subject: a.subject, userId });
    if (isDuplicateKeyError(err)) throw new UpstreamError('access_denied', 'an account with this name already exists');
    throw err;
  }
  return userId;
}

/** The account a concurrent first sign-in of the same identity is making: waited for briefly, then used. */
async function winnersAccount(
  models: Models,
  tenantId: number,
  provider: UpstreamProviderDoc,
  a: Pick<UpstreamAssertion, 'subject'>,
): Promise<string> {
  for (let i = 0; i < 20; i++) {
    const link = await models.UpstreamLink.findOne({ tenantId, provider: provider.alias, subject: a.subject }).lean();
    if (!link) break;
    if (await models.User.exists({ tenantId, _id: link.userId })) return link.userId;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new UpstreamError(
    'temporarily_unavailable',
    'another sign-in of this identity is making its account: try again',
  );
}

/**
 * Writes what this sign-in asserted on the account, every time (the provider's mappers replace what they wrote
 * before, so a group upstream removed goes), and records the upstream session for logout.
 */
export async function applyProfile(
  models: Models,
  tenantId: number,
  provider: UpstreamProviderDoc,
  a: UpstreamAssertion,
  userId: string,
  mapped: MappedProfile,
  session: UpstreamLinkDoc['lastSession'],
): Promise<void> {
  const [user, link, groups, roles, links] = await Promise.all([
    models.User.findOne({ tenantId, _id: userId }, { groupIds: 1, roleIds: 1, federatedIdentities: 1 }).lean(),
    models.UpstreamLink.findOne({ tenantId, provider: provider.alias, subject: a.subject }).lean(),
    mapped.groups.length
      ? models.Group.find({ tenantId, name: { $in: mapped.groups } }, { _id: 1 }).lean()
      : Promise.resolve([]),
    mapped.roles.length
      ? models.Role.find({ tenantId, name: { $in: mapped.roles } }, { _id: 1 }).lean()
      : Promise.resolve([]),
    models.UpstreamLink.find({ tenantId, userId }, { provider: 1, issuer: 1, subject: 1 }).lean(),
  ]);
  if (!user || !link) throw new UpstreamError('access_denied', 'the account is no longer linked');
  const membership = (current: string[], before: string[], now: string[]) => {
    // Only what this provider added is its to remove; what was already there (an admin's) is left alone.
    const granted = [
      ...new Set([...before.filter((id) => now.includes(id)), ...now.filter((id) => !current.includes(id))]),
    ];
    const kept = current.filter((id) => !before.includes(id) || now.includes(id));
    return { ids: [...new Set([...kept, ...now])], granted };
  };
  const g = membership(
    user.groupIds,
    link.grantedGroupIds,
    groups.map((x) => String(x._id)),
  );
  const r = membership(
    user.roleIds,
    link.grantedRoleIds,
    roles.map((x) => String(x._id)),
  );
  const aliases = new Set((await models.UpstreamProvider.find({ tenantId }, { alias: 1 }).lean()).map((p) => p.alias));
  const federatedIdentities = [
    // Entries an administrator wrote that name no provider of the tenant stay.
    ...(user.federatedIdentities ?? []).filter((e) => typeof e.provider !== 'string' || !aliases.has(e.provider)),
    ...links.map((l) => ({ provider: l.provider, issuer: l.issuer, subject: l.subject })),
  ];
  const set: Record<string, unknown> = {
    externalGroups: mapped.externalGroups,
    providerClaims: mapped.providerClaims,
    identityProvider: mapped.identityProvider,
    linkedIdentity: mapped.linkedIdentity,
    federatedIdentities,
    groupIds: g.ids,
    roleIds: r.ids,
  };
  const unset: Record<string, 1> = {};
  const claims = { ...mapped.claims };
  // An address this provider writes is verified exactly when it vouched for it: never an older email_verified.
  if (Object.hasOwn(claims, 'email'))
    claims.email_verified = claims.email === undefined ? undefined : claims.email === a.verifiedEmail;
  for (const [k, v] of Object.entries(claims))
    if (v === undefined) unset[`claims.${k}`] = 1;
    else set[`claims.${k}`] = v;
  for (const [k, v] of Object.entries(mapped.customClaims))
    if (v === undefined) unset[`customClaims.${k}`] = 1;
    else set[`customClaims.${k}`] = v;
  await models.User.updateOne(
    { tenantId, _id: userId },
    { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) },
  );
  await models.UpstreamLink.updateOne(
    { tenantId, _id: link._id },
    {
      $set: {
        grantedGroupIds: g.granted,
        grantedRoleIds: r.granted,
        lastSignInAt: new Date(),
        ...(session ? { lastSession: session } : {}),
      },
    },
  );
}
