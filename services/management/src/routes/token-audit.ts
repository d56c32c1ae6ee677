/**
 * Token audit, read only (spec, "Token audit record"). No code path of this service updates or deletes audit rows:
 * these are GET routes only, and every other method on their paths is 405 with `Allow: GET, HEAD` (route.ts).
 */
import { z } from 'zod';
import { MAX_CHAIN_DEPTH, type TokenAuditDoc } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { countSchema, isoDate, objectIdParam, page, pageQuery, tenantParams } from '../openapi/schemas';
import { idOr404, pageOf, type RouteDeps } from './deps';
import { tokenAuditHistogramRoutes } from './token-audit-histogram';
import { tokenRefusalHistogramRoutes } from './token-refusal-histogram';

export const auditSchema = z
  .object({
    id: z.string(),
    jti: z.string(),
    userId: z.string(),
    nheId: z.string(),
    nheIdentifier: z.string(),
    clientId: z.string(),
    clientNumericId: z.number().int(),
    resourceServer: z.string(),
    scopes: z.array(z.string()),
    ttl: z.number().int(),
    sourceIp: z.string(),
    issuedAt: isoDate,
    dpopJkt: z.string().optional(),
    actorAuthentication: z
      .object({
        method: z
          .enum(['named', 'key', 'workload'])
          .describe(
            "named: the spec's nhe-id actor token (no proof); key: a JWT signed by one of the NHE's keys; workload: a JWT of a trusted workload issuer",
          ),
        jkt: z.string().optional().describe('key: thumbprint (RFC 7638) of the NHE key that verified the actor token'),
        issuer: z.string().optional().describe('workload: the trusted issuer'),
        subject: z.string().optional().describe("workload: the workload's subject"),
        jti: z.string().optional().describe("key, workload: the actor token's jti"),
      })
      .describe('How the actor was authenticated (rows written before actor proofs existed: named)'),
    parentJti: z
      .string()
      .optional()
      .describe('The token was exchanged from this delegation token (a delegation chain)'),
    actorChain: z
      .array(z.object({ nheIdentifier: z.string(), method: z.enum(['named', 'key', 'workload']) }))
      .optional()
      .describe(
        "With parentJti: every actor of the token's act chain, outermost (this token's NHE) first, and how each proved who it is",
      ),
    crossDomain: z
      .object({
        direction: z.enum(['issued', 'redeemed']),
        peer: z.string(),
        assertionJti: z.string().optional(),
        subject: z.string().optional(),
        actor: z.string().optional(),
        actors: z
          .array(z.string())
          .optional()
          .describe("redeemed: every actor of the assertion's act chain at its issuer, outermost (actor) first"),
      })
      .optional()
      .describe(
        "The token crossed an organisation boundary: issued, an identity assertion (ID-JAG) this tenant issued for the authorization server peer; redeemed, minted from an assertion of the trusted issuer peer, with that assertion's jti, sub and act.sub",
      ),
  })
  .meta({ id: 'TokenAuditRecord' });

const chainSchema = z
  .object({
    rootJti: z.string().describe("The first delegation token of the chain (exchanged from the user's token)"),
    tokens: z
      .array(auditSchema)
      .describe(
        'Every issuance of the chain that is still recorded, root first, then by depth and time (at most 1000)',
      ),
    truncated: z.boolean().describe('More issuances exist than were returned'),
    missingParents: z
      .array(z.string())
      .describe('jti values a row names as its parent without a row (pruned by retention, or not yet written)'),
  })
  .meta({ id: 'TokenAuditDelegationChain' });

function auditView(doc: TokenAuditDoc & { _id: unknown }) {
  return {
    id: String(doc._id),
    jti: doc.jti,
    userId: doc.userId,
    nheId: doc.nheId,
    nheIdentifier: doc.nheIdentifier,
    clientId: doc.clientId,
    clientNumericId: doc.clientNumericId,
    resourceServer: doc.resourceServer,
    scopes: doc.scopes,
    ttl: doc.ttl,
    sourceIp: doc.sourceIp,
    issuedAt: doc.issuedAt,
    ...(doc.dpopJkt ? { dpopJkt: doc.dpopJkt } : {}),
    actorAuthentication: doc.actorAuth ? { ...doc.actorAuth } : { method: 'named' as const },
    ...(doc.parentJti
      ? {
          parentJti: doc.parentJti,
          actorChain: (doc.actorChain ?? []).map((a) => ({ nheIdentifier: a.nheIdentifier, method: a.method })),
        }
      : {}),
    ...(doc.crossDomain ? { crossDomain: { ...doc.crossDomain } } : {}),
  };
}

const filters = {
  userId: z.string().min(1).max(128).optional(),
  nheId: z.string().min(1).max(64).optional().describe('Registration id of the NHE'),
  nheIdentifier: z.string().min(1).max(128).optional(),
  clientId: z.string().min(1).max(128).optional(),
  resourceServer: z.string().min(1).max(2048).optional(),
  jti: z.string().min(1).max(128).optional().describe("The token's jti (find the record of a token)"),
  parentJti: z.string().min(1).max(128).optional().describe('Tokens exchanged from this token (delegation chains)'),
  from: isoDate.optional().describe('issuedAt at or after (RFC 3339)'),
  to: isoDate.optional().describe('issuedAt before (RFC 3339)'),
};
const listQuery = pageQuery.extend(filters).strict();
const countQuery = z.object(filters).strict();

