/**
 * DPoP proofs (RFC 9449) at the token endpoint for the grants this folder registers itself. node-oidc-provider
 * validates a proof and binds the token only in its built-in grants (its validateDpop and checkDpopRequired are
 * called by those handlers, not by the token endpoint), so a grant registered with registerGrantType reads the `DPoP`
 * header itself: here, with the shared verifier (@idp/resource-server, as the nhe-delegation sidecar does for token
 * exchange) and the tenant's proof replay store.
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { dpopProofReplayStore, type Models } from '@idp/db';
import { DEFAULT_DPOP_ALGORITHMS, isResourceServerError, verifyDpopProof } from '@idp/resource-server';
import { FAPI2_SIGNING_ALGS } from '../fapi2';

/** A proof's iat may be this far from now (seconds), as the sidecar's token endpoint proofs. */
const IAT_WINDOW_SECONDS = 60;

export interface TokenEndpointProofDeps {
  models: Models;
  tenantId: number;
  /** The tenant is under FAPI 2.0: proofs signed with FAPI2_SIGNING_ALGS only. */
  fapi2?: boolean | undefined;
}

const refuse = (description: string) =>
  Object.assign(new errors.InvalidDpopProof(description), { error_description: description });

/**
 * RFC 9449 section 5 / 7.1: the token is bound to the proof's key. Checks the request's `DPoP` proof (htm, htu = this
 * token endpoint, recent iat, signature, replay) and answers its key's thumbprint (jkt); undefined when none was sent.
 * `required`: the client or tenant allows no unbound token (dpop_bound_access_tokens, FAPI 2.0). `jkt`: the proof
 * must be made with that key (a DPoP-bound subject token, section 7: only its holder may use it).
 */
export async function tokenEndpointProof(
  ctx: KoaContextWithOIDC,
  deps: TokenEndpointProofDeps,
  o: { required?: boolean; jkt?: string | undefined } = {},
): Promise<string | undefined> {
  const proof = ctx.get('DPoP');
  if (!proof) {
    if (o.jkt !== undefined)
      throw refuse('the subject_token is DPoP-bound: send a DPoP proof made with its key (RFC 9449)');
    if (o.required) throw refuse('DPoP proof JWT not provided; this client requires DPoP');
    return undefined;
  }
  try {
    const verified = await verifyDpopProof(proof, {
      htm: ctx.method,
      // The URL the client posted to, as node-oidc-provider builds it for its own grants (the configured public origin).
      htu: ctx.oidc.urlFor('token'),
      algorithms: deps.fapi2 ? [...FAPI2_SIGNING_ALGS] : [...DEFAULT_DPOP_ALGORITHMS],
      maxAge: IAT_WINDOW_SECONDS,
      ...(o.jkt !== undefined ? { jkt: o.jkt } : {}),
      replay: dpopProofReplayStore(deps.models, deps.tenantId),
    });
    return verified.jkt;
  } catch (err) {
    if (isResourceServerError(err)) throw refuse(err.message);
    throw err;
  }
}
