import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JSONWebKeySet } from 'jose';
import { decideDelegation, loadDelegationFacts, type DelegationDecision, type ForwardedExchange } from '@idp/delegation';
import { isDuplicateKeyError, OAuthError, oauthErrors } from '@idp/errors';
import type { Models } from '@idp/db';
import type { NheTokenIssued } from '@idp/events';
import {
  CLAIM_NHE_DELEGATION,
  CLAIM_TENANT_ID,
  CLAIM_TENANT_NAME,
  GRANT_TYPE_TOKEN_EXCHANGE,
  NHE_SUBJECT_PREFIX,
  TOKEN_TYPE_ACCESS_TOKEN,
  TOKEN_TYPE_NHE_ID,
  type PrivateJwk,
} from '@idp/tokens';
import { verifyDpopProof } from './dpop';
import { verifySubjectToken } from './subject-token';

export type ExchangeInput = ForwardedExchange;

export interface TenantKeyMaterial {
  publicJwks: JSONWebKeySet;
  /** The active ES256 private key. */
  signing: PrivateJwk;
}

export interface ExchangeDeps {
  models: Models;
  /** `{base}/auth/{tenantId}`. */
  issuerFor: (tenantId: number) => string;
  keysFor: (tenantId: number) => Promise<TenantKeyMaterial>;
  /** Resolves once JetStream has durably accepted the event; rejects otherwise. */
  publishIssued: (event: NheTokenIssued) => Promise<void>;
  /** Called with every decision (metrics and the decision log). */
  onDecision: (decision: DelegationDecision | { outcome: 'rejected'; error: string; reason: string }, input: ExchangeInput) => void;
}

export interface ExchangeResult {
  access_token: string;
  issued_token_type: typeof TOKEN_TYPE_ACCESS_TOKEN;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope?: string;
}

const MAX_TOKEN_LENGTH = 16 * 1024;
const MAX_SCOPE_LENGTH = 2048;

function required(params: ExchangeInput['params'], name: string, max = 2048): string {
  const value = params[name];
  if (value === undefined || value === '') throw oauthErrors.invalidRequest(`missing required parameter '${name}'`);
  if (value.length > max) throw oauthErrors.invalidRequest(`parameter '${name}' is too long`);
  return value;
}

