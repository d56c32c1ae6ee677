/**
 * Authorization requests without a `scope` for an API (RFC 6749 section 3.3: the server "MUST either process the
 * request using a pre-defined default value or fail the request indicating an invalid scope"). MCP clients send no
 * scope when the protected resource publishes none (MCP authorization, scope selection), and so does the MCP
 * conformance suite's authorization-code-grant scenario.
 *
 * The spec's default (requireAuthorizationScopesInRequest false) already auto-grants the user's RBAC scopes for the
 * API "whatever was requested"; but node-oidc-provider ends a request that asks for no scope at all with
 * access_denied ("no scope was granted"), even after consent. For such a client, a request whose `scope` names no
 * scope at all (absent, or only an offline_access the provider dropped) and that names resource servers takes as its
 * default the scopes those resource servers register: what the token carries is unchanged (the user's RBAC set, cut
 * to the consent for a third party), and the request now succeeds as the spec says. A client with
 * requireAuthorizationScopesInRequest true must still list its scopes (unchanged: no API scope, no token).
 *
 * Seam: an `extraParams` validator (node-oidc-provider's public API), which runs after the provider has checked the
 * scope and resolved the resource servers of the request (authorization, PAR, device authorization).
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { userinfoAudience } from './userinfo-audience';
import { CLIENT_PROPS } from './client-metadata';

/** The extraParams entry whose validator applies the default (its own value is ignored). */
export const DEFAULT_SCOPE_PARAM = 'idp_default_resource_scope';

/** The default: every scope the request's resource servers register (deduplicated, in their order); '' when none. */
export function defaultResourceScope(resourceServers: Record<string, { scope?: string } | undefined>): string {
  const scopes = new Set<string>();
  for (const rs of Object.values(resourceServers)) for (const s of (rs?.scope ?? '').split(' ')) if (s) scopes.add(s);
  return [...scopes].join(' ');
}

export function defaultResourceScopeParams() {
  return {
    [DEFAULT_SCOPE_PARAM]: (ctx: KoaContextWithOIDC, _value: unknown, client: Record<string, unknown> | undefined) => {
      if (!client || client[CLIENT_PROPS.requireAuthorizationScopesInRequest] === true) return;
      const params = ctx.oidc.params as { scope?: string } | undefined;
      if (!params || (typeof params.scope === 'string' && params.scope.trim() !== '')) return;
      // The tenant's UserInfo audience is identity, not an API: it never adds OpenID scopes nobody asked for.
      const userinfo = userinfoAudience(ctx.oidc.provider.issuer);
      const servers = Object.fromEntries(
        Object.entries(
          (ctx.oidc as { resourceServers?: Record<string, { scope?: string }> }).resourceServers ?? {},
        ).filter(([r]) => r !== userinfo),
      );
      const scope = defaultResourceScope(servers);
      if (scope) params.scope = scope;
    },
  };
}
