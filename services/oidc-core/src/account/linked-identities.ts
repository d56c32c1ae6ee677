/**
 * The signed-in person's linked identities: the upstream links of their account (tenant, provider alias, upstream
 * subject → account), each with the provider's display name, how and when it was linked and its last sign-in, and
 * the person's own removal of one.
 *
 * Every query names the tenant and the account of the session; the only value taken from a request is the id of the
 * link to remove, and it is looked up only among that account's links, so another person's link is "not found".
 *
 * Removing a link never ends the session (it was made by that sign-in, and the session stays until it ends); the next
 * sign-in through that provider resolves the identity afresh (upstream/accounts.ts: a new account where the provider
 * provisions, or the link page). What is refused is removing the last way in: an account without a usable password
 * (the DUMMY_PASSWORD_HASH that just-in-time accounts get, which no password matches) keeps its only link.
 */
import { toObjectId, type Models, type UpstreamLinkDoc } from '@idp/db';
import { DUMMY_PASSWORD_HASH } from '@idp/tokens';

/** What the page says when the removal is refused because the link is the account's only way in. */
export const ONLY_WAY_IN = 'This is the only way you can sign in: ask an administrator before removing it';

export interface LinkedIdentity {
  /** The link's id: what the page's Remove form names. */
  id: string;
  /** The provider's alias. */
  provider: string;
  /** The provider's display name; its alias once the provider is gone. */
  providerName: string;
  /** Whether the tenant still has a provider with this alias. */
  providerExists: boolean;
  subject: string;
  linkedBy: UpstreamLinkDoc['linkedBy'];
  linkedAt: Date;
  lastSignInAt?: Date;
}

export interface LinkedIdentities {
  username: string;
  /** The account has a password that can sign it in (not the unusable hash of a just-in-time account). */
  hasPassword: boolean;
  links: LinkedIdentity[];
}

/** At most this many links are listed (an account normally has one or two). */
const MAX_LINKS = 100;

type LinkRow = UpstreamLinkDoc & { _id: unknown };

/** No usable password: the hash no password matches (a just-in-time account), or none at all. */
const usablePassword = (hash: string | undefined) =>
  typeof hash === 'string' && hash !== '' && hash !== DUMMY_PASSWORD_HASH;

async function accountOf(models: Models, tenantId: number, userId: string) {
  const id = toObjectId(userId);
  if (!id) return undefined;
  return (
    (await models.User.findOne({ tenantId, _id: id }, { username: 1, passwordHash: 1 }).lean<{
      username: string;
      passwordHash?: string;
    }>()) ?? undefined
  );
}

/** The account's links, oldest first; undefined when the account no longer exists in the tenant. */
export async function loadLinkedIdentities(
  models: Models,
  tenantId: number,
  userId: string,
): Promise<LinkedIdentities | undefined> {
  const user = await accountOf(models, tenantId, userId);
  if (!user) return undefined;
  const links = await models.UpstreamLink.find({ tenantId, userId })
    .sort({ _id: 1 })
    .limit(MAX_LINKS)
    .lean<LinkRow[]>();
  const aliases = [...new Set(links.map((l) => l.provider))];
  const providers = aliases.length
    ? await models.UpstreamProvider.find({ tenantId, alias: { $in: aliases } }, { alias: 1, displayName: 1 }).lean()
    : [];
  const names = new Map(providers.map((p) => [p.alias, p.displayName]));
  return {
    username: user.username,
    hasPassword: usablePassword(user.passwordHash),
    links: links.map((l) => {
      const name = names.get(l.provider);
      return {
        id: String(l._id),
        provider: l.provider,
        providerName: name ?? l.provider,
        providerExists: name !== undefined,
        subject: l.subject,
        linkedBy: l.linkedBy,
        linkedAt: l.createdAt,
        ...(l.lastSignInAt ? { lastSignInAt: l.lastSignInAt } : {}),
      };
    }),
  };
}

export type RemoveOutcome =
  { outcome: 'removed'; provider: string } | { outcome: 'not_found' } | { outcome: 'only_way_in'; provider: string };

/**
 * Removes one of the account's links, unless it is the last way in of an account without a usable password.
 *
 * The check before the removal gives the answer; the one after it covers two removals of the account's last two links
 * at the same moment (each saw the other link still there): whichever finds no link left puts its own back, so the
 * account always keeps one.
 */
export async function removeLinkedIdentity(
  models: Models,
  tenantId: number,
  userId: string,
  linkId: string,
): Promise<RemoveOutcome> {
  const id = toObjectId(linkId);
  if (!id) return { outcome: 'not_found' };
  const link = await models.UpstreamLink.findOne({ tenantId, userId, _id: id }).lean<LinkRow>();
  if (!link) return { outcome: 'not_found' };
  const passwordless = async () => !usablePassword((await accountOf(models, tenantId, userId))?.passwordHash);
  const others = () => models.UpstreamLink.countDocuments({ tenantId, userId, _id: { $ne: id } });
  if ((await passwordless()) && (await others()) === 0) return { outcome: 'only_way_in', provider: link.provider };
  const deleted = await models.UpstreamLink.deleteOne({ tenantId, userId, _id: id });
  if (deleted.deletedCount === 0) return { outcome: 'not_found' };
  if ((await passwordless()) && (await models.UpstreamLink.countDocuments({ tenantId, userId })) === 0) {
    // The same document back (its id, its timestamps, what its mappers granted), as if never removed.
    await models.UpstreamLink.collection.insertOne(link as never);
    return { outcome: 'only_way_in', provider: link.provider };
  }
  // The account's `federated_identities` claim lists its links: this one is no longer among them. Read, filtered and
  // written back, as sign-in writes the list (upstream/accounts.ts), not by a $pull condition, which not every
  // MongoDB-compatible store applies to embedded documents.
  const account = await models.User.findOne({ tenantId, _id: toObjectId(userId) }, { federatedIdentities: 1 }).lean();
  const entries = account?.federatedIdentities;
  if (entries) {
    const kept = entries.filter((e) => e.provider !== link.provider || e.subject !== link.subject);
    if (kept.length !== entries.length)
      await models.User.updateOne({ tenantId, _id: toObjectId(userId) }, { $set: { federatedIdentities: kept } });
  }
  return { outcome: 'removed', provider: link.provider };
}