/** Validates the RFC 8693 parameters of the NHE profile. */
export function parseExchangeParams(params: ExchangeInput['params']) {
  const subjectToken = required(params, 'subject_token', MAX_TOKEN_LENGTH);
  const subjectTokenType = required(params, 'subject_token_type');
  if (subjectTokenType !== TOKEN_TYPE_ACCESS_TOKEN) throw oauthErrors.invalidRequest(`unsupported subject_token_type; use ${TOKEN_TYPE_ACCESS_TOKEN}`);
  const actorToken = required(params, 'actor_token', 256);
  const actorTokenType = required(params, 'actor_token_type');
  if (actorTokenType !== TOKEN_TYPE_NHE_ID) throw oauthErrors.invalidRequest(`unsupported actor_token_type; use ${TOKEN_TYPE_NHE_ID}`);
  const resource = required(params, 'resource');
  let resourceUrl: URL | undefined;
  try {
    resourceUrl = new URL(resource);
  } catch {
    resourceUrl = undefined;
  }
  if (!resourceUrl || resourceUrl.hash) throw oauthErrors.invalidTarget('resource must be an absolute URI without a fragment');
  const scope = required(params, 'scope', MAX_SCOPE_LENGTH);
  const scopes = scope.split(' ').filter(Boolean);
  if (!scopes.length || scopes.some((s) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) throw oauthErrors.invalidScope('scope is malformed');
  if (params.requested_token_type !== undefined && params.requested_token_type !== TOKEN_TYPE_ACCESS_TOKEN) {
    throw oauthErrors.invalidRequest(`unsupported requested_token_type; use ${TOKEN_TYPE_ACCESS_TOKEN}`);
  }
  if (params.audience !== undefined) throw oauthErrors.invalidRequest('audience is not supported; name the resource server with resource');
  return { subjectToken, actorToken, resource, scopes };
}

/** Rejects a DPoP proof seen before (across replicas: the record lives in MongoDB until the proof expires). */
async function assertFreshProof(models: Models, tenantId: number, jkt: string, jti: string): Promise<void> {
  try {
    await models.OidcPayload.create({
      _id: `${tenantId}:DPoPProof:${jkt}:${jti}`,
      tenantId,
      model: 'DPoPProof',
      payload: '{}',
      expiresAt: new Date(Date.now() + 5 * 60 * 1000),
    });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw oauthErrors.invalidDpopProof('DPoP proof has been used before');
    throw err;
  }
}

/** The whole NHE token exchange after client authentication: verify, decide, mint, audit. */
export async function exchangeToken(deps: ExchangeDeps, input: ExchangeInput): Promise<ExchangeResult> {
  let p: ReturnType<typeof parseExchangeParams>;
  let subject: Awaited<ReturnType<typeof verifySubjectToken>>;
  const keys = await deps.keysFor(input.tenantId);
  const issuer = deps.issuerFor(input.tenantId);
  try {
    p = parseExchangeParams(input.params);
    subject = await verifySubjectToken(p.subjectToken, keys.publicJwks, issuer, input.clientId);
  } catch (err) {
    if (err instanceof OAuthError) deps.onDecision({ outcome: 'rejected', error: err.error, reason: err.message }, input);
    throw err;
  }

  const facts = await loadDelegationFacts(deps.models, {
    tenantId: input.tenantId,
    clientId: input.clientId,
    userId: subject.userId,
    nheIdentifier: p.actorToken,
    resource: p.resource,
    requestedScopes: p.scopes,
  });
  if (!facts) throw oauthErrors.invalidClient('client not found');
  const decision = decideDelegation(facts);
  deps.onDecision(decision, input);
  if (decision.outcome === 'denied') {
    throw new OAuthError(decision.error, decision.description, 400, decision.scopes ? { extra: { scope: decision.scopes.join(' ') } } : {});
  }

  let jkt: string | undefined;
  if (input.dpop) {
    const proof = await verifyDpopProof(input.dpop.proof, input.dpop.htm, input.dpop.htu);
    await assertFreshProof(deps.models, input.tenantId, proof.jkt, proof.jti);
    jkt = proof.jkt;
  } else if (facts.tenant.nhe.requireDpop) {
    throw oauthErrors.invalidDpopProof('this tenant requires a DPoP proof for delegated tokens');
  }

  const nhe = facts.nhe!;
  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const signing = keys.signing;
  const accessToken = await new SignJWT({
    scope: decision.scopes.join(' '),
    gty: GRANT_TYPE_TOKEN_EXCHANGE,
    azp: input.clientNumericId,
    client_id: input.clientId,
    [CLAIM_TENANT_NAME]: facts.tenant.name,
    [CLAIM_TENANT_ID]: facts.tenant.id,
    act: { sub: `${NHE_SUBJECT_PREFIX}${nhe.identifier}` },
    agent: { id: nhe.identifier, type: nhe.type, operator: nhe.operator, ...(nhe.model ? { model: nhe.model } : {}) },
    [CLAIM_NHE_DELEGATION]: true,
    ...(jkt ? { cnf: { jkt } } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', kid: signing.kid, typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject(subject.userId)
    .setAudience(p.resource)
    .setIssuedAt(now)
    .setExpirationTime(now + decision.ttl)
    .setJti(jti)
    .sign(await importJWK(signing, 'ES256'));

  try {
    await deps.publishIssued({
      type: 'nhe.token.issued',
      jti,
      tenantId: input.tenantId,
      userId: subject.userId,
      nheId: nhe.id,
      nheIdentifier: nhe.identifier,
      clientId: input.clientId,
      clientNumericId: input.clientNumericId,
      resourceServer: p.resource,
      scopes: decision.scopes,
      ttl: decision.ttl,
      sourceIp: input.sourceIp,
      issuedAt: new Date(now * 1000).toISOString(),
      ...(jkt ? { dpopJkt: jkt } : {}),
    });
  } catch {
    // No durable audit record, no token (DESIGN.md).
    throw oauthErrors.temporarilyUnavailable('the issuance could not be recorded; no token was issued, retry later');
  }

  const granted = decision.scopes.join(' ');
  return {
    access_token: accessToken,
    issued_token_type: TOKEN_TYPE_ACCESS_TOKEN,
    token_type: jkt ? 'DPoP' : 'Bearer',
    expires_in: decision.ttl,
    ...(granted !== p.scopes.join(' ') ? { scope: granted } : {}),
  };
}