type Filters = { [K in keyof typeof filters]?: string | undefined };

function filterOf(tenantId: number, q: Filters) {
  const f: Record<string, unknown> = { tenantId };
  for (const k of ['userId', 'nheId', 'nheIdentifier', 'clientId', 'resourceServer', 'jti', 'parentJti'] as const)
    if (q[k] !== undefined) f[k] = q[k];
  if (q.from || q.to) {
    if (q.from && q.to && Date.parse(q.from) > Date.parse(q.to)) {
      throw problems.validation('the time range is empty', [
        { name: 'query.from', reason: 'must not be after query.to' },
      ]);
    }
    f.issuedAt = { ...(q.from ? { $gte: new Date(q.from) } : {}), ...(q.to ? { $lt: new Date(q.to) } : {}) };
  }
  return f;
}

const BASE = '/tenants/:tenantId/non-human-entities/token-audit';
const TAG = 'Token audit';

export function tokenAuditRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listTokenAudit',
      summary: 'List NHE token issuances, newest first',
      tag: TAG,
      scope: 'auth.nhe.audit.list',
      params: tenantParams,
      query: listQuery,
      responses: { 200: { description: 'A page of audit records', schema: page(auditSchema, 'TokenAuditPage') } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.TokenAudit, filterOf(tenantId, query), query, auditView, true),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countTokenAudit',
      summary: 'Count NHE token issuances',
      tag: TAG,
      scope: 'auth.nhe.audit.list',
      params: tenantParams,
      query: countQuery,
      responses: { 200: { description: 'The number of matching records', schema: countSchema } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: { count: await models.TokenAudit.countDocuments(filterOf(tenantId, query)) },
      }),
    }),
    // Before `/:auditId`: the fixed sub-path is matched first.
    ...tokenAuditHistogramRoutes(deps, BASE, TAG),
    ...tokenRefusalHistogramRoutes(deps, BASE, TAG),
    defineRoute({
      method: 'get',
      path: `${BASE}/:auditId`,
      operationId: 'getTokenAudit',
      summary: 'Get one audit record',
      tag: TAG,
      scope: 'auth.nhe.audit.list',
      params: tenantParams.extend({ auditId: objectIdParam }).strict(),
      responses: { 200: { description: 'The audit record', schema: auditSchema } },
      handler: async ({ tenantId, params }) => {
        const doc = await models.TokenAudit.findOne({ tenantId, _id: idOr404(params.auditId, 'audit record') }).lean<
          TokenAuditDoc & { _id: unknown }
        >();
        if (!doc) throw problems.notFound('audit record not found');
        return { status: 200, body: auditView(doc) };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:auditId/delegation-chain`,
      operationId: 'getTokenAuditDelegationChain',
      summary: 'The whole delegation chain of a token',
      description:
        'From any issuance of a delegation chain (user -> NHE A -> NHE B ...): walks up the parentJti links to the first delegation token, then ' +
        "down to every token exchanged from it, at any depth. A token that was never handed on is a chain of one. Find a token's record with `?jti=` on the list.",
      tag: TAG,
      scope: 'auth.nhe.audit.list',
      params: tenantParams.extend({ auditId: objectIdParam }).strict(),
      responses: { 200: { description: 'The chain', schema: chainSchema } },
      handler: async ({ tenantId, params }) => {
        const start = await models.TokenAudit.findOne({
          tenantId,
          _id: idOr404(params.auditId, 'audit record'),
        }).lean<AuditRow>();
        if (!start) throw problems.notFound('audit record not found');
        return { status: 200, body: await delegationChain(models, tenantId, start) };
      },
    }),
  ];
}

type AuditRow = TokenAuditDoc & { _id: unknown };
const CHAIN_LIMIT = 1000;

/** Up the parentJti links to the root (at most the hard maximum depth), then breadth-first down every hand-on. */
async function delegationChain(models: RouteDeps['models'], tenantId: number, start: AuditRow) {
  const missingParents: string[] = [];
  let root = start;
  for (let i = 0; i < MAX_CHAIN_DEPTH && root.parentJti; i += 1) {
    const parent = await models.TokenAudit.findOne({ tenantId, jti: root.parentJti }).lean<AuditRow>();
    if (!parent) {
      missingParents.push(root.parentJti);
      break;
    }
    root = parent;
  }
  const tokens: AuditRow[] = [root];
  let level = [root.jti];
  let truncated = false;
  for (let depth = 1; depth < MAX_CHAIN_DEPTH && level.length && !truncated; depth += 1) {
    const below = await models.TokenAudit.find({ tenantId, parentJti: { $in: level } })
      .sort({ issuedAt: 1, _id: 1 })
      .limit(CHAIN_LIMIT - tokens.length + 1)
      .lean<AuditRow[]>();
    if (tokens.length + below.length > CHAIN_LIMIT) {
      truncated = true;
      below.length = CHAIN_LIMIT - tokens.length;
    }
    tokens.push(...below);
    level = below.map((r) => r.jti);
  }
  return { rootJti: root.jti, tokens: tokens.map(auditView), truncated, missingParents };
}

/** Deeper paths below the audit collection: 405 as well (no route can change audit rows). */
export const tokenAuditClosedPaths = [{ path: `${BASE}/:auditId/*rest`, allow: [] as string[] }];
