/**
 * The transmitter's HTTP surface for one tenant (issuer `{PUBLIC_BASE_URL}/auth/{tenantId}`), every path also under
 * the `/_api` alias:
 *
 * - `GET /.well-known/ssf-configuration/auth/{tenantId}` (SSF 1.0 section 7.2.1: the well-known segment between the
 *   host and the issuer's path) and `GET /auth/{tenantId}/.well-known/ssf-configuration` (the suffixed form some
 *   receivers try): transmitter metadata;
 * - `{issuer}/ssf/streams` (configuration_endpoint: POST create, GET read one or all, PATCH update, PUT replace,
 *   DELETE), `{issuer}/ssf/status` (GET, POST), `{issuer}/ssf/verify` (POST), `{issuer}/ssf/poll/{stream_id}`
 *   (RFC 8936), all with a `ssf.manage` token of the tenant (receiver-auth.ts); a receiver sees only its streams.
 */
import { randomUUID } from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { z } from 'zod';
import { OAuthError } from '@idp/errors';
import { checkOutboundUrl, jsonBody, OutboundUrlError, type OutboundPolicy } from '@idp/http';
import type { RevocationStore } from '@idp/events';
import { DELIVERY_METHODS, DELIVERY_POLL, DELIVERY_PUSH, EVENTS_SUPPORTED } from '../domain/event-types';
import {
  eventsDelivered,
  MIN_VERIFICATION_INTERVAL_SECONDS,
  statusInputSchema,
  streamInputSchema,
  streamJson,
  verificationInputSchema,
  type StreamInput,
  type StreamRecord,
} from '../domain/stream-config';
import { writeVerification, type FanOutDeps } from '../fan-out';
import { reconcile } from '../revocation-feed';
import type { Collections } from '../store/collections';
import { pollStream, type PollWaiters } from '../poll';
import { authenticateReceiver, receiverOf, type ReceiverAuthDeps } from './receiver-auth';

export interface SsfRouteDeps extends ReceiverAuthDeps {
  c: Collections;
  fanOut: FanOutDeps;
  store: RevocationStore;
  /** Whether the tenant exists (metadata of unknown tenants is a 404). */
  tenantExists: (tenantId: number) => Promise<boolean>;
  pushPolicy: OutboundPolicy;
  maxStreamsPerClient: number;
  /** Seconds a poll stream lives without its receiver's activity, then is deleted (transmitter.ts sweeps). */
  inactivityTimeoutSeconds?: number;
  pollMaxEvents: number;
  pollWaitMs: number;
  waiters: PollWaiters;
}

const TENANT_ID = /^\d{1,15}$/;

const invalid = (description: string) => new OAuthError('invalid_request', description, 400);
const notFound = () => new OAuthError('not_found', 'stream not found', 404);

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success)
    throw invalid(
      result.error.issues
        .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
        .join('; ')
        .slice(0, 500),
    );
  return result.data;
}

