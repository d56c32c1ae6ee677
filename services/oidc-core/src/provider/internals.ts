/**
 * The only place that reaches past node-oidc-provider's documented API. oidc-provider is pinned exactly
 * (9.13.3) in package.json because of this file.
 */
import type Provider from 'oidc-provider';
import { clientSecretDigest, constantTimeEqual } from '@idp/tokens';

/**
 * Client secrets are stored as a keyed SHA-256 digest, and the client's `client_secret` metadata carries that
 * digest. Replacing `compareClientSecret` on this provider's Client class makes client_secret_basic and
 * client_secret_post digest the presented secret and compare digests in constant time.
 * (client_secret_jwt, which needs the plain secret as an HMAC key, is not offered.)
 */
export function useDigestedClientSecrets(provider: Provider, pepper: string): void {
  const ClientClass = provider.Client as unknown as { prototype: { clientSecret?: string; compareClientSecret: (actual: string) => boolean } };
  ClientClass.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string): boolean {
    if (typeof this.clientSecret !== 'string' || typeof actual !== 'string') return false;
    return constantTimeEqual(this.clientSecret, clientSecretDigest(pepper, actual));
  };
}
