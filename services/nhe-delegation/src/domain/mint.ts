/**
 * Minting and auditing an NHE delegation token: the one path every delegation token takes, whichever flow
 * produced it (token exchange, domain/exchange.ts; an agent client's authorization code or device code,
 * domain/agent-token.ts). The token carries the spec's claims; the issuance is published and JetStream's ack
 * awaited before the token leaves (no durable audit record, no token).
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { CLAIM_ACTOR_PROOF, type ActorAuthentication, type DelegationGranted, type NheFacts, type TenantFacts } from '@idp/delegation';
import { OAuthError } from '@idp/errors';
import type { NheTokenIssued } from '@idp/events';
import { CLAIM_NHE_DELEGATION, CLAIM_TENANT_ID, CLAIM_TENANT_NAME, NHE_SUBJECT_PREFIX } from '@idp/tokens';
import type { TenantKeyMaterial } from './exchange';

export interface NheTokenInput {
  issuer: string;
  keys: TenantKeyMaterial;
  tenant: TenantFacts;
  nhe: NheFacts;
  userId: string;
  clientId: string;
  clientNumericId: number;
  resource: string;
  decision: DelegationGranted;
  /** The grant type that produced the token (`gty`). */
  gty: string;
  jkt?: string | undefined;
  /** A proven actor (issue 19): its act also says how it proved who it is. */
  actor?: ActorAuthentication | undefined;
}

export interface SignedNheToken {
  accessToken: string;
  jti: string;
  /** Seconds since the epoch. */
  issuedAt: number;
}

export async function signNheToken(t: NheTokenInput): Promise<SignedNheToken> {
  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const { nhe, tenant } = t;
  // The claims of the spec's table (plus cnf when bound), and RFC 9068's client_id (section 2.2, required): the
  // OAuth client_id string beside the spec's numeric azp, so stock RFC 9068 validators accept NHE tokens too.
  const accessToken = await new SignJWT({
    scope: t.decision.scopes.join(' '),
    gty: t.gty,
    azp: t.clientNumericId,
    client_id: t.clientId,
    [CLAIM_TENANT_NAME]: tenant.name,
    [CLAIM_TENANT_ID]: tenant.id,
    // The spec's act for a named actor; a proven one also says how it proved who it is (issue 19).
    act: { sub: `${NHE_SUBJECT_PREFIX}${nhe.identifier}`, ...(t.actor && t.actor.method !== 'named' ? { [CLAIM_ACTOR_PROOF]: t.actor.method } : {}) },
    agent: { id: nhe.identifier, type: nhe.type, operator: nhe.operator, ...(nhe.model ? { model: nhe.model } : {}) },
    [CLAIM_NHE_DELEGATION]: true,
    ...(t.jkt ? { cnf: { jkt: t.jkt } } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', kid: t.keys.signingKid, typ: 'at+jwt' })
    .setIssuer(t.issuer)
    .setSubject(t.userId)
    .setAudience(t.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + t.decision.ttl)
    .setJti(jti)
    .sign(t.keys.signingKey);
  return { accessToken, jti, issuedAt: now };
}

/** Publishes the issuance and waits for JetStream's ack; 503 temporarily_unavailable when it cannot be recorded. */
export async function auditIssuance(
  publishIssued: (event: NheTokenIssued) => Promise<void>,
  t: NheTokenInput & { tenantId: number; sourceIp: string },
  signed: SignedNheToken,
): Promise<void> {
  try {
    await publishIssued({
      type: 'nhe.token.issued',
      jti: signed.jti,
      tenantId: t.tenantId,
      userId: t.userId,
      nheId: t.nhe.id,
      nheIdentifier: t.nhe.identifier,
      clientId: t.clientId,
      clientNumericId: t.clientNumericId,
      resourceServer: t.resource,
      scopes: t.decision.scopes,
      ttl: t.decision.ttl,
      sourceIp: t.sourceIp,
      issuedAt: new Date(signed.issuedAt * 1000).toISOString(),
      ...(t.jkt ? { dpopJkt: t.jkt } : {}),
      actorAuth: t.actor ?? { method: 'named' },
    });
  } catch (err) {
    // No durable audit record, no token (DESIGN.md).
    throw new OAuthError('temporarily_unavailable', 'the issuance could not be recorded; no token was issued, retry later', 503, { cause: err });
  }
}
