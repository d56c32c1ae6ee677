import type { RequestListener } from 'node:http';
import type { Request, Response } from 'express';
import { createHttpApp, oauthErrorHandler, oauthNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { Counter } from 'prom-client';
import { TOKEN_TYPE_JWT, type DenialGate } from '@idp/delegation';
import { actorDirectory, type ActorDirectory, type JwksFetcher } from './domain/actor-directory';
import type { ExchangeDeps } from './domain/exchange';
import { safeJwksFetcher } from './domain/jwks-fetch';
import { dpopNonces } from './domain/dpop-nonce';
import { EXCHANGE_PATH, isExchangeRequest, tokenExchangeHandler } from './routes/token-exchange';
import { AGENT_TOKEN_PATH, agentTokenHandler, isAgentTokenRequest } from './routes/agent-token';
import type { AgentTokenDeps } from './domain/agent-token';
import { ID_JAG_ISSUED_PATH, idJagIssuedHandler, isIdJagIssuedRequest } from './routes/id-jag-issued';
import type { NheTokenRefused } from '@idp/events';
import { refusalPublisher } from './domain/refusal-publisher';
import { CIBA_TOKEN_PATH, cibaDecisionLog, cibaTokenHandler, isCibaTokenRequest } from './routes/ciba-token';
import { tenantEnabledLookup, type TenantEnabledLookup } from './domain/tenant-enabled';

export interface AppDeps extends Omit<ExchangeDeps, 'onDecision' | 'dpopNonces' | 'actors'> {
  /** NHE keys and workload issuers (main.ts passes one it invalidates); default: over `models`, fetching with `fetchJwks`. */
  actors?: ActorDirectory;
  /** Remote JWK Sets for the default directory; default: SSRF-safe https fetches, no private or loopback addresses. */
  fetchJwks?: JwksFetcher;
  logger: Logger;
  sidecarSecret: string;
  readiness: ReadinessCheck[];
  /**
   * Publishes a refusal of the decision log to JetStream (main.ts: the audit stream, `idp.audit.nhe.refused.<tenant>`);
   * called fire-and-forget, never awaited by a token response. Absent: refusals are only counted and logged.
   */
  publishRefusal?: (event: NheTokenRefused) => Promise<void>;
  /** Refusal publishes in flight at once before new ones are dropped (default 256). */
  refusalMaxInFlight?: number;
  /** Tenant.enabled (main.ts passes one it invalidates); default: read from `models`, kept 5 s. */
  tenantEnabled?: TenantEnabledLookup;
}

/** Gates of the decision that refuse before the named NHE is looked up: its name is then still the caller's string. */
const GATES_BEFORE_NHE_LOOKUP: ReadonlySet<DenialGate> = new Set<DenialGate>([
  'tenant-disabled',
  'client-disabled',
  'user-inactive',
  'nhe-not-found',
]);

/** At most 128 characters of a caller's string, marked when cut. */
export function bounded(value: unknown): unknown {
  return typeof value === 'string' && value.length > 128 ? `${value.slice(0, 128)}…(${value.length} chars)` : value;
}

export function createApp(deps: AppDeps) {
  const { app, registry, prelude } = createHttpApp({
    service: 'nhe-delegation',
    logger: deps.logger,
    readiness: deps.readiness,
    // Every exchange logs its decision record (onDecision below) with the request's facts: that is its request log.
    skipRequestLog: (req) => isExchangeRequest(req) || isAgentTokenRequest(req),
  });
  const decisions = new Counter({
    name: 'nhe_token_exchange_decisions_total',
    help: 'NHE token-exchange outcomes: granted, denied (gate = the gate that refused) or rejected (gate = the stage that failed: parameters, subject-token, actor-token, dpop, audit, client, internal)',
    labelNames: ['outcome', 'error', 'gate'],
    registers: [registry],
  });
  const narrowed = new Counter({
    name: 'nhe_token_exchange_scopes_removed_total',
    help: 'Requested scopes removed from granted NHE tokens, by the layer of the intersection that removed them',
    labelNames: ['layer'],
    registers: [registry],
  });
  const dropped = new Counter({
    name: 'nhe_refusal_events_dropped_total',
    help: 'Refusals of the decision log not published to JetStream (best effort): queue-full (too many publishes in flight) or publish-failed',
    labelNames: ['reason'],
    registers: [registry],
  });
  const publishRefusal = deps.publishRefusal;
  const refused = publishRefusal
    ? refusalPublisher({
        publish: publishRefusal,
        maxInFlight: deps.refusalMaxInFlight ?? 256,
        onDropped: (reason) => dropped.inc({ reason }),
      })
    : () => undefined;
  const logger = deps.logger;
  const onDecision: ExchangeDeps['onDecision'] = (decision, input, actor) => {
    // Never the tokens: only the NHE identifier (an nhe-id actor_token is a name, not a credential; an actor JWT is
    // a credential and is never logged: the NHE it proved is) and the resource, each cut to a bounded length (they
    // are the caller's strings until validated: a refused 30 KB value stays out of logs).
    const nhe = actor
      ? actor.nheIdentifier
      : input.params.actor_token_type === TOKEN_TYPE_JWT
        ? '(actor JWT)'
        : bounded(input.params.actor_token);
    const fields = () => ({
      tenantId: input.tenantId,
      client_id: input.clientId,
      nhe,
      ...(actor ? { actorAuth: actor.auth } : {}),
      resource: bounded(input.params.resource),
      sourceIp: input.sourceIp,
    });
    if (decision.outcome === 'granted') {
      decisions.inc({ outcome: 'granted', error: '', gate: '' });
      for (const r of decision.removed) narrowed.inc({ layer: r.layer });
      if (logger.isLevelEnabled('info')) {
        const record = {
          outcome: decision.outcome,
          scopes: decision.scopes,
          removed: decision.removed,
          ttl: decision.ttl,
          ttlSetBy: decision.ttlSetBy,
          ttlTerms: decision.ttlTerms,
          policyIds: decision.policyIds,
          actorAuth: decision.actorAuth,
          ...(decision.chain ? { chain: decision.chain } : {}),
        };
        logger.info({ ...fields(), decision: record }, 'delegation granted');
      }
      return;
    }
    // Only an NHE the request authenticated, or a named one the decision found in the registry, is counted by name:
    // an unchecked caller's string would let a client invent counter keys.
    const named =
      !actor &&
      decision.outcome === 'denied' &&
      !GATES_BEFORE_NHE_LOOKUP.has(decision.gate) &&
      input.params.actor_token_type !== TOKEN_TYPE_JWT
        ? input.params.actor_token
        : undefined;
    refused({
      tenantId: input.tenantId,
      outcome: decision.outcome,
      error: decision.error,
      gate: decision.outcome === 'denied' ? decision.gate : decision.stage,
      flow: 'token-exchange',
      clientId: input.clientId,
      ...(actor ? { nheIdentifier: actor.nheIdentifier } : named ? { nheIdentifier: named } : {}),
    });
    if (decision.outcome === 'denied') {
      decisions.inc({ outcome: 'denied', error: decision.error, gate: decision.gate });
      logger.info({ ...fields(), decision }, 'delegation denied');
    } else {
      decisions.inc({ outcome: 'rejected', error: decision.error, gate: decision.stage });
      if (decision.stage === 'internal' || decision.stage === 'audit')
        logger.warn({ ...fields(), decision }, 'token exchange failed');
      else logger.info({ ...fields(), decision }, 'token exchange rejected');
    }
  };
  app.use(oauthNotFound);
  const errors = oauthErrorHandler(deps.logger);
  app.use(errors);

  // The exchange call goes to its handler without express (security headers, request id and metrics through the
  // prelude); health, readiness, metrics and every other path are the express app.
  const actors =
    deps.actors ?? actorDirectory(deps.models, { fetchJwks: deps.fetchJwks ?? safeJwksFetcher(), ttlMs: 5000 });
  const tenantEnabled = deps.tenantEnabled ?? tenantEnabledLookup(deps.models, 5000);
  const exchange = tokenExchangeHandler(
    { ...deps, actors, onDecision, dpopNonces: dpopNonces(deps.sidecarSecret), tenantEnabled },
    deps.sidecarSecret,
    logger,
    (err, req, res) => errors(err, req as Request, res as Response, () => undefined),
  );
  // An agent client's token (a client that embodies an NHE): the same decision, counters and decision log, gty the
  // flow's.
  const onAgentDecision: AgentTokenDeps['onDecision'] = (decision, input, nheIdentifier) => {
    const fields = {
      tenantId: input.tenantId,
      client_id: bounded(input.clientId),
      nhe: nheIdentifier,
      resource: bounded(input.resource),
      gty: input.grantType,
      sourceIp: input.sourceIp,
    };
    if (decision.outcome === 'granted') {
      decisions.inc({ outcome: 'granted', error: '', gate: '' });
      for (const r of decision.removed) narrowed.inc({ layer: r.layer });
      logger.info(
        {
          ...fields,
          decision: {
            outcome: decision.outcome,
            scopes: decision.scopes,
            removed: decision.removed,
            ttl: decision.ttl,
            ttlSetBy: decision.ttlSetBy,
            ttlTerms: decision.ttlTerms,
            policyIds: decision.policyIds,
          },
        },
        'agent client delegation granted',
      );
      return;
    }
    refused({
      tenantId: input.tenantId,
      outcome: decision.outcome,
      error: decision.error,
      gate: decision.outcome === 'denied' ? decision.gate : decision.stage,
      flow: 'agent-token',
      clientId: input.clientId,
      ...(nheIdentifier ? { nheIdentifier } : {}),
    });
    if (decision.outcome === 'denied') {
      decisions.inc({ outcome: 'denied', error: decision.error, gate: decision.gate });
      logger.info({ ...fields, decision }, 'agent client delegation denied');
    } else {
      decisions.inc({ outcome: 'rejected', error: decision.error, gate: decision.stage });
      (decision.stage === 'audit' ? logger.warn.bind(logger) : logger.info.bind(logger))(
        { ...fields, decision },
        'agent client token rejected',
      );
    }
  };
  const agentToken = agentTokenHandler(
    { ...deps, actors, onDecision: onAgentDecision, tenantEnabled },
    deps.sidecarSecret,
    logger,
    (err, req, res) => errors(err, req as Request, res as Response, () => undefined),
  );
  // The audit record of an ID-JAG oidc-core issued for an agent: the same JetStream path as a delegation token's.
  const idJagIssued = idJagIssuedHandler(deps, deps.sidecarSecret, logger, (err, req, res) =>
    errors(err, req as Request, res as Response, () => undefined),
  );
  // A backchannel authentication request's check, its token after the person approved, their denial (CIBA).
  const cibaTokenCall = cibaTokenHandler(
    { ...deps, onDecision: cibaDecisionLog({ logger, decisions, refused }) },
    deps.sidecarSecret,
    logger,
    (err, req, res) => errors(err, req as Request, res as Response, () => undefined),
  );
  const listener: RequestListener = (req, res) => {
    if (isExchangeRequest(req)) prelude(req, res, EXCHANGE_PATH, () => exchange(req, res));
    else if (isAgentTokenRequest(req)) prelude(req, res, AGENT_TOKEN_PATH, () => agentToken(req, res));
    else if (isCibaTokenRequest(req)) prelude(req, res, CIBA_TOKEN_PATH, () => cibaTokenCall(req, res));
    else if (isIdJagIssuedRequest(req)) prelude(req, res, ID_JAG_ISSUED_PATH, () => idJagIssued(req, res));
    else app(req, res);
  };
  return { app, registry, listener };
}