const wrap =
  (fn: (req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch(next);
  };

/** The alias the request came in on, kept in the URLs the answer names. */
const aliasOf = (req: Request) => (req.originalUrl.startsWith('/_api/') ? '/_api' : '');

export function ssfRoutes(deps: SsfRouteDeps): Router {
  const router = Router();
  const issuer = (tenantId: number) => `${deps.publicBaseUrl}/auth/${tenantId}`;
  const base = (req: Request, tenantId: number) => `${deps.publicBaseUrl}${aliasOf(req)}/auth/${tenantId}`;
  const urls = (req: Request, tenantId: number) => ({
    issuer: issuer(tenantId),
    pollUrl: (id: string) => `${base(req, tenantId)}/ssf/poll/${id}`,
    ...(deps.inactivityTimeoutSeconds !== undefined ? { inactivityTimeoutSeconds: deps.inactivityTimeoutSeconds } : {}),
  });

  const tenantParam = (req: Request): number => {
    // Absent where a router does not merge its parent's params: never a tenant.
    const raw = String((req.params as Partial<Record<string, string>>).tenantId ?? '');
    if (!TENANT_ID.test(raw)) throw new OAuthError('not_found', 'unknown tenant', 404);
    return Number(raw);
  };

  const metadata = wrap(async (req, res) => {
    const tenantId = tenantParam(req);
    if (!(await deps.tenantExists(tenantId))) throw new OAuthError('not_found', 'unknown tenant', 404);
    const b = base(req, tenantId);
    res.set('Cache-Control', 'public, max-age=300').json({
      spec_version: '1_0',
      issuer: issuer(tenantId),
      jwks_uri: `${b}/jwks`,
      delivery_methods_supported: [...DELIVERY_METHODS],
      configuration_endpoint: `${b}/ssf/streams`,
      status_endpoint: `${b}/ssf/status`,
      verification_endpoint: `${b}/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
      default_subjects: 'ALL',
      events_supported: [...EVENTS_SUPPORTED],
    });
  });
  router.get(
    ['/.well-known/ssf-configuration/auth/:tenantId', '/_api/.well-known/ssf-configuration/auth/:tenantId'],
    metadata,
  );
  router.get(
    ['/auth/:tenantId/.well-known/ssf-configuration', '/_api/auth/:tenantId/.well-known/ssf-configuration'],
    metadata,
  );

  const api = Router({ mergeParams: true });
  api.use((req, _res, next) => {
    try {
      tenantParam(req);
      next();
    } catch (err) {
      next(err);
    }
  });
  api.use(authenticateReceiver(deps));
  api.use(jsonBody({ limit: '64kb' }));

  /** The caller's stream, or 404 (another receiver's stream, or another tenant's, is not found either). */
  const ownStream = async (req: Request, streamId: unknown): Promise<StreamRecord> => {
    if (typeof streamId !== 'string' || !streamId) throw invalid('stream_id is required');
    const { tenantId, clientId } = receiverOf(req);
    // Any request of the receiver about its stream is activity (SSF 1.0 section 8.1.1): the inactivity timeout restarts.
    const stream = await deps.c.streams.findOneAndUpdate(
      { _id: streamId, tenantId, clientId },
      { $set: { activeAt: new Date() } },
      { returnDocument: 'after' },
    );
    if (!stream) throw notFound();
    return stream;
  };

  /** Delivery as stored, from the receiver's input (push URLs checked against the SSRF rules). */
  const delivery = (input: StreamInput['delivery']): StreamRecord['delivery'] => {
    if (!input || input.method === DELIVERY_POLL) return { method: DELIVERY_POLL };
    try {
      checkOutboundUrl(input.endpoint_url, deps.pushPolicy);
    } catch (err) {
      if (err instanceof OutboundUrlError) throw invalid(`delivery.endpoint_url: ${err.message}`);
      throw err;
    }
    return {
      method: DELIVERY_PUSH,
      endpointUrl: input.endpoint_url,
      ...(input.authorization_header ? { authorizationHeader: input.authorization_header } : {}),
    };
  };

  /** New events for a stream that (re)starts holding them: every kill-switch entry still in force. */
  const backfill = (stream: StreamRecord) =>
    reconcile({ ...deps.fanOut, store: deps.store }, stream.tenantId, stream._id);

  api.post(
    '/streams',
    wrap(async (req, res) => {
      const { tenantId, clientId } = receiverOf(req);
      const input = parse(streamInputSchema, req.body);
      if (input.stream_id !== undefined) throw invalid('stream_id is assigned by the transmitter');
      const chosen = delivery(input.delivery);
      if ((await deps.c.streams.countDocuments({ tenantId, clientId })) >= deps.maxStreamsPerClient) {
        throw new OAuthError('invalid_request', `a receiver may hold at most ${deps.maxStreamsPerClient} streams`, 409);
      }
      const now = new Date();
      const stream: StreamRecord = {
        _id: randomUUID(),
        tenantId,
        clientId,
        eventsRequested: input.events_requested ?? [...EVENTS_SUPPORTED],
        eventsDelivered: eventsDelivered(input.events_requested),
        delivery: chosen,
        ...(input.description !== undefined ? { description: input.description } : {}),
        status: 'enabled',
        createdAt: now,
        updatedAt: now,
        activeAt: now,
      };
      await deps.c.streams.insertOne(stream);
      await backfill(stream);
      res
        .status(201)
        .set('Cache-Control', 'no-store')
        .json(streamJson(stream, urls(req, tenantId)));
    }),
  );

  api.get(
    '/streams',
    wrap(async (req, res) => {
      const { tenantId, clientId } = receiverOf(req);
      res.set('Cache-Control', 'no-store');
      if (req.query.stream_id === undefined) {
        const all = await deps.c.streams.find({ tenantId, clientId }).sort({ createdAt: 1 }).toArray();
        res.json(all.map((s) => streamJson(s, urls(req, tenantId))));
        return;
      }
      res.json(streamJson(await ownStream(req, req.query.stream_id), urls(req, tenantId)));
    }),
  );

  /** PATCH changes the fields sent; PUT replaces every receiver-supplied field (absent ones get their defaults). */
  const update = (replace: boolean) =>
    wrap(async (req, res) => {
      const input = parse(streamInputSchema, req.body);
      const stream = await ownStream(req, input.stream_id);
      const set: Partial<StreamRecord> = { updatedAt: new Date() };
      if (replace || input.events_requested !== undefined) {
        set.eventsRequested = input.events_requested ?? [...EVENTS_SUPPORTED];
        set.eventsDelivered = eventsDelivered(input.events_requested);
      }
      if (replace || input.delivery !== undefined) set.delivery = delivery(input.delivery);
      const unset: Record<string, ''> = {};
      if (input.description !== undefined) set.description = input.description;
      else if (replace) unset.description = '';
      if (set.delivery) Object.assign(unset, { pushRetryAt: '', pushFailures: '' });
      const updated = await deps.c.streams.findOneAndUpdate(
        { _id: stream._id },
        { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) },
        { returnDocument: 'after' },
      );
      if (!updated) throw notFound();
      // Newly requested event types get the entries still in force.
      await backfill(updated);
      res.set('Cache-Control', 'no-store').json(streamJson(updated, urls(req, updated.tenantId)));
    });
  api.patch('/streams', update(false));
  api.put('/streams', update(true));

  api.delete(
    '/streams',
    wrap(async (req, res) => {
      const stream = await ownStream(req, req.query.stream_id);
      await deps.c.streams.deleteOne({ _id: stream._id });
      await deps.c.events.deleteMany({ streamId: stream._id });
      res.status(204).end();
    }),
  );

  api.get(
    '/status',
    wrap(async (req, res) => {
      const stream = await ownStream(req, req.query.stream_id);
      res
        .set('Cache-Control', 'no-store')
        .json({ stream_id: stream._id, status: stream.status, ...(stream.reason ? { reason: stream.reason } : {}) });
    }),
  );

  api.post(
    '/status',
    wrap(async (req, res) => {
      const input = parse(statusInputSchema, req.body);
      const stream = await ownStream(req, input.stream_id);
      await deps.c.streams.updateOne(
        { _id: stream._id },
        {
          $set: { status: input.status, updatedAt: new Date(), ...(input.reason ? { reason: input.reason } : {}) },
          ...(input.reason ? {} : { $unset: { reason: '' } }),
        },
      );
      // Disabled: the transmitter holds nothing (SSF 1.0 section 8.1.2); acknowledged rows stay as tombstones.
      if (input.status === 'disabled') await deps.c.events.deleteMany({ streamId: stream._id, state: 'pending' });
      if (input.status !== 'disabled' && stream.status === 'disabled')
        await backfill({ ...stream, status: input.status });
      if (input.status === 'enabled') deps.fanOut.notify?.([stream._id]);
      res
        .set('Cache-Control', 'no-store')
        .json({ stream_id: stream._id, status: input.status, ...(input.reason ? { reason: input.reason } : {}) });
    }),
  );

  api.post(
    '/verify',
    wrap(async (req, res) => {
      const input = parse(verificationInputSchema, req.body);
      const stream = await ownStream(req, input.stream_id);
      if (stream.status === 'disabled') throw new OAuthError('invalid_request', 'the stream is disabled', 409);
      const now = Date.now();
      const earliest = new Date(now - MIN_VERIFICATION_INTERVAL_SECONDS * 1000);
      // Conditional update: two requests at once cannot both pass the interval.
      const claimed = await deps.c.streams.findOneAndUpdate(
        {
          _id: stream._id,
          $or: [{ lastVerificationAt: { $exists: false } }, { lastVerificationAt: { $lte: earliest } }],
        },
        { $set: { lastVerificationAt: new Date(now) } },
      );
      if (!claimed) {
        res.set('Retry-After', String(MIN_VERIFICATION_INTERVAL_SECONDS));
        throw new OAuthError(
          'invalid_request',
          `at most one verification every ${MIN_VERIFICATION_INTERVAL_SECONDS} seconds`,
          429,
        );
      }
      await writeVerification(deps.fanOut, stream, input.state);
      res.status(204).end();
    }),
  );

  api.post(
    '/poll/:streamId',
    wrap(async (req, res) => {
      const stream = await ownStream(req, req.params.streamId);
      if (stream.delivery.method !== DELIVERY_POLL)
        throw new OAuthError('invalid_request', 'this stream is delivered by push', 400);
      const answer = await pollStream(
        { c: deps.c, waiters: deps.waiters, maxEvents: deps.pollMaxEvents, waitMs: deps.pollWaitMs },
        stream,
        req.body,
        req.socket,
      );
      res.set('Cache-Control', 'no-store').json(answer);
    }),
  );

  router.use(['/auth/:tenantId/ssf', '/_api/auth/:tenantId/ssf'], api);
  return router;
}
