/**
 * Start-up steps that depend on a JetStream cluster being ready (creating a replicated stream while the cluster is
 * still electing its meta leader answers "timeout" or "no responders") are tried again with a growing pause until
 * `deadlineMs` has passed, instead of failing the process at once: the kubelet would restart it anyway, but only
 * after its own back-off, and a restart loop is noise in an operator's dashboard (found by the HA topology tests).
 */
export interface RetryOptions {
  /** Give up (throw the last error) once this much time has passed since the first try. */
  deadlineMs: number;
  /** First pause; doubled after each failure up to `maxPauseMs`. */
  firstPauseMs?: number;
  maxPauseMs?: number;
  onRetry?: (err: unknown, attempt: number, pauseMs: number) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export async function retryUntilDeadline<T>(step: () => Promise<T>, o: RetryOptions): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  let pause = o.firstPauseMs ?? 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      const left = o.deadlineMs - (now() - started);
      if (left <= 0) throw err;
      const wait = Math.min(pause, left);
      o.onRetry?.(err, attempt, wait);
      await sleep(wait);
      pause = Math.min(pause * 2, o.maxPauseMs ?? 5000);
    }
  }
}
