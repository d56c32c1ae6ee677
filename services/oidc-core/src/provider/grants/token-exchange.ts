import { decodeProtectedHeader } from 'jose';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { ForwardedExchange } from '@idp/delegation';
import { GRANT_TYPE_TOKEN_EXCHANGE } from '@idp/tokens';
import { clientAddress } from '../client-address';
import { CLIENT_PROPS } from '../client-metadata';
import { FAPI2_SIGNING_ALGS } from '../fapi2';
import { issueIdJag, TOKEN_TYPE_ID_JAG, type IdJagIssuerDeps } from './id-jag-issuer';

/** What oidc-core hands to the nhe-delegation sidecar after authenticating the client. */
export type TokenExchangeRequest = ForwardedExchange;

export interface TokenExchangeResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export type TokenExchangeForwarder = (request: TokenExchangeRequest) => Promise<TokenExchangeResponse>;

export const TOKEN_EXCHANGE_PARAMS = [
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'resource',
  'scope',
  'audience',
  'requested_token_type',
] as const;

/**
 * RFC 8693 token exchange. node-oidc-provider has already authenticated the client and checked that the grant is
 * allowed for it; every delegation rule lives in the sidecar, which answers with the token or an RFC 6749 error.
 */
export function registerTokenExchange(
  provider: Provider,
  tenantId: number,
  forward: TokenExchangeForwarder,
  /** The tenant is under FAPI 2.0 (provider/fapi2.ts): a proof is required, signed with FAPI2_SIGNING_ALGS. */
  options: { fapi2?: boolean; idJag?: IdJagIssuerDeps } = {},
): void {
  async function tokenExchange(ctx: KoaContextWithOIDC): Promise<void> {
    const client = ctx.oidc.client;
    if (!client) throw new errors.InvalidClient('client authentication failed');
    const params: Record<string, string | undefined> = {};
    for (const name of TOKEN_EXCHANGE_PARAMS) {
      const value = (ctx.oidc.params as Record<string, unknown> | undefined)?.[name];
      if (typeof value === 'string') params[name] = value;
    }
    const proof = ctx.get('DPoP');
    // A client configured to require DPoP (dpop_bound_access_tokens) gets no unbound token from this grant either;
    // the provider checks that only in its built-in grants.
    // A FAPI 2.0 tenant's clients are all DPoP-bound (provider/fapi2.ts); said again here, since this grant is ours.
    // Before the identity-assertion branch: such a client sends a proof there too.
    if (!proof && (client.dpopBoundAccessTokens || options.fapi2))
      throw new errors.InvalidDpopProof('DPoP proof JWT not provided; this client requires DPoP');
    // An identity assertion for another authorization server is this provider's to issue (grants/id-jag-issuer.ts);
    // every delegation stays with the sidecar.
    // Only for a tenant that issues them (its ID-JAG audience table has an entry); otherwise the request goes where it
    // always did.
    if (
      params.requested_token_type === TOKEN_TYPE_ID_JAG &&
      options.idJag &&
      (await options.idJag.models.IdJagAudience.exists({ tenantId: options.idJag.tenantId }))
    ) {
      await issueIdJag(ctx, options.idJag, params);
      return;
    }
    if (proof && options.fapi2 && !(FAPI2_SIGNING_ALGS as readonly string[]).includes(proofAlgorithm(proof) ?? '')) {
      throw new errors.InvalidDpopProof(`DPoP proof must be signed with ${FAPI2_SIGNING_ALGS.join(', ')} (FAPI 2.0)`);
    }
    const clientNumericId = Number(client[CLIENT_PROPS.numericId]);
    if (!Number.isSafeInteger(clientNumericId)) throw new errors.InvalidClient('client record has no numeric id');
    // htu is the URL the client posted to, exactly as node-oidc-provider expects it for its own grants: the
    // configured public origin (never Host or X-Forwarded-Host, see pinPublicOrigin) and the mount the request came
    // in on (/auth/{t} or /_api/auth/{t}).
    const htu = ctx.oidc.urlFor('token');
    // The client address under the trusted hop count, never the left-most X-Forwarded-For entry.
    const sourceIp = clientAddress(ctx);
    const result = await forward({
      tenantId,
      clientId: client.clientId,
      clientNumericId,
      params,
      ...(proof ? { dpop: { proof, htm: ctx.method, htu } } : {}),
      sourceIp,
    });
    ctx.status = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = result.body;
  }

  /** The proof's `alg` header (the sidecar verifies the proof itself); undefined when it is no JWS. */
  function proofAlgorithm(proof: string): string | undefined {
    try {
      return decodeProtectedHeader(proof).alg;
    } catch {
      return undefined;
    }
  }

  // No parameter may repeat: node-oidc-provider answers invalid_request for duplicates.
  provider.registerGrantType(GRANT_TYPE_TOKEN_EXCHANGE, tokenExchange, [...TOKEN_EXCHANGE_PARAMS]);
}
