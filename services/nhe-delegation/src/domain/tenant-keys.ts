/**
 * A tenant's key material as the sidecar holds it: shared by the exchange (verifies subject tokens), the minting of
 * delegation tokens (signs them) and the key cache (loads it), so none of them has to import another for the type.
 */
import type { createLocalJWKSet } from 'jose';
import type { Es256SigningKey } from './es256-jws';

/** A tenant's keys, imported once when loaded (key-cache.ts), never per request. */
export interface TenantKeyMaterial {
  /** Verifies subject tokens: every published key of the tenant (active and retired). */
  keySet: ReturnType<typeof createLocalJWKSet>;
  /** Signs NHE tokens: the active ES256 key, as a node:crypto KeyObject (es256-jws.ts). */
  signingKey: Es256SigningKey;
  signingKid: string;
}
