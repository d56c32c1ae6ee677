/** NHE registrations (spec, "Management API: NHE registration"). */
import { z } from 'zod';
import type { Models, NheDoc } from '@idp/db';
import { agentClientEntryProblem, agentClientMatches, MAX_AGENT_CLIENTS } from '@idp/delegation';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import {
  countSchema,
  isoDate,
  objectIdParam,
  page,
  pageQuery,
  queryBool,
  scopeList,
  tenantParams,
} from '../openapi/schemas';
import { idOr404, loadTenant, nheSettingsOf, pageOf, prefixRegex, type RouteDeps } from './deps';
import {
  actorFieldsView,
  actorProofBody,
  actorProofPatch,
  actorProofViewSchema,
  checkActorProofFields,
  type ActorProofFields,
} from './nhe-actor-proof';

/** An identifier is used verbatim in `act.sub = "nhe:" + identifier` and as agent.id: a conservative charset. */
export const nheIdentifier = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
    'letters, digits, dot, underscore and hyphen; 1 to 128 characters, starting with a letter or digit',
  );

/** Agent clients: the OAuth clients that embody the NHE (libs/delegation agent-clients.ts). */
const agentClients = z
  .array(
    z.string().superRefine((v, ctx) => {
      const problem = agentClientEntryProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
  .max(MAX_AGENT_CLIENTS)
  .refine((v) => new Set(v).size === v.length, 'entries must be unique')
  .describe(
    'OAuth clients that embody this NHE (agent clients): a client id of the tenant, or a Client ID Metadata Document URL (https; http only on loopback) that may end with * to match every client id starting with it (the host named in full). Their authorization-code and device-flow access tokens are NHE delegation tokens; a client may embody one NHE only.',
  );

const modelInfo = z
  .object({
    name: z.string().min(1).max(128).optional(),
    version: z.string().min(1).max(64).optional(),
    provider: z.string().min(1).max(128).optional(),
  })
  .strict();

export const createNheBody = z
  .object({
    identifier: nheIdentifier,
    type: z.string().min(1).max(64),
    allowedScopes: scopeList,
    maxTokenLifetime: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Seconds; default settings.nhe.defaultMaxTokenLifetime; at most settings.nhe.hardMaxTokenLifetime'),
    operator: z.string().min(1).max(256),
    model: modelInfo.optional(),
    enabled: z.boolean().default(true),
    agentClients: agentClients.optional(),
    ...actorProofBody,
  })
  .strict();

/** The identifier is immutable: tokens and audit rows name the NHE by it. */
const patchNheBody = z
  .object({
    type: z.string().min(1).max(64).optional(),
    allowedScopes: scopeList.optional(),
    maxTokenLifetime: z.number().int().min(1).optional(),
    operator: z.string().min(1).max(256).optional(),
    model: modelInfo.nullable().optional().describe('null removes the model info'),
    enabled: z.boolean().optional(),
    agentClients: agentClients.optional().describe('Replaces the list; [] removes every agent client'),
    ...actorProofPatch,
  })
  .strict();

export const nheSchema = z
  .object({
    id: z.string(),
    identifier: z.string(),
    type: z.string(),
    allowedScopes: z.array(z.string()),
    maxTokenLifetime: z.number().int(),
    operator: z.string(),
    model: modelInfo.optional(),
    enabled: z.boolean(),
    agentClients: z.array(z.string()),
    ...actorProofViewSchema,
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'Nhe' });

const limitProblem = (limit: number, count: number) =>
  problems.limitExceeded(
    `the tenant already has ${count} NHE registrations (settings.nhe.maxNhePerTenant = ${limit})`,
    {
      name: 'settings.nhe.maxNhePerTenant',
      value: limit,
    },
  );

/** The slot number of a slotKey `<tenantId>:<n>`, or undefined when the record has none. */
const slotOf = (slotKey: string | undefined) => (slotKey ? Number(slotKey.slice(slotKey.indexOf(':') + 1)) : undefined);

/**
 * Creates the registration in a free slot `<tenantId>:<n>`, n < limit (unique index): concurrent creates cannot
 * exceed the limit, whatever their timing. Records outside the slots (created outside this API, or holding a slot
 * at or above a limit that has since been lowered) are first moved into free slots below the limit, each move
 * guarded by the same unique index; only then is a slot taken for the new record. So when a create succeeds, every
 * record it saw holds its own slot below the limit, and records created since hold one too.
 */
async function createInFreeSlot(
  models: Models,
  tenantId: number,
  limit: number,
  fields: Omit<NheDoc, 'createdAt' | 'updatedAt' | 'enabled' | 'slotKey'> & { enabled?: boolean },
) {
  const existing = await models.Nhe.find({ tenantId }, { slotKey: 1, identifier: 1 }).lean();
  if (existing.some((d) => d.identifier === fields.identifier))
    throw problems.conflict('an NHE with this identifier already exists');
  if (existing.length >= limit) throw limitProblem(limit, existing.length);
  const inRange = (slotKey: string | undefined) => (slotOf(slotKey) ?? limit) < limit;
  const used = new Set(existing.map((d) => d.slotKey).filter((k): k is string => inRange(k)));
  /** Runs `place` with the lowest free slot below the limit (the unique index refusing a taken one); undefined when none is left. */
  async function claim<T>(place: (slotKey: string) => Promise<{ took: boolean; value: T }>): Promise<T | undefined> {
    for (let n = 0; n < limit; n++) {
      const slotKey = `${tenantId}:${n}`;
      if (used.has(slotKey)) continue;
      try {
        const placed = await place(slotKey);
        if (placed.took) used.add(slotKey);
        return placed.value;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        used.add(slotKey); // another request took it meanwhile
        if (await models.Nhe.exists({ tenantId, identifier: fields.identifier }))
          throw problems.conflict('an NHE with this identifier already exists');
      }
    }
    return undefined;
  }
  for (const stray of existing.filter((d) => !inRange(d.slotKey))) {
    // Only from where it was seen: a record another request has moved (or deleted) meanwhile is left alone.
    const moved = await claim(async (slotKey) => {
      const res = await models.Nhe.updateOne(
        { _id: stray._id, slotKey: stray.slotKey ?? { $exists: false } },
        { $set: { slotKey } },
      );
      return { took: res.matchedCount === 1, value: true };
    });
    if (!moved) throw limitProblem(limit, await models.Nhe.countDocuments({ tenantId }));
  }
  const created = await claim(async (slotKey) => ({
    took: true,
    value: await models.Nhe.create({ ...fields, slotKey }),
  }));
  if (!created) throw limitProblem(limit, await models.Nhe.countDocuments({ tenantId }));
  return created;
}

export function nheView(doc: NheDoc & { _id: unknown }) {
  return {
    id: String(doc._id),
    identifier: doc.identifier,
    type: doc.type,
    allowedScopes: doc.allowedScopes,
    maxTokenLifetime: doc.maxTokenLifetime,
    operator: doc.operator,
    ...(doc.model && Object.keys(doc.model).length ? { model: doc.model } : {}),
    enabled: doc.enabled,
    agentClients: doc.agentClients ?? [],
    ...actorFieldsView(doc),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

const nheParams = tenantParams.extend({ nheId: objectIdParam }).strict();
const filters = {
  type: z.string().max(64).optional(),
  enabled: queryBool.optional(),
  identifierPrefix: z.string().min(1).max(128).optional(),
};
const listQuery = pageQuery.extend(filters).strict();
const countQuery = z.object(filters).strict();

function filterOf(
  tenantId: number,
  q: { type?: string | undefined; enabled?: boolean | undefined; identifierPrefix?: string | undefined },
) {
  const f: Record<string, unknown> = { tenantId };
  if (q.type !== undefined) f.type = q.type;
  if (q.enabled !== undefined) f.enabled = q.enabled;
  if (q.identifierPrefix !== undefined) f.identifier = prefixRegex(q.identifierPrefix);
  return f;
}

const BASE = '/tenants/:tenantId/non-human-entities';
const TAG = 'NHE registrations';

export function nheRegistrationRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;

  /** Validates type and lifetime against the tenant's settings.nhe. */
  const checkAgainstSettings = (
    settings: ReturnType<typeof nheSettingsOf>,
    type: string | undefined,
    maxTokenLifetime: number | undefined,
  ) => {
    const invalid = [];
    if (type !== undefined && !settings.allowedNheTypes.includes(type)) {
      invalid.push({
        name: 'body.type',
        reason: `must be one of the tenant's allowedNheTypes: ${settings.allowedNheTypes.join(', ')}`,
      });
    }
    if (maxTokenLifetime !== undefined && maxTokenLifetime > settings.hardMaxTokenLifetime) {
      invalid.push({
        name: 'body.maxTokenLifetime',
        reason: `must be at most settings.nhe.hardMaxTokenLifetime (${settings.hardMaxTokenLifetime})`,
      });
    }
    if (invalid.length) throw problems.validation('the NHE does not fit the tenant settings', invalid);
  };

  /**
   * A client embodies one NHE: an entry another NHE of the tenant already names, or one that matches (or is matched
   * by) another NHE's entry, is a conflict.
   */
  const checkAgentClients = async (tenantId: number, selfId: unknown, entries: string[] | undefined) => {
    if (!entries?.length) return;
    const others = await models.Nhe.find(
      { tenantId, agentClients: { $exists: true, $ne: [] }, ...(selfId ? { _id: { $ne: selfId } } : {}) },
      { identifier: 1, agentClients: 1 },
    ).lean();
    const overlaps = (a: string, b: string) =>
      a === b || agentClientMatches(a, b.replace(/\*$/, '')) || agentClientMatches(b, a.replace(/\*$/, ''));
    for (const other of others) {
      const clash = entries.find((e) => (other.agentClients ?? []).some((o) => overlaps(e, o)));
      if (clash)
        throw problems.conflict(
          `agent client ${clash} already embodies (or overlaps an agent client of) NHE ${other.identifier}: a client may embody one NHE only`,
        );
    }
  };

  const find = async (tenantId: number, nheId: string) => {
    const doc = await models.Nhe.findOne({ tenantId, _id: idOr404(nheId, 'NHE') }).lean<NheDoc & { _id: unknown }>();
    if (!doc) throw problems.notFound('NHE not found');
    return doc;
  };

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createNhe',
      summary: 'Register an NHE',
      tag: TAG,
      scope: 'auth.nhe.create',
      params: tenantParams,
      body: createNheBody,
      responses: {
        201: { description: 'The registration', schema: nheSchema, headers: { Location: 'URL of the registration' } },
      },
      errors: [409],
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        const maxTokenLifetime = body.maxTokenLifetime ?? settings.defaultMaxTokenLifetime;
        checkAgainstSettings(settings, body.type, maxTokenLifetime);
        await checkActorProofFields(models, tenantId, undefined, body as ActorProofFields);
        await checkAgentClients(tenantId, undefined, body.agentClients);
        const created = await createInFreeSlot(models, tenantId, settings.maxNhePerTenant, {
          ...body,
          maxTokenLifetime,
          tenantId,
        });
        const id = String(created._id);
        audit({ nheId: id, identifier: body.identifier });
        invalidate('nhe', id);
        return {
          status: 201,
          body: nheView(created.toObject()),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listNhes',
      summary: 'List NHE registrations (oldest first)',
      tag: TAG,
      scope: 'auth.nhe.list',
      params: tenantParams,
      query: listQuery,
      responses: { 200: { description: 'A page of registrations', schema: page(nheSchema, 'NhePage') } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.Nhe, filterOf(tenantId, query), query, nheView),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countNhes',
      summary: 'Count NHE registrations',
      tag: TAG,
      scope: 'auth.nhe.list',
      params: tenantParams,
      query: countQuery,
      responses: { 200: { description: 'The number of matching registrations', schema: countSchema } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: { count: await models.Nhe.countDocuments(filterOf(tenantId, query)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:nheId`,
      operationId: 'getNhe',
      summary: 'Get an NHE registration',
      tag: TAG,
      scope: 'auth.nhe.list',
      params: nheParams,
      responses: { 200: { description: 'The registration', schema: nheSchema } },
      handler: async ({ tenantId, params }) => ({ status: 200, body: nheView(await find(tenantId, params.nheId)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:nheId`,
      operationId: 'updateNhe',
      summary: 'Update an NHE registration',
      description: 'Disabling an NHE also revokes the tokens already issued to it (kill switch).',
      tag: TAG,
      scope: 'auth.nhe.update',
      params: nheParams,
      body: patchNheBody,
      responses: { 200: { description: 'The updated registration', schema: nheSchema } },
      errors: [409, 503],
      handler: async ({ tenantId, params, body, audit, invalidate }) => {
        const tenant = await loadTenant(models, tenantId);
        const settings = nheSettingsOf(tenant);
        const existing = await find(tenantId, params.nheId);
        checkAgainstSettings(settings, body.type, body.maxTokenLifetime);
        await checkActorProofFields(models, tenantId, existing, body as ActorProofFields);
        await checkAgentClients(tenantId, existing._id, body.agentClients);
        const { model, ...rest } = body;
        // null removes a member (model info, keys, workload identity; requireActorProof null: inherit the tenant's).
        const unset = Object.fromEntries(
          Object.entries(body)
            .filter(([, v]) => v === null)
            .map(([k]) => [k, 1]),
        );
        const set = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null));
        const update: Record<string, unknown> = { $set: { ...set, ...(model ? { model } : {}) } };
        if (Object.keys(unset).length) update.$unset = unset;
        const doc = await models.Nhe.findOneAndUpdate({ tenantId, _id: existing._id }, update, {
          returnDocument: 'after',
        }).lean<NheDoc & { _id: unknown }>();
        if (!doc) throw problems.notFound('NHE not found');
        audit({ nheId: params.nheId, identifier: doc.identifier, fields: Object.keys(body) });
        invalidate('nhe', params.nheId);
        // Also when it was already disabled: a retry after a failed revocation must revoke.
        if (body.enabled === false) {
          await deps.revoke?.({
            tenantId,
            nheIdentifier: doc.identifier,
            reason: 'nhe.disabled',
            maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
          });
        }
        return { status: 200, body: nheView(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:nheId`,
      operationId: 'deleteNhe',
      summary: 'Delete an NHE registration',
      description:
        'Deletes the registration and its delegation policies, and revokes the tokens already issued to it. Token audit rows are kept.',
      tag: TAG,
      scope: 'auth.nhe.delete',
      params: nheParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [503],
      handler: async ({ tenantId, params, audit, invalidate }) => {
        const existing = await find(tenantId, params.nheId);
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        // Revoke first: if that cannot be confirmed (503) nothing is deleted yet, so a retry of the DELETE does both.
        await deps.revoke?.({
          tenantId,
          nheIdentifier: existing.identifier,
          reason: 'nhe.deleted',
          maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
        });
        await models.Nhe.deleteOne({ tenantId, _id: existing._id });
        // Its own policies, and the NHE -> NHE policies that let it hand on to others (delegation chains).
        const policies = await models.DelegationPolicy.deleteMany({
          tenantId,
          $or: [{ nheId: params.nheId }, { 'target.type': 'nhe', 'target.id': params.nheId }],
        });
        audit({ nheId: params.nheId, identifier: existing.identifier, policiesDeleted: policies.deletedCount });
        invalidate('nhe', params.nheId);
        return { status: 204 };
      },
    }),
  ];
}
