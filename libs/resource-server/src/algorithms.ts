/** Asymmetric JWS algorithms (RFC 7518, RFC 8037, RFC 9864): the only ones a sender-constraining proof or an access token may use. */
export const ASYMMETRIC_ALGORITHMS: ReadonlySet<string> = new Set([
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
  'Ed25519',
]);

/**
 * DPoP proof algorithms accepted unless the caller sets others: the ones this identity provider accepts in DPoP
 * proofs at its token endpoint (its `dpop_signing_alg_values_supported`: ES256, Ed25519 and EdDSA for a standard
 * tenant; PS256, ES256 and EdDSA for a FAPI 2.0 tenant). A client proves possession of the key the provider bound
 * its token to (`cnf.jkt`) with the same algorithm, so an API that accepted or advertised (RFC 9728, the challenge's
 * `algs`) more would send clients to keys the provider never binds a token to.
 */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = ['ES256', 'EdDSA', 'Ed25519', 'PS256'];

/** Access-token algorithms accepted unless the caller narrows them (this identity provider signs ES256 or RS256). */
export const DEFAULT_ACCESS_TOKEN_ALGORITHMS: readonly string[] = ['ES256', 'RS256'];

/** Throws a TypeError (a configuration mistake, not a refusal) unless every algorithm is asymmetric. */
export function assertAsymmetric(algorithms: readonly string[], what: string): void {
  if (!algorithms.length) throw new TypeError(`${what}: at least one algorithm is required`);
  for (const alg of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.has(alg))
      throw new TypeError(`${what}: ${JSON.stringify(alg)} is not an asymmetric JWS algorithm`);
  }
}
