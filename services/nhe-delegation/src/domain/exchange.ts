import type { JWTPayload } from 'jose';
import {
  decideDelegation,
  loadDelegationFacts,
  MAX_ACTOR_JWT_LENGTH,
  TOKEN_TYPE_JWT,
  type ActorAuthentication,
  type DelegationDecision,
  type DelegationFacts,
  type DelegationRequest,
  type ForwardedExchange,
} from '@idp/delegation';
import { OAuthError, oauthErrors } from '@idp/errors';
import { singleUseStore, type Models } from '@idp/db';
import {
  DenyList,
  REVOCATION_COLLECTION,
  revocationStore,
  type NheTokenIssued,
  type RevocationCollection,
  type RevocationStore,
} from '@idp/events';
import { GRANT_TYPE_TOKEN_EXCHANGE, TOKEN_TYPE_ACCESS_TOKEN, TOKEN_TYPE_NHE_ID } from '@idp/tokens';
import type { ActorDirectory } from './actor-directory';
import { authenticateActor, type AuthenticatedActor } from './actor-token';
import { verifyTokenEndpointProof } from './dpop';
import { auditIssuance, signNheToken } from './mint';
import type { DpopNonces } from './dpop-nonce';
import { assertSubjectGrantLive, grantReader } from './subject-grant';
import type { GrantReader } from './grant-cache';
import type { TenantKeyMaterial } from './tenant-keys';
import { signInOf, verifySubjectToken } from './subject-token';

export type ExchangeInput = ForwardedExchange;

export interface ExchangeDeps {
  models: Models;
  /** `{base}/auth/{tenantId}`. */
  issuerFor: (tenantId: number) => string;
  keysFor: (tenantId: number) => Promise<TenantKeyMaterial>;
  /** Resolves once JetStream has durably accepted the event; rejects otherwise. */
  publishIssued: (event: NheTokenIssued) => Promise<void>;
  /**
   * Called once per request that reaches the decision or fails before/after it (metrics and the decision log):
   * the decision record, or `rejected` with the error code and the reason (never a token).
   */
  onDecision: (decision: DelegationDecision | ExchangeRejection, input: ExchangeInput, actor?: ActorReport) => void;
  /** NHE keys and trusted workload issuers, for actor tokens of type jwt and DPoP pinned to the agent. */
  actors: ActorDirectory;
  /** Stateless DPoP nonces; without it nonces are neither issued nor required. */
  dpopNonces?: DpopNonces;
  /** The kill switch's entries (handed-on tokens are checked against them); default: the `nhe_revocations` collection. */
  revocations?: RevocationStore;
  /** Loads the decision's facts; default: straight from MongoDB (the service passes a short-lived cache). */
  loadFacts?: (request: DelegationRequest) => Promise<DelegationFacts | null>;
  /** Reads the subject token's grant; default: straight from MongoDB (the service passes its grant cache, GRANT_CACHE_TTL_MS). */
  readGrant?: GrantReader;
  /**
   * Where the single-use `jti` of actor tokens is recorded, shared by every replica (the service: the JetStream
   * stream of @idp/events unless ACTOR_JTI_STORE=mongodb); default: the `oidc_payloads` collection.
   */
  actorJtiStore?: (tenantId: number) => { remember(key: string, expiresAt?: Date): Promise<boolean> };
}

/** The actor as the request authenticated it (for the decision log; never the actor token itself). */
export interface ActorReport {
  nheIdentifier: string;
  auth: ActorAuthentication;
}

/** A failure outside the delegation decision: bad parameters, bad subject or actor token, DPoP, audit unavailable. */
export interface ExchangeRejection {
  outcome: 'rejected';
  error: string;
  /** Where it failed. */
  stage: 'parameters' | 'subject-token' | 'actor-token' | 'dpop' | 'audit' | 'client' | 'internal';
  reason: string;
}

