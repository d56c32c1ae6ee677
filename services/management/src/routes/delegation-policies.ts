/**
 * Delegation policies of an NHE (spec, "Management API: delegation policies") and the delegation dry run
 * (`delegation-simulations`: the decision record of libs/delegation, nothing minted, nothing audited).
 */
import { z } from 'zod';
import type { DelegationPolicyDoc, Models } from '@idp/db';
import { agentClientFacts, agentLinkOf, decideDelegation, loadDelegationFacts } from '@idp/delegation';
import { MAX_SIGN_IN_AGE_MINUTES, PHISHING_RESISTANT_ACR_VALUES } from '@idp/delegation';
import { MAX_CHAIN_DEPTH } from '@idp/db';
import { NHE_MAX_TTL_SECONDS } from '@idp/tokens';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, objectId, objectIdParam, page, pageQuery, scopeList, tenantParams } from '../openapi/schemas';
import { idOr404, loadTenant, nheSettingsOf, pageOf, type RouteDeps } from './deps';

const TARGET_TYPES = ['user', 'group', 'nhe'] as const;
type Target = { type: (typeof TARGET_TYPES)[number]; id: string };
const target = z
  .object({ type: z.enum(TARGET_TYPES), id: objectId })
  .strict()
  .describe(
    'Who may delegate to this NHE: a user, a group, or another NHE of the tenant (its id), which may then hand a delegated token on to this one',
  );

const maxChainDepth = z
  .number()
  .int()
  .min(1)
  .max(MAX_CHAIN_DEPTH)
  .describe(
    "Deepest delegation chain (actors in act) a token issued through this policy may lead to; the tenant's settings.nhe.maxChainDepth is the ceiling. " +
      'Absent: 1 for a user or group target (the NHE may not hand on), 2 for an NHE target (the hand-off itself, no further). An NHE target needs at least 2',
  );

/** Phishing-resistant delegation (libs/delegation sign-in.ts). */
const phishingResistantSignInMaxAgeMinutes = z
  .number()
  .int()
  .min(0)
  .max(MAX_SIGN_IN_AGE_MINUTES)
  .describe(
    `Token exchange through this policy needs a subject_token from a phishing-resistant sign-in (acr ${PHISHING_RESISTANT_ACR_VALUES.join(' or ')}, a passkey) ` +
      'whose auth_time is at most this many minutes old; otherwise access_denied. 0: not required by this policy, even when the tenant requires it. ' +
      "Absent: the tenant's settings.nhe.phishingResistantSignInMaxAgeMinutes (default 0, none). User and group targets only",
  );

/** Scopes kept for the person's approval (OpenID CIBA, oidc-core provider/ciba). */
const approvalRequiredScopes = scopeList.describe(
  "Scopes of allowedScopes granted only with the person's approval on their own device (a backchannel authentication " +
    'request, OpenID CIBA, where the tenant turned settings.backchannelAuthentication on): token exchange and agent ' +
    "clients' tokens leave them out (removed layer needs-approval). Absent or empty: none",
);

/** approvalRequiredScopes must be among allowedScopes (they narrow it, never widen it). */
function checkApprovalScopes(allowed: string[], approval: string[] | null | undefined): void {
  const beyond = (approval ?? []).filter((s) => !allowed.includes(s));
  if (beyond.length)
    throw problems.validation('approvalRequiredScopes must be among allowedScopes', [
      { name: 'body.approvalRequiredScopes', reason: `not in allowedScopes: ${beyond.join(' ')}` },
    ]);
}

const createBody = z
  .object({
    target,
    allowedScopes: scopeList,
    maxTokenLifetime: z.number().int().min(1).optional().describe('Seconds; at most settings.nhe.hardMaxTokenLifetime'),
    maxChainDepth: maxChainDepth.optional(),
    phishingResistantSignInMaxAgeMinutes: phishingResistantSignInMaxAgeMinutes.optional(),
    approvalRequiredScopes: approvalRequiredScopes.optional(),
  })
  .strict();

