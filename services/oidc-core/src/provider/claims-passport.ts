/**
 * GA4GH passports (`ga4gh_passport_v1`): the user's visa assertions, each signed as a Visa JWT (GA4GH AAI, "access
 * token format" visas identified by `kid`) with the tenant's RS256 key, whose public half is in the tenant's JWKS.
 * Issued in UserInfo only, and only when the tenant enables passport issuance.
 */
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type CryptoKey, type KeyObject } from 'jose';
import { readVisaConditions } from '@idp/db';
import type { PrivateJwk } from '@idp/tokens';

export interface VisaAssertion {
  type: string;
  value: string;
  source: string;
  by?: string;
  asserted: number;
  /** Storage form (libs/db ga4gh-visas.ts). */
  conditions?: unknown;
}

export class PassportSigner {
  private key?: Promise<{ kid: string; key: CryptoKey | KeyObject | Uint8Array }>;

  constructor(private readonly keys: PrivateJwk[]) {}

  private signingKey() {
    this.key ??= (async () => {
      const jwk = this.keys.find((k) => k.alg === 'RS256' && !(k as { key_ops?: string[] }).key_ops?.length);
      if (!jwk) throw new Error('tenant has no active RS256 key for visas');
      return { kid: jwk.kid, key: await importJWK(jwk, 'RS256') };
    })();
    return this.key;
  }

  /** One signed Visa JWT per assertion; visas expire after `lifetimeSeconds`. */
  async passport(issuer: string, sub: string, visas: VisaAssertion[], lifetimeSeconds: number): Promise<string[]> {
    if (!visas.length) return [];
    const { kid, key } = await this.signingKey();
    const now = Math.floor(Date.now() / 1000);
    return Promise.all(
      visas.map((v) =>
        new SignJWT({
          ga4gh_visa_v1: {
            type: v.type,
            asserted: v.asserted,
            value: v.value,
            source: v.source,
            ...(v.by ? { by: v.by } : {}),
            ...(readVisaConditions(v.conditions) ? { conditions: readVisaConditions(v.conditions) } : {}),
          },
        })
          .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
          .setIssuer(issuer)
          .setSubject(sub)
          .setIssuedAt(now)
          .setExpirationTime(now + lifetimeSeconds)
          .setJti(randomUUID())
          .sign(key),
      ),
    );
  }
}
