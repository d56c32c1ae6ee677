import { retryUntilDeadline } from './startup-retry';

function clock() {
  let t = 0;
  return {
    now: () => t,
    sleep: (ms: number) => {
      t += ms;
      return Promise.resolve();
    },
    elapsed: () => t,
  };
}

it('tries again after a failure, with growing pauses, and returns the first success', async () => {
  const c = clock();
  const pauses: number[] = [];
  let calls = 0;
  const result = await retryUntilDeadline(
    () => {
      calls++;
      if (calls < 4) return Promise.reject(new Error('timeout'));
      return Promise.resolve('feed');
    },
    {
      deadlineMs: 30_000,
      firstPauseMs: 100,
      maxPauseMs: 300,
      now: c.now,
      sleep: c.sleep,
      onRetry: (_e, _a, ms) => pauses.push(ms),
    },
  );
  expect(result).toBe('feed');
  expect(calls).toBe(4);
  expect(pauses).toEqual([100, 200, 300]);
});

it('throws the last error once the deadline has passed, never waiting beyond it', async () => {
  const c = clock();
  let calls = 0;
  await expect(
    retryUntilDeadline(
      () => {
        calls++;
        return Promise.reject(new Error(`timeout ${calls}`));
      },
      { deadlineMs: 1000, firstPauseMs: 400, now: c.now, sleep: c.sleep },
    ),
  ).rejects.toThrow(/timeout \d/);
  expect(c.elapsed()).toBe(1000);
  expect(calls).toBe(3); // at 0, 400 and 1000 (the second pause cut to what was left), then the deadline: the last error
});
