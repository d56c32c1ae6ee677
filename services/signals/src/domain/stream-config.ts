/**
 * Stream configuration (SSF 1.0 section 8.1.1): what the receiver supplies (events_requested, delivery, description)
 * and what the transmitter answers with (stream_id, iss, aud, events_supported, events_delivered,
 * min_verification_interval). Pure: parsing, the delivered set and the JSON shape.
 */
import { z } from 'zod';
import { DELIVERY_POLL, DELIVERY_PUSH, EVENTS_SUPPORTED, type DeliveryMethod } from './event-types';

export type StreamStatus = 'enabled' | 'paused' | 'disabled';
export const STREAM_STATUSES = ['enabled', 'paused', 'disabled'] as const;

/** Seconds between two verification requests of a stream (SSF min_verification_interval). */
export const MIN_VERIFICATION_INTERVAL_SECONDS = 15;

export interface StreamRecord {
  _id: string;
  tenantId: number;
  /** The receiver: client_id of the token that created the stream. */
  clientId: string;
  eventsRequested: string[];
  eventsDelivered: string[];
  delivery: { method: DeliveryMethod; endpointUrl?: string; authorizationHeader?: string };
  description?: string;
  status: StreamStatus;
  reason?: string;
  createdAt: Date;
  updatedAt: Date;
  /** Push: next attempt after a failure, consecutive failures, and the lease of the replica delivering. */
  pushRetryAt?: Date;
  pushFailures?: number;
  leaseUntil?: Date;
  lastVerificationAt?: Date;
  /**
   * The receiver's last request about this stream (a poll, a read, an update; SSF 1.0 section 8.1.1's eligible
   * activity); absent on streams created before it (their createdAt counts).
   */
  activeAt?: Date;
}

const uri = z.string().min(1).max(512);
/** Fields the transmitter supplies: a receiver may send them back (PUT of a read configuration); they are ignored. */
const transmitterSupplied = {
  stream_id: z.string().optional(),
  iss: z.unknown().optional(),
  aud: z.unknown().optional(),
  events_supported: z.unknown().optional(),
  events_delivered: z.unknown().optional(),
  min_verification_interval: z.unknown().optional(),
  inactivity_timeout: z.unknown().optional(),
};

const deliverySchema = z.discriminatedUnion('method', [
  z
    .object({
      method: z.literal(DELIVERY_PUSH),
      endpoint_url: z.string().min(1).max(2048),
      authorization_header: z
        .string()
        .min(1)
        .max(4096)
        .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII')
        .optional(),
    })
    .strict(),
  z
    .object({
      method: z.literal(DELIVERY_POLL),
      // Transmitter-supplied for poll: a value sent back is ignored.
      endpoint_url: z.string().max(2048).optional(),
    })
    .strict(),
]);

export const streamInputSchema = z
  .object({
    ...transmitterSupplied,
    events_requested: z.array(uri).max(32).optional(),
    delivery: deliverySchema.optional(),
    description: z.string().max(500).optional(),
  })
  .strict();
export type StreamInput = z.infer<typeof streamInputSchema>;

export const statusInputSchema = z
  .object({
    stream_id: z.string().min(1).max(64),
    status: z.enum(STREAM_STATUSES),
    reason: z.string().max(500).optional(),
  })
  .strict();

export const verificationInputSchema = z
  .object({ stream_id: z.string().min(1).max(64), state: z.string().max(1024).optional() })
  .strict();

/** events_delivered: the requested types the transmitter supports (all of them when none are requested). */
export function eventsDelivered(requested: readonly string[] | undefined): string[] {
  if (requested === undefined) return [...EVENTS_SUPPORTED];
  const wanted = new Set(requested);
  return EVENTS_SUPPORTED.filter((e) => wanted.has(e));
}

export interface StreamUrls {
  issuer: string;
  /** Where this stream's receiver polls: `{issuer}/ssf/poll/{stream_id}`. */
  pollUrl: (streamId: string) => string;
  /** Seconds a poll stream lives without its receiver's activity (SSF 1.0 section 8.1.1 `inactivity_timeout`). */
  inactivityTimeoutSeconds?: number;
}

/** The configuration as SSF answers it. The push authorization header is never read back (it is a secret). */
export function streamJson(s: StreamRecord, urls: StreamUrls): Record<string, unknown> {
  return {
    stream_id: s._id,
    iss: urls.issuer,
    aud: s.clientId,
    events_supported: [...EVENTS_SUPPORTED],
    events_requested: s.eventsRequested,
    events_delivered: s.eventsDelivered,
    delivery:
      s.delivery.method === DELIVERY_PUSH
        ? { method: DELIVERY_PUSH, endpoint_url: s.delivery.endpointUrl }
        : { method: DELIVERY_POLL, endpoint_url: urls.pollUrl(s._id) },
    min_verification_interval: MIN_VERIFICATION_INTERVAL_SECONDS,
    // Only poll streams expire: a push stream's receiver is reached by the transmitter and may never call back.
    ...(s.delivery.method === DELIVERY_POLL && urls.inactivityTimeoutSeconds !== undefined
      ? { inactivity_timeout: urls.inactivityTimeoutSeconds }
      : {}),
    ...(s.description !== undefined ? { description: s.description } : {}),
  };
}
