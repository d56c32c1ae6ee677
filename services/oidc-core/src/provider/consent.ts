/**
 * Honest consent for third-party clients. node-oidc-provider asks only for the scopes a client requests, while a
 * resource-bound access token carries the user's RBAC permissions on that API (all of them when the client's
 * requireAuthorizationScopesInRequest is false; provider/resource-servers.ts). So:
 * - the consent prompt's details list, for every resource of the request, the scopes the token will carry
 *   (`carried`) and the requested scopes it will not (`withheld`); the consent page shows `carried`, and the
 *   confirmation records exactly that in the grant (routes/interactions.ts);
 * - an extra consent check asks again whenever a third-party client's token would carry a scope that its grant
 *   does not hold (a role gained since the consent), so that nothing widens silently; the JWT customizer cuts the
 *   signed scope to the grant in every flow, refresh included.
 * First-party clients skip consent (spec): the check never asks for them.
 */
import { interactionPolicy, type Grant, type KoaContextWithOIDC } from 'oidc-provider';
import type { Models } from '@idp/db';
import { userinfoAudience } from './userinfo-audience';
import { isFirstParty, userResourceScope } from './resource-servers';

/** Key of the consent prompt's details that carries `ConsentScopes`. */
export const CONSENT_SCOPES = 'idpConsentScopes';

export interface ConsentScopes {
  /** Resource indicator → the scopes its access token will carry (sorted): what the page shows and the grant records. */
  carried: Record<string, string[]>;
  /** Resource indicator → requested scopes the API registers that the token will not carry (recorded as rejected). */
  withheld: Record<string, string[]>;
}

/** The reason the extra check reports (visible in interaction details and in the prompt=none error). */
export const CHECK_CARRIED_SCOPES = 'rs_carried_scopes_not_granted';

const memo = new WeakMap<KoaContextWithOIDC, Promise<ConsentScopes>>();

/** What a user's tokens for each requested resource will carry, computed once per authorization request. */
function consentScopesOf(models: Models, tenantId: number, ctx: KoaContextWithOIDC): Promise<ConsentScopes> {
  let pending = memo.get(ctx);
  if (!pending) {
    pending = computeConsentScopes(models, tenantId, ctx);
    memo.set(ctx, pending);
  }
  return pending;
}

async function computeConsentScopes(models: Models, tenantId: number, ctx: KoaContextWithOIDC): Promise<ConsentScopes> {
  const { oidc } = ctx;
  const accountId = oidc.session?.accountId;
  const out: ConsentScopes = { carried: {}, withheld: {} };
  if (!accountId) return out;
  const requested = [...oidc.requestParamScopes];
  const userinfo = userinfoAudience(oidc.provider.issuer);
  for (const [indicator, rs] of Object.entries(oidc.resourceServers ?? {})) {
    const registered = rs.scopes;
    const asked = requested.filter((s) => registered.has(s));
    // The UserInfo audience carries the requested login scopes (and nothing from RBAC).
    const carried =
      indicator === userinfo
        ? [...new Set(asked)].sort()
        : await userResourceScope(models, tenantId, {
            accountId,
            audience: indicator,
            registered,
            requested,
            client: oidc.client as unknown as Record<string, unknown>,
          });
    const carriedSet = new Set(carried);
    out.carried[indicator] = carried;
    const withheld = [...new Set(asked.filter((s) => !carriedSet.has(s)))].sort();
    if (withheld.length) out.withheld[indicator] = withheld;
  }
  return out;
}

/** Scopes of `carried` that the grant does not hold, by resource (empty when the grant covers everything). */
export function notGranted(
  grant: Pick<Grant, 'getResourceScope'>,
  carried: Record<string, string[]>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [resource, scopes] of Object.entries(carried)) {
    const granted = new Set(grant.getResourceScope(resource).split(' '));
    const missing = scopes.filter((s) => !granted.has(s));
    if (missing.length) out[resource] = missing;
  }
  return out;
}

/**
 * node-oidc-provider's interaction policy with honest consent: the consent prompt's details carry
 * `CONSENT_SCOPES`, and a check asks a third-party client's user again when a token would carry a scope the
 * grant does not hold (error consent_required with prompt=none).
 */