export interface ExchangeResponse {
  body: ExchangeResult;
  headers: Record<string, string>;
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
  if (subjectTokenType !== TOKEN_TYPE_ACCESS_TOKEN)
    throw oauthErrors.invalidRequest(`unsupported subject_token_type; use ${TOKEN_TYPE_ACCESS_TOKEN}`);
  const actorToken = required(params, 'actor_token', MAX_ACTOR_JWT_LENGTH);
  const actorTokenType = required(params, 'actor_token_type');
  // The spec's type (the NHE's identifier) and, beside it, a JWT that proves the actor.
  if (actorTokenType !== TOKEN_TYPE_NHE_ID && actorTokenType !== TOKEN_TYPE_JWT) {
    throw oauthErrors.invalidRequest(`unsupported actor_token_type; use ${TOKEN_TYPE_NHE_ID} or ${TOKEN_TYPE_JWT}`);
  }
  // No NHE identifier is this long (management caps them far below): an unknown NHE, as the spec names it.
  if (actorTokenType === TOKEN_TYPE_NHE_ID && actorToken.length > 256)
    throw oauthErrors.invalidGrant('unknown non-human entity');
  const resource = required(params, 'resource');
  let resourceUrl: URL | undefined;
  try {
    resourceUrl = new URL(resource);
  } catch {
    resourceUrl = undefined;
  }
  if (!resourceUrl || resourceUrl.hash)
    throw oauthErrors.invalidTarget("parameter 'resource' must be an absolute URI without a fragment");
  const scope = required(params, 'scope', MAX_SCOPE_LENGTH);
  const scopes = scope.split(' ').filter(Boolean);
  if (!scopes.length || scopes.some((s) => !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)))
    throw oauthErrors.invalidScope("parameter 'scope' is malformed");
  if (params.requested_token_type !== undefined && params.requested_token_type !== TOKEN_TYPE_ACCESS_TOKEN) {
    throw oauthErrors.invalidRequest(`unsupported requested_token_type; use ${TOKEN_TYPE_ACCESS_TOKEN}`);
  }
  if (params.audience !== undefined)
    throw oauthErrors.invalidRequest('audience is not supported; name the resource server with resource');
  return {
    subjectToken,
    actorToken,
    actorTokenType: actorTokenType as typeof TOKEN_TYPE_NHE_ID | typeof TOKEN_TYPE_JWT,
    resource,
    scopes,
  };
}

/** What an actor JWT's `aud` may name: the tenant's issuer, or its token endpoint (either mount). */
export function actorAudiences(issuer: string): string[] {
  const u = new URL(issuer);
  return [issuer, `${issuer}/oidc/token`, `${u.origin}/_api${u.pathname}/oidc/token`];
}

/**
 * DPoP pinned to the agent: the proof's key must be one of the NHE's registered keys (inline or at its
 * jwks_uri, refetched once when the key is not in the cached set). invalid_dpop_proof otherwise.
 */
async function assertPinnedKey(
  actors: ActorDirectory,
  tenantId: number,
  identifier: string,
  jkt: string,
): Promise<void> {
  const nhe = await actors.nhe(tenantId, identifier);
  if (!nhe?.keys)
    throw oauthErrors.invalidDpopProof(
      'this NHE requires DPoP bound to one of its registered keys, and has none registered',
    );
  if ((await nhe.keys.keys()).some((k) => k.jkt === jkt)) return;
  const fresh = await nhe.keys.refresh();
  if (fresh?.some((k) => k.jkt === jkt)) return;
  throw oauthErrors.invalidDpopProof("DPoP proof key is not one of the NHE's registered keys");
}

/**
 * What the user consented to the client for `resource`, as the subject token carries it: its `scope` when its `aud`
 * names the resource, nothing otherwise (a token for another API says nothing about this one). The decision caps a
 * third-party client's delegation at this (layer `consent`); a third-party user token is already cut to its grant.
 */
export function consentedScopes(subject: JWTPayload, resource: string): string[] {
  const audiences = typeof subject.aud === 'string' ? [subject.aud] : Array.isArray(subject.aud) ? subject.aud : [];
  if (!audiences.includes(resource) || typeof subject.scope !== 'string') return [];
  return subject.scope.split(' ').filter(Boolean);
}

/**
 * A handed-on token (a delegation chain) is refused when the kill switch revoked it: by its jti, its client, its user
 * or any actor of its chain (the entries the management API and the SSF transmitter share, `nhe_revocations`).
 */
async function assertParentNotRevoked(
  deps: ExchangeDeps,
  tenantId: number,
  subject: Awaited<ReturnType<typeof verifySubjectToken>>,
): Promise<void> {
  const parent = subject.parent!;
  const entries = await (
    deps.revocations ??
    revocationStore(deps.models.Nhe.db.collection(REVOCATION_COLLECTION) as unknown as RevocationCollection)
  ).active(new Date(), tenantId);
  if (!entries.length) return;
  const list = new DenyList();
  for (const e of entries) list.add(e);
  const identifiers = parent.actors.map((a) => a.identifier);
  const azp = subject.payload.azp as number;
  if (
    list.isRevoked({
      tenantId,
      nheIdentifier: identifiers[0]!,
      actorChain: identifiers,
      jti: parent.jti,
      azp,
      sub: subject.userId,
      iat: parent.iat,
    })
  ) {
    throw oauthErrors.invalidGrant('subject_token has been revoked');
  }
}

