import { cronProblem, nextRunOf } from './cron';

test('accepts the five-field expressions a CronJob accepts', () => {
  for (const ok of ['0 3 * * *', '*/15 * * * *', '0 0 1 1 *', '30 2 * * 1-5', '0 4 * * SUN', '@daily', '@hourly'])
    expect([ok, cronProblem(ok)]).toEqual([ok, undefined]);
});

test('refuses anything else with a reason', () => {
  expect(cronProblem('* * * *')).toMatch(/five fields/);
  expect(cronProblem('0 0 3 * * *')).toMatch(/five fields/);
  expect(cronProblem('61 * * * *')).toBeDefined();
  expect(cronProblem('0 25 * * *')).toBeDefined();
  expect(cronProblem('0 3 ? * *')).toMatch(/not supported/);
  expect(cronProblem('0 3 * * *; rm -rf /')).toBeDefined();
  expect(cronProblem('@reboot')).toBeDefined();
  expect(cronProblem('')).toBeDefined();
});

test('next run is computed in UTC', () => {
  expect(nextRunOf('0 3 * * *', new Date('2026-01-01T02:59:00Z'))?.toISOString()).toBe('2026-01-01T03:00:00.000Z');
  expect(nextRunOf('0 3 * * *', new Date('2026-01-01T03:00:00Z'))?.toISOString()).toBe('2026-01-02T03:00:00.000Z');
});
