import { getEventListeners } from 'node:events';
import { createLogger } from '@idp/logger';
import { startPushWorker, type PushDeps } from './push-worker';

it('the push loop keeps at most one abort listener however many passes it runs, and ends on abort', async () => {
  let passes = 0;
  // A store with no push stream due: every pass finds nothing.
  const c = {
    streams: { find: () => ({ limit: () => ({ toArray: () => (passes++, Promise.resolve([])) }) }) },
  } as unknown as PushDeps['c'];
  const stop = new AbortController();
  const worker = startPushWorker(
    {
      c,
      logger: createLogger({ service: 'test', level: 'silent' }),
      policy: {},
      timeoutMs: 1000,
      maxBackoffSeconds: 1,
    },
    1,
    stop.signal,
  );
  while (passes < 30) await new Promise((r) => setTimeout(r, 2));
  expect(getEventListeners(stop.signal, 'abort').length).toBeLessThanOrEqual(1);
  stop.abort();
  await worker.done;
  expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
});