/** An OAuthError tagged with the stage it came from (the decision denials are reported by the decision itself). */
class StageError extends Error {
  constructor(
    readonly stage: ExchangeRejection['stage'],
    readonly inner: unknown,
  ) {
    super('stage error');
  }
}

async function stage<T>(name: ExchangeRejection['stage'], fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StageError(name, err);
  }
}

/**
 * The whole NHE token exchange after client authentication: verify, decide, DPoP, mint, audit. Every failure is
 * reported once through onDecision (a denial as its decision record, anything else as a rejection with its stage).
 */
export async function exchangeToken(deps: ExchangeDeps, input: ExchangeInput): Promise<ExchangeResponse> {
  try {
    return await exchangeInner(deps, input);
  } catch (err) {
    if (err instanceof StageError) {
      const inner = err.inner;
      if (inner instanceof OAuthError) {
        const cause = inner.cause instanceof Error ? `: ${inner.cause.message}` : '';
        deps.onDecision(
          { outcome: 'rejected', error: inner.error, stage: err.stage, reason: `${inner.message}${cause}` },
          input,
        );
        throw inner;
      }
      deps.onDecision(
        {
          outcome: 'rejected',
          error: 'server_error',
          stage: 'internal',
          reason: inner instanceof Error ? inner.message : String(inner),
        },
        input,
      );
      throw inner;
    }
    throw err;
  }
}