const patchBody = z
  .object({
    target: target.optional(),
    allowedScopes: scopeList.optional(),
    maxTokenLifetime: z.number().int().min(1).nullable().optional().describe('null removes the policy lifetime'),
    maxChainDepth: maxChainDepth.nullable().optional().describe('null removes it (the default by target type applies)'),
    phishingResistantSignInMaxAgeMinutes: phishingResistantSignInMaxAgeMinutes
      .nullable()
      .optional()
      .describe("null removes it (the tenant's default applies)"),
    approvalRequiredScopes: approvalRequiredScopes.optional(),
  })
  .strict();

export const policySchema = z
  .object({
    id: z.string(),
    nheId: z.string(),
    target: z.object({ type: z.enum(TARGET_TYPES), id: z.string() }),
    allowedScopes: z.array(z.string()),
    maxTokenLifetime: z.number().int().optional(),
    maxChainDepth: z.number().int().optional(),
    phishingResistantSignInMaxAgeMinutes: z
      .number()
      .int()
      .optional()
      .describe("Minutes; 0: not required by this policy; absent: the tenant's default"),
    approvalRequiredScopes: z.array(z.string()).optional().describe("Granted only with the person's approval (CIBA)"),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'DelegationPolicy' });

type PolicyRow = DelegationPolicyDoc & { _id: unknown; createdAt?: Date; updatedAt?: Date };

