import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '@idp/logger';

export interface LoopOptions {
  batchSize: number;
  /** Milliseconds a fetch waits for messages before returning what it has. */
  fetchExpiresMs: number;
}

/** Pulls batches until `signal` aborts; each batch is handed to `handle` and awaited (bounded in-flight). */
export async function runConsumerLoop(
  consumer: Consumer,
  handle: (msgs: JsMsg[]) => Promise<void>,
  options: LoopOptions,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const messages = await consumer.fetch({ max_messages: options.batchSize, expires: options.fetchExpiresMs });
      const batch: JsMsg[] = [];
      for await (const m of messages) batch.push(m);
      if (batch.length) await handle(batch);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal may fire while awaiting
      if (signal.aborted) break;
      logger.warn({ err: (err as Error).message }, 'fetch failed; retrying');
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
