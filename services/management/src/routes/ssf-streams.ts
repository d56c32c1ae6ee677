/**
 * The tenant's Shared Signals streams (SSF 1.0), as an administrator sees them: which receivers subscribed, how their
 * events travel (push to an endpoint, or poll), their status and last activity, and how many events wait. An
 * administrator pauses or resumes a stream (SSF 1.0 section 8.1.2 stream status, as the transmitter's own
 * status endpoint sets it), or deletes a stream a receiver left behind with its events; the receiver may create a new
 * one. The transmitter (services/signals) owns the collections and reads a stream's status on every delivery.
 *
 * Never returned: the push endpoint's Authorization header (a receiver's secret), and the events' SETs.
 */
import { z } from 'zod';
import type { Models } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantParams } from '../openapi/schemas';
import type { RouteDeps } from './deps';

/** services/signals store/collections.ts. */
const STREAMS = 'ssf_streams';
const EVENTS = 'ssf_events';
const MAX_STREAMS = 500;

interface StoredStream {
  _id: string;
  tenantId: number;
  clientId?: unknown;
  delivery?: { method?: unknown; endpointUrl?: unknown };
  eventsRequested?: unknown;
  description?: unknown;
  status?: unknown;
  reason?: unknown;
  createdAt?: unknown;
  activeAt?: unknown;
  pushFailures?: unknown;
}

const STATUSES = ['enabled', 'paused', 'disabled'] as const;

export const ssfStreamSchema = z
  .object({
    id: z.string(),
    clientId: z.string().describe('The receiver: the client that created the stream'),
    delivery: z.enum(['push', 'poll', 'unknown']),
    endpointUrl: z.string().optional().describe('Push: where the events go'),
    eventsRequested: z.array(z.string()),
    description: z.string().optional(),
    status: z.string().describe('enabled, paused or disabled (SSF 1.0 section 8.1.2)'),
    reason: z.string().optional(),
    createdAt: isoDate.optional(),
    lastActivityAt: isoDate.optional().describe("The receiver's last request about the stream (poll streams)"),
    pushFailures: z.number().int().optional(),
    pendingEvents: z.number().int().describe('Events not yet acknowledged or delivered'),
  })
  .meta({ id: 'SsfStream' });

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const date = (v: unknown) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : undefined);

/** A stored stream as the API shows it; a row written by hand or by an older transmitter never breaks the list. */
function view(s: StoredStream, pending: number) {
  const method = str(s.delivery?.method);
  return {
    id: String(s._id),
    clientId: str(s.clientId) ?? '',
    delivery: method === 'urn:ietf:rfc:8935' ? 'push' : method === 'urn:ietf:rfc:8936' ? 'poll' : 'unknown',
    ...(str(s.delivery?.endpointUrl) ? { endpointUrl: str(s.delivery?.endpointUrl) } : {}),
    eventsRequested: Array.isArray(s.eventsRequested) ? s.eventsRequested.filter((e) => typeof e === 'string') : [],
    ...(str(s.description) ? { description: str(s.description) } : {}),
    status: str(s.status) ?? 'enabled',
    ...(str(s.reason) ? { reason: str(s.reason) } : {}),
    ...(date(s.createdAt) ? { createdAt: date(s.createdAt) } : {}),
    ...(date(s.activeAt) ? { lastActivityAt: date(s.activeAt) } : {}),
    ...(typeof s.pushFailures === 'number' ? { pushFailures: s.pushFailures } : {}),
    pendingEvents: pending,
  } as z.infer<typeof ssfStreamSchema>;
}

function collectionsOf(models: Models) {
  const db = models.Tenant.db;
  return { streams: db.collection<StoredStream>(STREAMS), events: db.collection(EVENTS) };
}