function policyView(doc: PolicyRow) {
  return {
    id: String(doc._id),
    nheId: doc.nheId,
    target: { type: doc.target.type, id: doc.target.id },
    allowedScopes: doc.allowedScopes,
    ...(typeof doc.maxTokenLifetime === 'number' ? { maxTokenLifetime: doc.maxTokenLifetime } : {}),
    ...(typeof doc.maxChainDepth === 'number' ? { maxChainDepth: doc.maxChainDepth } : {}),
    ...(typeof doc.phishingResistantSignInMaxAgeMinutes === 'number'
      ? { phishingResistantSignInMaxAgeMinutes: doc.phishingResistantSignInMaxAgeMinutes }
      : {}),
    ...(doc.approvalRequiredScopes?.length ? { approvalRequiredScopes: doc.approvalRequiredScopes } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

const simulationBody = z
  .object({
    userId: objectId.describe("The delegating user (the subject token's sub)"),
    clientId: z
      .string()
      .min(1)
      .max(2048)
      .describe(
        'client_id of the client that would exchange, or of an agent client of this NHE (a metadata document URL included)',
      ),
    resource: z.string().min(1).max(2048).describe('Resource server identifier'),
    scope: z.string().min(1).max(4096).describe('Space-separated requested scopes'),
    consentedScope: z
      .string()
      .max(4096)
      .optional()
      .describe(
        "Space-separated scopes the user consented to the client for this resource (the subject token's scope). " +
          "Caps a third-party client's delegation (layer consent); omitted, a third-party client has none. " +
          'Ignored for first-party clients.',
      ),
    parent: z
      .object({
        actors: z
          .array(z.string().min(1).max(256))
          .min(1)
          .max(MAX_CHAIN_DEPTH - 1)
          .describe("The NHE identifiers of the subject token's act chain, outermost (the NHE that hands on) first"),
        scope: z.string().min(1).max(4096).describe("The subject token's scopes (space-separated)"),
      })
      .strict()
      .optional()
      .describe(
        "Simulates handing a delegation token on to this NHE (a delegation chain) instead of a user's token. " +
          'The parent is assumed fresh, for the requested resource, each actor named; the decision explains each hop (decision.chain.hops).',
      ),
    signIn: z
      .object({
        acr: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe(`The subject token's acr (${PHISHING_RESISTANT_ACR_VALUES.join(', ')}: phishing-resistant)`),
        ageMinutes: z
          .number()
          .min(0)
          .max(100_000)
          .optional()
          .describe("Minutes since the user signed in (now minus the subject token's auth_time)"),
      })
      .strict()
      .optional()
      .describe(
        "The user's sign-in as the subject token would state it, for a policy or tenant that requires a recent phishing-resistant sign-in. " +
          'Omitted (or a member omitted): the token states nothing, which never meets the requirement. The decision explains it (decision.signIn)',
      ),
  })
  .strict();

const chainRecordSchema = z
  .object({
    depth: z.number().int().describe("Actors in the new token's act chain"),
    maxDepth: z
      .number()
      .int()
      .describe("The smallest of the tenant's ceiling and the maxChainDepth of every hop checked"),
    hops: z.array(
      z.object({
        depth: z.number().int(),
        from: z.string().describe('user:<id> for the first hop, nhe:<identifier> after'),
        to: z.string(),
        policyIds: z.array(z.string()),
        maxChainDepth: z.number().int(),
      }),
    ),
  })
  .optional()
  .describe('A delegation chain: each hop from the user, with the policies that allow it');

const signInCheckSchema = z
  .object({
    maxAgeMinutes: z.number().int().describe('The sign-in must be at most this many minutes old'),
    setBy: z.enum(['policy', 'tenant']).describe("A matching policy's own value, or the tenant's default"),
    acr: z.string().optional().describe("The subject token's acr"),
    ageSeconds: z.number().int().optional().describe("Seconds since the sign-in (the subject token's auth_time)"),
    met: z.boolean(),
  })
  .optional()
  .describe(
    'Phishing-resistant delegation: the sign-in requirement in force and whether the sign-in met it (only when one applies)',
  );

const decisionSchema = z
  .discriminatedUnion('outcome', [
    z.object({
      outcome: z.literal('granted'),
      scopes: z.array(z.string()),
      removed: z.array(z.object({ scope: z.string(), layer: z.string() })),
      ttl: z.number().int(),
      ttlSetBy: z.string(),
      ttlTerms: z.record(z.string(), z.number()),
      policyIds: z.array(z.string()),
      actorAuth: z
        .enum(['named', 'key', 'workload'])
        .describe('How the actor was authenticated (a dry run assumes named)'),
      chain: chainRecordSchema,
      signIn: signInCheckSchema,
    }),
    z.object({
      outcome: z.literal('denied'),
      error: z.enum(['access_denied', 'invalid_grant', 'invalid_scope', 'invalid_target']),
      gate: z.string(),
      description: z.string(),
      scopes: z.array(z.string()).optional(),
      chain: chainRecordSchema,
      signIn: signInCheckSchema,
    }),
  ])
  .meta({ id: 'DelegationDecision' });

const simulationSchema = z
  .object({
    nheId: z.string(),
    nheIdentifier: z.string(),
    request: simulationBody,
    flow: z
      .enum(['token-exchange', 'agent-client'])
      .describe(
        'agent-client: the client embodies this NHE (its agentClients), so the decision is that of its authorization-code or device-flow token',
      ),
    decision: decisionSchema,
    evaluatedAt: isoDate,
  })
  .meta({ id: 'DelegationSimulation' });

const NHE = '/tenants/:tenantId/non-human-entities/:nheId';
const nheParams = tenantParams.extend({ nheId: objectIdParam }).strict();
const policyParams = nheParams.extend({ policyId: objectIdParam }).strict();
const TAG = 'Delegation policies';

async function findNhe(models: Models, tenantId: number, nheId: string) {
  const nhe = await models.Nhe.findOne({ tenantId, _id: idOr404(nheId, 'NHE') }, { identifier: 1 }).lean();
  if (!nhe) throw problems.notFound('NHE not found');
  return nhe;
}

async function checkTarget(models: Models, tenantId: number, t: Target, nheId: string) {
  const _id = idOr404(t.id, t.type);
  if (t.type === 'nhe' && t.id === nheId)
    throw problems.validation('an NHE cannot hand on to itself', [
      { name: 'body.target.id', reason: 'must name another NHE' },
    ]);
  const exists =
    t.type === 'user'
      ? await models.User.exists({ tenantId, _id })
      : t.type === 'group'
        ? await models.Group.exists({ tenantId, _id })
        : await models.Nhe.exists({ tenantId, _id });
  if (!exists)
    throw problems.validation('the policy target does not exist', [
      { name: 'body.target.id', reason: `no ${t.type === 'nhe' ? 'NHE' : t.type} with this id in the tenant` },
    ]);
}

/**
 * The sign-in requirement is about the user's own sign-in (the subject token of a user's exchange): a hand-on policy
 * (NHE target) has no user sign-in to check, its parent was checked when minted.
 */
function checkSignInRequirement(type: Target['type'], minutes: number | null | undefined) {
  if (type === 'nhe' && typeof minutes === 'number' && minutes > 0) {
    throw problems.validation(
      "phishingResistantSignInMaxAgeMinutes is about the user's own sign-in: it applies to user and group targets only",
      [{ name: 'body.phishingResistantSignInMaxAgeMinutes', reason: 'must be absent or 0 for an NHE target' }],
    );
  }
}

/** An NHE -> NHE policy is a hand-off: it allows at least depth 2 (the user's NHE, then this one). */
function checkChainDepth(type: Target['type'], depth: number | null | undefined) {
  if (type === 'nhe' && typeof depth === 'number' && depth < 2) {
    throw problems.validation('an NHE target hands a delegated token on: maxChainDepth must be at least 2', [
      { name: 'body.maxChainDepth', reason: 'must be at least 2 for an NHE target' },
    ]);
  }
}

function checkLifetime(hardMax: number, value: number | null | undefined) {
  if (typeof value === 'number' && value > hardMax) {
    throw problems.validation('maxTokenLifetime exceeds the tenant hard maximum', [
      { name: 'body.maxTokenLifetime', reason: `must be at most settings.nhe.hardMaxTokenLifetime (${hardMax})` },
    ]);
  }
}

export function delegationPolicyRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const findPolicy = async (tenantId: number, nheId: string, policyId: string) => {
    const doc = await models.DelegationPolicy.findOne({
      tenantId,
      nheId,
      _id: idOr404(policyId, 'delegation policy'),
    }).lean<PolicyRow>();
    if (!doc) throw problems.notFound('delegation policy not found');
    return doc;
  };
  const duplicateTarget = async (tenantId: number, nheId: string, t: Target, except?: unknown) => {
    const clash = await models.DelegationPolicy.exists({
      tenantId,
      nheId,
      'target.type': t.type,
      'target.id': t.id,
      ...(except ? { _id: { $ne: except } } : {}),
    });
    if (clash) throw problems.conflict(`this NHE already has a policy for this ${t.type}`);
  };

  return [
    defineRoute({
      method: 'post',
      path: `${NHE}/delegation-policies`,
      operationId: 'createDelegationPolicy',
      summary: 'Create a delegation policy',
      description:
        'One policy per target (user, group, or another NHE that may hand on to this one) and NHE; the target must exist in the tenant. ' +
        "maxChainDepth lets a delegated token go further down a chain: on the user's policy for the first NHE, and on each NHE -> NHE policy.",
      tag: TAG,
      scope: 'auth.nhe.policies.create',
      params: nheParams,
      body: createBody,
      responses: {
        201: { description: 'The policy', schema: policySchema, headers: { Location: 'URL of the policy' } },
      },
      errors: [409],
      handler: async ({ tenantId, params, body, req, audit, invalidate }) => {
        await findNhe(models, tenantId, params.nheId);
        checkLifetime(nheSettingsOf(await loadTenant(models, tenantId)).hardMaxTokenLifetime, body.maxTokenLifetime);
        await checkTarget(models, tenantId, body.target, params.nheId);
        checkChainDepth(body.target.type, body.maxChainDepth);
        checkSignInRequirement(body.target.type, body.phishingResistantSignInMaxAgeMinutes);
        checkApprovalScopes(body.allowedScopes, body.approvalRequiredScopes);
        await duplicateTarget(tenantId, params.nheId, body.target);
        const created = await models.DelegationPolicy.create({ ...body, tenantId, nheId: params.nheId });
        const id = String(created._id);
        audit({ nheId: params.nheId, policyId: id, target: body.target });
        invalidate('policy', id);
        return {
          status: 201,
          body: policyView(created.toObject() as PolicyRow),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${NHE}/delegation-policies`,
      operationId: 'listDelegationPolicies',
      summary: 'List the delegation policies of an NHE (oldest first)',
      tag: TAG,
      scope: 'auth.nhe.policies.list',
      params: nheParams,
      query: pageQuery.extend({ targetType: z.enum(TARGET_TYPES).optional(), targetId: objectId.optional() }).strict(),
      responses: { 200: { description: 'A page of policies', schema: page(policySchema, 'DelegationPolicyPage') } },
      handler: async ({ tenantId, params, query }) => {
        await findNhe(models, tenantId, params.nheId);
        const filter: Record<string, unknown> = { tenantId, nheId: params.nheId };
        if (query.targetType) filter['target.type'] = query.targetType;
        if (query.targetId) filter['target.id'] = query.targetId;
        return { status: 200, body: await pageOf(models.DelegationPolicy, filter, query, policyView) };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${NHE}/delegation-policies/:policyId`,
      operationId: 'getDelegationPolicy',
      summary: 'Get a delegation policy',
      tag: TAG,
      scope: 'auth.nhe.policies.list',
      params: policyParams,
      responses: { 200: { description: 'The policy', schema: policySchema } },
      handler: async ({ tenantId, params }) => ({
        status: 200,
        body: policyView(await findPolicy(tenantId, params.nheId, params.policyId)),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: `${NHE}/delegation-policies/:policyId`,
      operationId: 'updateDelegationPolicy',
      summary: 'Update a delegation policy',
      description:
        'Tokens already issued to the NHE for the previous target are revoked (they may exceed the new policy).',
      tag: TAG,
      scope: 'auth.nhe.policies.update',
      params: policyParams,
      body: patchBody,
      responses: { 200: { description: 'The updated policy', schema: policySchema } },
      errors: [409, 503],
      handler: async ({ tenantId, params, body, audit, invalidate }) => {
        const nhe = await findNhe(models, tenantId, params.nheId);
        const existing = await findPolicy(tenantId, params.nheId, params.policyId);
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        checkLifetime(settings.hardMaxTokenLifetime, body.maxTokenLifetime);
        if (body.target) {
          await checkTarget(models, tenantId, body.target, params.nheId);
          await duplicateTarget(tenantId, params.nheId, body.target, existing._id);
        }
        checkChainDepth(
          (body.target ?? existing.target).type,
          body.maxChainDepth === undefined ? existing.maxChainDepth : body.maxChainDepth,
        );
        checkSignInRequirement(
          (body.target ?? existing.target).type,
          body.phishingResistantSignInMaxAgeMinutes === undefined
            ? existing.phishingResistantSignInMaxAgeMinutes
            : body.phishingResistantSignInMaxAgeMinutes,
        );
        checkApprovalScopes(
          body.allowedScopes ?? existing.allowedScopes,
          body.approvalRequiredScopes ?? existing.approvalRequiredScopes,
        );
        const {
          maxTokenLifetime,
          maxChainDepth: depth,
          phishingResistantSignInMaxAgeMinutes: signInAge,
          ...rest
        } = body;
        const update: Record<string, unknown> = {
          $set: {
            ...rest,
            ...(typeof maxTokenLifetime === 'number' ? { maxTokenLifetime } : {}),
            ...(typeof depth === 'number' ? { maxChainDepth: depth } : {}),
            ...(typeof signInAge === 'number' ? { phishingResistantSignInMaxAgeMinutes: signInAge } : {}),
          },
        };
        const unset = {
          ...(maxTokenLifetime === null ? { maxTokenLifetime: 1 } : {}),
          ...(depth === null ? { maxChainDepth: 1 } : {}),
          ...(signInAge === null ? { phishingResistantSignInMaxAgeMinutes: 1 } : {}),
        };
        if (Object.keys(unset).length) update.$unset = unset;
        const doc = await models.DelegationPolicy.findOneAndUpdate({ tenantId, _id: existing._id }, update, {
          returnDocument: 'after',
        }).lean<PolicyRow>();
        if (!doc) throw problems.notFound('delegation policy not found');
        audit({ nheId: params.nheId, policyId: params.policyId, fields: Object.keys(body) });
        invalidate('policy', params.policyId);
        await deps.revoke?.({
          tenantId,
          nheIdentifier: nhe.identifier,
          ...(existing.target.type === 'user' ? { subject: existing.target.id } : {}),
          reason: 'policy.updated',
          maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
        });
        return { status: 200, body: policyView(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${NHE}/delegation-policies/:policyId`,
      operationId: 'deleteDelegationPolicy',
      summary: 'Delete a delegation policy',
      description: "Tokens already issued to the NHE under this policy's target are revoked.",
      tag: TAG,
      scope: 'auth.nhe.policies.delete',
      params: policyParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [503],
      handler: async ({ tenantId, params, audit, invalidate }) => {
        const nhe = await findNhe(models, tenantId, params.nheId);
        const existing = await findPolicy(tenantId, params.nheId, params.policyId);
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        // Revoke first: if that cannot be confirmed (503) nothing is deleted yet, so a retry of the DELETE does both.
        await deps.revoke?.({
          tenantId,
          nheIdentifier: nhe.identifier,
          ...(existing.target.type === 'user' ? { subject: existing.target.id } : {}),
          reason: 'policy.deleted',
          maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
        });
        await models.DelegationPolicy.deleteOne({ tenantId, _id: existing._id });
        audit({ nheId: params.nheId, policyId: params.policyId });
        invalidate('policy', params.policyId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${NHE}/delegation-simulations`,
      operationId: 'simulateDelegation',
      summary: "Dry run of a token exchange (or an agent client's token) for this NHE",
      description:
        'Returns the decision record of the delegation domain function (granted scopes, the TTL and the term that set ' +
        'it, or the refusal and the gate that refused) for the given user, client, resource and scope. Mints nothing, ' +
        'writes no audit row.',
      tag: TAG,
      scope: 'auth.nhe.policies.list',
      params: nheParams,
      body: simulationBody,
      responses: { 200: { description: 'The decision', schema: simulationSchema } },
      handler: async ({ tenantId, params, body }) => {
        const nhe = await findNhe(models, tenantId, params.nheId);
        // An agent client of this NHE (its registration's agentClients): the decision of its own tokens, as the sidecar makes it.
        const link = await agentLinkOf(models, tenantId, body.clientId);
        const asAgent = link.kind === 'agent' && link.nhe.identifier === nhe.identifier;
        const loaded = await loadDelegationFacts(models, {
          agentClient: asAgent,
          tenantId,
          clientId: body.clientId,
          userId: body.userId,
          nheIdentifier: nhe.identifier,
          resource: body.resource,
          requestedScopes: body.scope.split(' ').filter(Boolean),
          ...(body.consentedScope !== undefined
            ? { consentedScopes: body.consentedScope.split(' ').filter(Boolean) }
            : {}),
          // The user's sign-in as the subject token would state it (phishing-resistant delegation).
          ...(body.signIn
            ? {
                signIn: {
                  ...(body.signIn.acr !== undefined ? { acr: body.signIn.acr } : {}),
                  ...(body.signIn.ageMinutes !== undefined ? { ageSeconds: body.signIn.ageMinutes * 60 } : {}),
                },
              }
            : {}),
          // A hand-on (delegation chain): a fresh parent for this resource, each actor named.
          ...(body.parent && !asAgent
            ? {
                parent: {
                  actors: body.parent.actors.map((identifier) => ({ identifier, method: 'named' as const })),
                  scopes: body.parent.scope.split(' ').filter(Boolean),
                  audience: [body.resource],
                  exp: Math.floor(Date.now() / 1000) + NHE_MAX_TTL_SECONDS,
                },
              }
            : {}),
        });
        if (!loaded)
          throw problems.validation('the client does not exist', [
            { name: 'body.clientId', reason: 'no client with this client_id in the tenant' },
          ]);
        const facts = asAgent ? agentClientFacts(loaded, nhe.identifier, loaded.client.numericId) : loaded;
        return {
          status: 200,
          body: {
            nheId: params.nheId,
            nheIdentifier: nhe.identifier,
            request: body,
            flow: asAgent ? ('agent-client' as const) : ('token-exchange' as const),
            decision: decideDelegation(facts),
            evaluatedAt: new Date(),
          },
        };
      },
    }),
  ];
}