async function exchangeInner(deps: ExchangeDeps, input: ExchangeInput): Promise<ExchangeResponse> {
  const p = await stage('parameters', () => parseExchangeParams(input.params));
  const keys = await stage('internal', () => deps.keysFor(input.tenantId));
  const issuer = deps.issuerFor(input.tenantId);
  // A delegation token as subject_token is refused (the spec) unless the tenant allows chains (maxChainDepth).
  const maxChainDepth = async () => {
    const t = await deps.models.Tenant.findById(input.tenantId, { 'settings.nhe.maxChainDepth': 1 }).lean<{
      settings?: { nhe?: { maxChainDepth?: number } };
    }>();
    return t?.settings?.nhe?.maxChainDepth ?? 1;
  };
  const subject = await stage('subject-token', () =>
    verifySubjectToken(p.subjectToken, keys.keySet, issuer, input.clientId, { maxChainDepth }),
  );
  const parent = subject.parent;
  // A DPoP-bound user token (cnf.jkt) is only good with its key: exchanging it needs a proof made with that key,
  // or a leaked bound token plus the client's credentials would mint an NHE token, unbound, without the key.
  const boundTo = subject.jkt;
  const boundError = () => oauthErrors.invalidGrant('subject_token is DPoP-bound: send a DPoP proof made with its key');
  if (boundTo !== undefined && !input.dpop) await stage('subject-token', () => Promise.reject(boundError()));

  // An actor JWT names its NHE by proof; the spec's nhe-id token by name.
  let actor: AuthenticatedActor | undefined;
  if (p.actorTokenType === TOKEN_TYPE_JWT) {
    actor = await stage('actor-token', () =>
      authenticateActor(p.actorToken, {
        tenantId: input.tenantId,
        audiences: actorAudiences(issuer),
        directory: deps.actors,
        replay: deps.actorJtiStore
          ? deps.actorJtiStore(input.tenantId)
          : singleUseStore(deps.models, input.tenantId, 'ActorToken'),
      }),
    );
  }
  const nheIdentifier = actor ? actor.nheIdentifier : p.actorToken;
  const report: ActorReport | undefined = actor ? { nheIdentifier, auth: actor.auth } : undefined;
  const onDecision = (d: DelegationDecision) => deps.onDecision(d, input, report);

  const loadFacts = deps.loadFacts ?? ((r: DelegationRequest) => loadDelegationFacts(deps.models, r));
  // The grant check (one read by primary key) and the actor token's jti (one insert) run beside the facts load.
  const [, , loaded] = await Promise.all([
    stage('subject-token', () =>
      assertSubjectGrantLive(
        deps.readGrant ?? grantReader(deps.models),
        input.tenantId,
        subject.payload,
        input.clientId,
        subject.userId,
      ),
    ),
    // A handed-on token must not be revoked itself (the kill switch names its jti, an actor of its chain, ...).
    parent ? stage('subject-token', () => assertParentNotRevoked(deps, input.tenantId, subject)) : undefined,
    stage('internal', () =>
      loadFacts({
        tenantId: input.tenantId,
        clientId: input.clientId,
        userId: subject.userId,
        nheIdentifier,
        resource: p.resource,
        requestedScopes: p.scopes,
        consentedScopes: consentedScopes(subject.payload, p.resource),
        // What the subject token says of the user's sign-in (a policy may require a recent phishing-resistant one).
        signIn: signInOf(subject.payload),
        ...(parent
          ? { parent: { actors: parent.actors, scopes: parent.scopes, audience: parent.audience, exp: parent.exp } }
          : {}),
      }),
    ),
    actor ? stage('actor-token', () => actor.consume()) : undefined,
  ]);
  if (!loaded) await stage('client', () => Promise.reject(oauthErrors.invalidClient('client not found')));
  const facts: DelegationFacts = { ...loaded!, actorAuth: actor ? actor.auth.method : 'named' };
  const decision = decideDelegation(facts);
  if (decision.outcome === 'denied') {
    onDecision(decision);
    throw new OAuthError(
      decision.error,
      decision.description,
      400,
      decision.scopes ? { extra: { scope: decision.scopes.join(' ') } } : {},
    );
  }
  const tenant = facts.tenant;
  const nhe = facts.nhe!;
  // DPoP pinned to the agent: the NHE's tokens are bound to one of its registered keys.
  const pinned = nhe.requireKeyBoundDpop === true;

  // DPoP (RFC 9449): required when the tenant says so; a proof sent anyway binds the token. With requireDpop the
  // proof must also carry a fresh server nonce (use_dpop_nonce hands one out); a nonce sent anyway must be valid.
  const headers: Record<string, string> = {};
  let jkt: string | undefined;
  if (input.dpop || tenant.nhe.requireDpop || pinned) {
    jkt = await stage('dpop', async () => {
      if (!input.dpop && pinned)
        throw oauthErrors.invalidDpopProof(
          'this NHE requires its tokens to be DPoP-bound to one of its registered keys: send a DPoP proof made with one of them',
        );
      if (!input.dpop) throw oauthErrors.invalidDpopProof('this tenant requires a DPoP proof for delegated tokens');
      // The shared verifier: checks, then the nonce (use_dpop_nonce hands one out), then replay across replicas.
      const proof = await verifyTokenEndpointProof(input.dpop.proof, {
        models: deps.models,
        tenantId: input.tenantId,
        htm: input.dpop.htm,
        htu: input.dpop.htu,
        requireNonce: tenant.nhe.requireDpop,
        ...(deps.dpopNonces ? { nonces: deps.dpopNonces } : {}),
      });
      if (pinned) await assertPinnedKey(deps.actors, input.tenantId, nhe.identifier, proof.jkt);
      return proof.jkt;
    });
    if (deps.dpopNonces) headers['DPoP-Nonce'] = deps.dpopNonces.issue(input.tenantId);
  }
  if (boundTo !== undefined && jkt !== boundTo) await stage('subject-token', () => Promise.reject(boundError()));

  const mint = {
    issuer,
    keys,
    tenant,
    nhe,
    userId: subject.userId,
    clientId: input.clientId,
    clientNumericId: input.clientNumericId,
    resource: p.resource,
    decision,
    gty: GRANT_TYPE_TOKEN_EXCHANGE,
    jkt,
    actor: actor?.auth,
    parent: parent ? { jti: parent.jti, act: parent.act, actors: parent.actors, exp: parent.exp } : undefined,
  };
  const signed = signNheToken(mint);
  const accessToken = signed.accessToken;
  await stage('audit', () =>
    auditIssuance(deps.publishIssued, { ...mint, tenantId: input.tenantId, sourceIp: input.sourceIp }, signed),
  );
  // A grant is reported once a token exists: a refused proof or an unrecorded issuance is one rejection, not also a grant.
  onDecision(decision);

  const granted = decision.scopes.join(' ');
  return {
    headers,
    body: {
      access_token: accessToken,
      issued_token_type: TOKEN_TYPE_ACCESS_TOKEN,
      token_type: jkt ? 'DPoP' : 'Bearer',
      expires_in: signed.ttl,
      ...(granted !== p.scopes.join(' ') ? { scope: granted } : {}),
    },
  };
}