export function consentPolicy(models: Models, tenantId: number): interactionPolicy.Prompt[] {
  const policy = interactionPolicy.base();
  const consent = policy.get('consent');
  if (!consent) throw new Error('node-oidc-provider has no consent prompt');
  const builtIn = consent.details;
  consent.details = async (ctx) => ({
    ...((await builtIn(ctx)) ?? {}),
    [CONSENT_SCOPES]: await consentScopesOf(models, tenantId, ctx),
  });
  consent.checks.add(
    new interactionPolicy.Check(
      CHECK_CARRIED_SCOPES,
      'the access token would carry scopes the user has not consented to',
      'consent_required',
      async (ctx) => {
        const { oidc } = ctx;
        if (
          !oidc.client ||
          isFirstParty(oidc.client as unknown as Record<string, unknown>) ||
          !oidc.session?.accountId ||
          !oidc.grant
        ) {
          return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        }
        const { carried } = await consentScopesOf(models, tenantId, ctx);
        return Object.keys(notGranted(oidc.grant, carried)).length
          ? interactionPolicy.Check.REQUEST_PROMPT
          : interactionPolicy.Check.NO_NEED_TO_PROMPT;
      },
    ),
  );
  return policy;
}

/** The consent scopes an interaction's prompt details carry (undefined for an interaction started before this existed). */
export function consentScopesIn(details: Record<string, unknown> | undefined): ConsentScopes | undefined {
  // Stored with the interaction: read as it may be (an older interaction's details lack `withheld`).
  const v = details?.[CONSENT_SCOPES] as { carried?: unknown; withheld?: unknown } | undefined;
  if (!v || typeof v !== 'object' || typeof v.carried !== 'object' || v.carried === null) return undefined;
  const clean = (o: unknown): Record<string, string[]> => {
    const out: Record<string, string[]> = {};
    for (const [k, list] of Object.entries((o ?? {}) as Record<string, unknown>)) {
      if (Array.isArray(list)) out[k] = list.filter((s): s is string => typeof s === 'string');
    }
    return out;
  };
  return { carried: clean(v.carried), withheld: clean(v.withheld) };
}

/**
 * Records a consent in the grant: for each resource, the scopes the page showed become granted (and are no
 * longer rejected, in case an earlier consent withheld them), and the requested scopes the token will not carry
 * are rejected, so the provider does not ask for them again; should the user gain one of them later, the
 * carried-scopes check asks again.
 */
export function recordResourceConsent(grant: Grant, scopes: ConsentScopes): void {
  for (const [resource, shown] of Object.entries(scopes.carried)) {
    const rejected = grant.rejected?.resources?.[resource];
    if (rejected && grant.rejected?.resources) {
      const keep = rejected.split(' ').filter((s) => s && !shown.includes(s));
      if (keep.length) grant.rejected.resources[resource] = keep.join(' ');
      else delete grant.rejected.resources[resource];
    }
    if (shown.length) grant.addResourceScope(resource, shown.join(' '));
  }
  for (const [resource, withheld] of Object.entries(scopes.withheld)) {
    // A scope granted by an earlier consent stays granted: the token still carries it only while the user holds it.
    const granted = new Set(grant.getResourceScope(resource).split(' '));
    const reject = withheld.filter((s) => !granted.has(s));
    if (reject.length) grant.rejectResourceScope(resource, reject.join(' '));
  }
}

/**
 * Why the authorization request ends with nothing granted once this consent is recorded, or undefined when something
 * is. node-oidc-provider ends such a request with a bare access_denied (its reason, "no scope was granted", only in
 * its log); the client and the user get the reason instead: most often a user who holds no role on the API asked for
 * (an MCP client asks for the MCP server's scopes only, no OpenID scope). The same test as the provider's: no
 * requested OpenID scope and no requested scope of any resource of the request in the grant.
 */
export function nothingGrantedReason(
  grant: Pick<Grant, 'getOIDCScopeFiltered' | 'getResourceScopeFiltered'>,
  requestedScope: string,
  scopes: ConsentScopes,
  userinfo: string,
): string | undefined {
  const requested = new Set(requestedScope.split(' ').filter(Boolean));
  if (grant.getOIDCScopeFiltered(requested)) return undefined;
  const resources = Object.keys(scopes.carried);
  if (resources.some((r) => grant.getResourceScopeFiltered(r, requested))) return undefined;
  const apis = resources.filter((r) => r !== userinfo);
  if (!apis.length) return 'nothing the client asked for can be granted';
  return `the user holds no role that grants a scope of ${apis.join(', ')} (an administrator gives an API's scopes to users through roles)`;
}
