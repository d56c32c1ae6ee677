/**
 * The tenant's UserInfo audience and the claim that carries a UserInfo-audience JWT access token's login scopes:
 * shared by findAccount (claims-account.ts), the JWT UserInfo path (claims-userinfo.ts), resource servers, consent
 * and the agent clients, kept apart so that none of them has to import another for it.
 */

/** The claim of a UserInfo-audience JWT access token that carries its granted login scopes (never in `scope`). */
export const CLAIM_USERINFO_SCOPE = 'org.vendor.userinfo.scope';

/** The tenant's UserInfo audience: the UserInfo endpoint on the issuer's path. */
export function userinfoAudience(issuer: string): string {
  return `${issuer}/me`;
}
