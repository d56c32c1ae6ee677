/**
 * Minting and auditing an NHE delegation token: the one path every delegation token takes, whichever flow
 * produced it (token exchange, domain/exchange.ts; an agent client's authorization code or device code, or another
 * organisation's assertion whose act names one of this tenant's NHEs, domain/agent-token.ts). The token carries the
 * spec's claims; the issuance is published and JetStream's ack awaited before the token leaves (no durable audit
 * record, no token).
 */
import { randomUUID } from 'node:crypto';
import {
  nestedAct,
  type ActorAuthentication,
  type ChainActor,
  type DelegationGranted,
  type NheFacts,
  type TenantFacts,
} from '@idp/delegation';
import { OAuthError } from '@idp/errors';
import type { NheTokenIssued } from '@idp/events';
import { CLAIM_NHE_DELEGATION, CLAIM_TENANT_ID, CLAIM_TENANT_NAME } from '@idp/tokens';
import { signEs256Jwt } from './es256-jws';
import type { TenantKeyMaterial } from './tenant-keys';

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
  /** A proven actor (actor token of type jwt): its act also says how it proved who it is. */
  actor?: ActorAuthentication | undefined;
  /** A handed-on delegation token (a delegation chain): its act is nested in the new one, its exp bounds the new one. */
  parent?: { jti: string; act: unknown; actors: ChainActor[]; exp: number } | undefined;
  /** Minted from another organisation's assertion (JWT bearer grant): kept in the audit record, never in the token. */
  crossDomain?: NheTokenIssued['crossDomain'];
  /** RFC 9396 authorization details the person approved (CIBA): carried in the token (section 9.1). */
  authorizationDetails?: Array<Record<string, unknown>> | undefined;
  /** The person's approval (CIBA): kept in the audit record, never in the token. */
  approval?: NheTokenIssued['approval'];
}

export interface SignedNheToken {
  accessToken: string;
  jti: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** exp - iat: the decision's TTL, or less when a parent token expires sooner. */
  ttl: number;
}

export function signNheToken(t: NheTokenInput): SignedNheToken {
  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const { nhe, tenant } = t;
  // A handed-on token never outlives its parent (the decision allowed for it; the clock may have moved a second).
  // When the parent set the lifetime, the child expires exactly with it.
  const exp = t.parent
    ? t.decision.ttlSetBy === 'parent.remaining'
      ? t.parent.exp
      : Math.min(now + t.decision.ttl, t.parent.exp)
    : now + t.decision.ttl;
  if (exp <= now) throw new OAuthError('invalid_grant', 'subject_token has expired', 400);
  // The claims of the spec's table (plus cnf when bound), and RFC 9068's client_id (section 2.2, required): the
  // OAuth client_id string beside the spec's numeric azp, so stock RFC 9068 validators accept NHE tokens too.
  // Signed through node:crypto, synchronously (es256-jws.ts): the same JWS jose would produce, less CPU.
  const accessToken = signEs256Jwt(
    { kid: t.keys.signingKid, typ: 'at+jwt' },
    {
      scope: t.decision.scopes.join(' '),
      gty: t.gty,
      azp: t.clientNumericId,
      client_id: t.clientId,
      [CLAIM_TENANT_NAME]: tenant.name,
      [CLAIM_TENANT_ID]: tenant.id,
      // The spec's act for a named actor; a proven one also says how it proved who it is; a handed-on
      // token nests its parent's act (RFC 8693 section 4.1: the current actor outermost).
      act: nestedAct(nhe.identifier, t.actor?.method ?? 'named', t.parent?.act),
      agent: { id: nhe.identifier, type: nhe.type, operator: nhe.operator, ...(nhe.model ? { model: nhe.model } : {}) },
      [CLAIM_NHE_DELEGATION]: true,
      ...(t.jkt ? { cnf: { jkt: t.jkt } } : {}),
      ...(t.authorizationDetails ? { authorization_details: t.authorizationDetails } : {}),
      iss: t.issuer,
      sub: t.userId,
      aud: t.resource,
      iat: now,
      exp,
      jti,
    },
    t.keys.signingKey,
  );
  return { accessToken, jti, issuedAt: now, ttl: exp - now };
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
      ttl: signed.ttl,
      sourceIp: t.sourceIp,
      issuedAt: new Date(signed.issuedAt * 1000).toISOString(),
      ...(t.jkt ? { dpopJkt: t.jkt } : {}),
      actorAuth: t.actor ?? { method: 'named' },
      ...(t.parent
        ? {
            parentJti: t.parent.jti,
            actorChain: [
              { nheIdentifier: t.nhe.identifier, method: t.actor?.method ?? 'named' },
              ...t.parent.actors.map((a) => ({ nheIdentifier: a.identifier, method: a.method })),
            ],
          }
        : {}),
      ...(t.crossDomain ? { crossDomain: t.crossDomain } : {}),
      ...(t.approval ? { approval: t.approval } : {}),
    });
  } catch (err) {
    // No durable audit record, no token (DESIGN.md).
    throw new OAuthError(
      'temporarily_unavailable',
      'the issuance could not be recorded; no token was issued, retry later',
      503,
      { cause: err },
    );
  }
}
