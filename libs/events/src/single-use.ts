import { createHash } from 'node:crypto';
import {
  DiscardPolicy,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Single-use values shared by every replica, kept in JetStream (the `jti` of actor tokens at token
 * exchange). One stream, one subject per value (`idp.single-use.<kind>.<tenantId>.<sha256(key)>`), at most one
 * message per subject, and each use is a publish that expects the subject to be empty (`Nats-Expected-Last-Subject-
 * Sequence: 0`, the create-only write of a JetStream key-value bucket): the stream leader orders the writes, so the
 * second use of a value fails on whichever replica it runs. Records leave with the stream's max_age, which must cover
 * the longest time a value has to be remembered (remember() refuses a longer one instead of forgetting it early).
 *
 * The publish is one round trip to the server the connection already holds (the audit event of the same exchange
 * goes the same way), instead of a database insert: bench/token-exchange/actor-proof.js.
 */
export const SINGLE_USE_STREAM = 'IDP_SINGLE_USE';
export const SINGLE_USE_SUBJECT_PREFIX = 'idp.single-use';

const NANOS_PER_SECOND = 1_000_000_000;

/**
 * JetStream API error codes of a write refused because the subject already holds a record, or (10164, a clustered
 * stream) because another write to the same subject is still being proposed: either way another use came first.
 */
const USED_BEFORE = new Set([
  10071, // wrong last sequence: N
  10077, // maximum messages per subject exceeded
  10164, // wrong last sequence (a write to the subject in flight, clustered streams)
]);

export interface SingleUseStreamOptions {
  replicas: number;
  /** How long a record is kept (seconds): at least the longest lifetime of a value (remember's expiresAt). */
  maxAgeSeconds: number;
  /** Another stream and subject prefix than IDP_SINGLE_USE / idp.single-use (tests). */
  name?: string;
  subjectPrefix?: string;
}

/** Creates the stream, or updates it to these settings (idempotent, any replica may run it at start). */
export async function ensureSingleUseStream(nc: NatsConnection, options: SingleUseStreamOptions): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const name = options.name ?? SINGLE_USE_STREAM;
  const config = {
    name,
    subjects: [`${options.subjectPrefix ?? SINGLE_USE_SUBJECT_PREFIX}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_msgs_per_subject: 1,
    // A second write to a subject is refused (never replaces the first), even without the expectation header.
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    num_replicas: options.replicas,
    max_age: options.maxAgeSeconds * NANOS_PER_SECOND,
    duplicate_window: Math.min(120, options.maxAgeSeconds) * NANOS_PER_SECOND,
  };
  const { storage: _storage, ...updatable } = config;
  try {
    await jsm.streams.info(name);
    await jsm.streams.update(name, updatable);
  } catch (err) {
    if (
      (err as { name?: string }).name !== 'StreamNotFoundError' &&
      !/stream not found/i.test(String((err as Error).message))
    )
      throw err;
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // Another replica created it between our info and add.
      if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
      await jsm.streams.update(name, updatable);
    }
  }
}

/** The API error code of a failed JetStream publish (undefined when it is no API error: timeout, no responders). */
function apiErrorCode(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof JetStreamApiError) return e.code;
  }
  return undefined;
}

/**
 * A single-use store over the stream (structurally the `ReplayStore` of @idp/resource-server and the result of
 * `singleUseStore` of @idp/db): remember() resolves true the first time a key is seen within max_age, false after.
 * Any other failure (NATS away, timeout) rejects, so nothing is accepted unchecked.
 */
export function jetStreamSingleUseStore(
  js: JetStreamClient,
  o: {
    kind: string;
    tenantId: number;
    maxAgeSeconds: number;
    timeoutMs?: number;
    subjectPrefix?: string;
    now?: () => number;
  },
): { remember(key: string, expiresAt?: Date): Promise<boolean> } {
  if (!/^[A-Za-z0-9_-]+$/.test(o.kind))
    throw new Error(`single-use kind ${JSON.stringify(o.kind)} must be one subject token`);
  const prefix = `${o.subjectPrefix ?? SINGLE_USE_SUBJECT_PREFIX}.${o.kind}.${o.tenantId}.`;
  const now = o.now ?? Date.now;
  return {
    async remember(key, expiresAt) {
      // The stream forgets a record after max_age: a value that must be remembered longer is refused, not risked.
      if (expiresAt && expiresAt.getTime() - now() > o.maxAgeSeconds * 1000) {
        throw new Error(
          `single-use ${o.kind} must be kept until ${expiresAt.toISOString()}, longer than the stream's max_age (${o.maxAgeSeconds} s)`,
        );
      }
      const subject = prefix + createHash('sha256').update(key).digest('base64url');
      try {
        await js.publish(subject, new Uint8Array(0), {
          expect: { lastSubjectSequence: 0 },
          ...(o.timeoutMs ? { timeout: o.timeoutMs } : {}),
        });
        return true;
      } catch (err) {
        const code = apiErrorCode(err);
        if (code !== undefined && USED_BEFORE.has(code)) return false;
        throw err;
      }
    },
  };
}
