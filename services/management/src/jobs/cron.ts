import { Cron } from 'croner';

/**
 * A schedule is a standard five-field cron expression (minute hour day-of-month month day-of-week), evaluated in
 * UTC: exactly what a Kubernetes CronJob accepts, so the in-process scheduler and the CronJob agree. Seconds
 * fields, @-macros other than the five listed, and nicknames croner alone would accept are refused.
 */
const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']);
const FIELD = /^[0-9A-Za-z*?/,-]+$/;

export function cronProblem(expression: string): string | undefined {
  const expr = expression.trim();
  if (expr.length > 100) return 'must be at most 100 characters';
  if (!MACROS.has(expr)) {
    const fields = expr.split(/\s+/);
    if (fields.length !== 5) return 'must have exactly five fields: minute hour day-of-month month day-of-week';
    if (!fields.every((f) => FIELD.test(f))) return 'contains characters a cron field cannot have';
    if (fields.some((f) => f.includes('?'))) return '"?" is not supported by Kubernetes CronJobs';
  }
  try {
    const job = new Cron(expr, { paused: true, timezone: 'UTC' });
    const next = job.nextRun();
    job.stop();
    if (!next) return 'never fires';
  } catch (err) {
    return (err as Error).message.replace(/^CronPattern: /, '');
  }
  return undefined;
}

/** The next time the schedule fires after `from` (UTC), or null. */
export function nextRunOf(expression: string, from = new Date()): Date | null {
  try {
    const job = new Cron(expression, { paused: true, timezone: 'UTC' });
    const next = job.nextRun(from);
    job.stop();
    return next;
  } catch {
    return null;
  }
}
