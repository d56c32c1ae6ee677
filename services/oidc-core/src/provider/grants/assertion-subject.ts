/**
 * Which local user a trusted issuer's assertion names (RFC 7523 section 3 item 2: the subject identifies the resource
 * owner; the identity chaining draft: the authorization server maps it into its own domain). The issuer's record
 * decides how: through the links of upstream sign-in made for that same issuer, a local user id, or a username claim
 * the issuer is authoritative for; optionally creating the user on first use. An unidentifiable or disabled subject
 * is invalid_grant.
 */
import { errors } from 'oidc-provider';
import { newObjectId, type Models, type TrustedIssuerDoc, type UpstreamProviderDoc } from '@idp/db';
import { isDuplicateKeyError } from '@idp/errors';
import { DUMMY_PASSWORD_HASH } from '@idp/tokens';
import { createAccount } from '../../upstream/accounts';
import { UpstreamError } from '../../upstream/oidc-upstream';

export interface SubjectDeps {
  models: Models;
  tenantId: number;
}

const invalidGrant = (description: string) =>
  Object.assign(new errors.InvalidGrant(description), { error_description: description });

/** The local user the assertion's subject is, enabled, or invalid_grant. */
export async function subjectUser(
  deps: SubjectDeps,
  issuer: TrustedIssuerDoc,
  payload: Record<string, unknown>,
): Promise<string> {
  const v = { issuer, payload };
  const sub = String(payload.sub);
  let userId: string | undefined;
  if (v.issuer.subjectMapping === 'user_id') {
    userId = /^[0-9a-f]{24}$/.test(sub) ? sub : undefined;
  } else if (v.issuer.subjectMapping === 'username_claim') {
    userId = await userByUsernameClaim(deps, v);
  } else if (v.issuer.upstreamProvider) {
    // Only a link this very issuer's sign-in made (or an administrator made for it): another provider's subjects are
    // not this issuer's to name, and a disabled provider links nobody.
    const provider = await deps.models.UpstreamProvider.findOne({
      tenantId: deps.tenantId,
      alias: v.issuer.upstreamProvider,
      enabled: true,
    }).lean<UpstreamProviderDoc>();
    const link = provider
      ? await deps.models.UpstreamLink.findOne({
          tenantId: deps.tenantId,
          provider: v.issuer.upstreamProvider,
          subject: sub,
          issuer: v.issuer.issuer,
        }).lean()
      : null;
    userId = link?.userId;
    // Just-in-time: the account the provider's own first sign-in would make, linked the same way (upstream/accounts).
    if (!userId && provider && v.issuer.jitProvisioning) {
      try {
        userId = await createAccount(
          deps.models,
          deps.tenantId,
          provider,
          { issuer: v.issuer.issuer, subject: sub },
          {},
        );
      } catch (err) {
        if (err instanceof UpstreamError)
          throw invalidGrant(`no user could be created for the subject: ${err.message}`);
        throw err;
      }
    }
  }
  const user = userId
    ? await deps.models.User.findOne({ tenantId: deps.tenantId, _id: userId }, { enabled: 1 }).lean()
    : null;
  // RFC 7523 section 3.1 and the chaining draft: an unidentifiable subject is refused; so is a disabled one.
  if (!user) throw invalidGrant('the assertion names no user of this tenant');
  if (!user.enabled) throw invalidGrant('the user is disabled');
  return String(user._id);
}

/** A local username: what the management API accepts. */
const USERNAME = /^[A-Za-z0-9._@+-]{1,128}$/;

/**
 * username_claim: the user whose username is the claim's value. The issuer's record says it is authoritative for
 * those names; with just-in-time provisioning a name nobody has yet becomes a new user without a usable password.
 */
async function userByUsernameClaim(
  deps: SubjectDeps,
  v: { issuer: TrustedIssuerDoc; payload: Record<string, unknown> },
): Promise<string | undefined> {
  const claim = v.issuer.subjectClaim;
  const username = claim ? v.payload[claim] : undefined;
  if (typeof username !== 'string' || !USERNAME.test(username))
    throw invalidGrant(`the assertion's ${String(claim)} claim is not a username`);
  const existing = await deps.models.User.findOne({ tenantId: deps.tenantId, username }, { _id: 1 }).lean();
  if (existing) return String(existing._id);
  if (!v.issuer.jitProvisioning) return undefined;
  try {
    const created = await deps.models.User.create({
      _id: newObjectId(),
      tenantId: deps.tenantId,
      username,
      // No password works for it (a hash no password matches); an administrator may set one.
      passwordHash: DUMMY_PASSWORD_HASH,
      claims: {},
    });
    return String(created._id);
  } catch (err) {
    // A concurrent redemption made the same user first: that user it is.
    if (!isDuplicateKeyError(err)) throw err;
    const winner = await deps.models.User.findOne({ tenantId: deps.tenantId, username }, { _id: 1 }).lean();
    return winner ? String(winner._id) : undefined;
  }
}