export function ssfStreamRoutes(deps: RouteDeps): RouteDef[] {
  const BASE = '/tenants/:tenantId/ssf-streams';
  const params = tenantParams.extend({ streamId: z.string().min(1).max(128) }).strict();
  const pending = (tenantId: number, streamId: string) =>
    collectionsOf(deps.models).events.countDocuments({ tenantId, streamId, state: 'pending' });
  const find = async (tenantId: number, streamId: string) => {
    const s = await collectionsOf(deps.models).streams.findOne({ _id: streamId, tenantId });
    if (!s) throw problems.notFound('stream not found');
    return s;
  };
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listSsfStreams',
      summary: "List the tenant's Shared Signals streams",
      tag: 'Shared Signals',
      scope: 'auth.tenants.list',
      params: tenantParams,
      query: z
        .object({ clientId: z.string().min(1).max(256).optional().describe('Only this receiver’s streams') })
        .strict(),
      responses: {
        200: { description: 'The streams (at most 500)', schema: z.object({ items: z.array(ssfStreamSchema) }) },
      },
      handler: async ({ tenantId, query }) => {
        const rows = await collectionsOf(deps.models)
          .streams.find({ tenantId, ...(query.clientId ? { clientId: query.clientId } : {}) })
          .sort({ createdAt: 1 })
          .limit(MAX_STREAMS)
          .toArray();
        const items = await Promise.all(rows.map(async (s) => view(s, await pending(tenantId, String(s._id)))));
        return { status: 200, body: { items } };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:streamId`,
      operationId: 'getSsfStream',
      summary: 'Get a Shared Signals stream',
      tag: 'Shared Signals',
      scope: 'auth.tenants.list',
      params,
      responses: { 200: { description: 'The stream', schema: ssfStreamSchema } },
      handler: async ({ tenantId, params: p }) => {
        const s = await find(tenantId, p.streamId);
        return { status: 200, body: view(s, await pending(tenantId, p.streamId)) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:streamId`,
      operationId: 'updateSsfStreamStatus',
      summary: 'Pause, resume or disable a Shared Signals stream',
      description:
        'SSF 1.0 section 8.1.2: paused, the transmitter holds the events for the receiver; disabled, it drops them. ' +
        'The receiver sees the new status at its status endpoint. A disabled stream is enabled again only by its receiver (409 here).',
      tag: 'Shared Signals',
      scope: 'auth.tenants.update',
      params,
      body: z
        .object({
          status: z.enum(STATUSES),
          reason: z.string().min(1).max(256).optional().describe('Why (shown to the receiver)'),
        })
        .strict(),
      responses: { 200: { description: 'The stream', schema: ssfStreamSchema } },
      errors: [409],
      handler: async ({ tenantId, params: p, body, audit }) => {
        const current = await find(tenantId, p.streamId);
        // Out of disabled, the transmitter must first deliver again what the stream missed (its backfill): that is
        // the receiver's own status request at the transmitter.
        if (current.status === 'disabled' && body.status !== 'disabled')
          throw problems.conflict(
            'a disabled stream is enabled again by its receiver (SSF status endpoint), which backfills it',
          );
        const set = { status: body.status, updatedAt: new Date(), ...(body.reason ? { reason: body.reason } : {}) };
        const c = collectionsOf(deps.models);
        await c.streams.updateOne(
          { _id: p.streamId, tenantId },
          body.reason ? { $set: set } : { $set: set, $unset: { reason: '' as const } },
        );
        // Disabled: the transmitter holds nothing for it (SSF 1.0 section 8.1.2); acknowledged rows stay as tombstones.
        if (body.status === 'disabled') await c.events.deleteMany({ tenantId, streamId: p.streamId, state: 'pending' });
        audit({ streamId: p.streamId, status: body.status });
        const s = await find(tenantId, p.streamId);
        return { status: 200, body: view(s, await pending(tenantId, p.streamId)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:streamId`,
      operationId: 'deleteSsfStream',
      summary: 'Delete a Shared Signals stream and its events',
      tag: 'Shared Signals',
      scope: 'auth.tenants.update',
      params,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenantId, params: p, audit }) => {
        await find(tenantId, p.streamId);
        const c = collectionsOf(deps.models);
        await c.streams.deleteOne({ _id: p.streamId, tenantId });
        await c.events.deleteMany({ tenantId, streamId: p.streamId });
        audit({ streamId: p.streamId, deleted: true });
        return { status: 204 };
      },
    }),
  ];
}
