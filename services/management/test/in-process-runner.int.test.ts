/**
 * The in-process job runner: croner fires the row's schedule and spawns the job program with JOB_TRIGGER; a
 * disabled job is unscheduled; run now spawns at once; close() stops timers and SIGTERMs running children.
 * The program here is a tiny script recording its trigger (the real audit-retention program is run by
 * e2e/tests/audit/jobs.e2e.test.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobDoc } from '@idp/db';
import { createLogger } from '@idp/logger';
import { createInProcessRunner } from '../src/jobs/in-process';
import { counterTickClaim } from '../src/jobs/tick-claim';
import { openTestDatabase } from '@idp/testing';

const dir = mkdtempSync(join(tmpdir(), 'idp-runner-'));
const out = join(dir, 'runs.log');
const script = join(dir, 'job.js');
writeFileSync(
  script,
  `require('fs').appendFileSync(${JSON.stringify(out)}, process.env.JOB_TRIGGER + ' ' + process.env.MONGODB_URI + '\\n');
   process.on('SIGTERM', () => { require('fs').appendFileSync(${JSON.stringify(out)}, 'sigterm\\n'); process.exit(143); });
   if (process.argv.includes('--linger')) setTimeout(() => {}, 60000);`,
);
const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').filter(Boolean) : []);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const job = (o: Partial<JobDoc>): JobDoc => ({
  _id: 'nhe-audit-retention',
  type: 'NHE_AUDIT_RETENTION',
  schedule: '0 3 * * *',
  enabled: true,
  customOptions: {},
  createdAt: new Date(),
  updatedAt: new Date(),
  ...o,
});
const logger = createLogger({ service: 'test', level: 'silent' });

test('schedule fires and spawns the program with JOB_TRIGGER=schedule; disabling unschedules it', async () => {
  const runner = createInProcessRunner({ entryOf: () => script, env: { MONGODB_URI: 'mongodb://db/x' }, logger });
  try {
    // Croner takes a seconds field; the jobs API only lets five-field schedules through (cron.ts).
    await runner.sync(job({ schedule: '* * * * * *' }));
    const deadline = Date.now() + 8000;
    while (lines().length < 2 && Date.now() < deadline) await sleep(100);
    expect(lines().slice(0, 2)).toEqual(['schedule mongodb://db/x', 'schedule mongodb://db/x']);
    await runner.sync(job({ schedule: '* * * * * *', enabled: false }));
    await sleep(300);
    const count = lines().length;
    await sleep(2200);
    expect(lines().length).toBe(count);
  } finally {
    await runner.close();
  }
});

test('two replicas sharing a tick claim run each scheduled tick once', async () => {
  writeFileSync(out, '');
  const db = await openTestDatabase('tickclaim');
  const claim = counterTickClaim(db.models);
  const claimed = new Set<string>();
  const claimTick = async (key: string) => {
    const won = await claim(key);
    if (won) claimed.add(key);
    return won;
  };
  const replicas = [1, 2].map(() =>
    createInProcessRunner({ entryOf: () => script, env: { MONGODB_URI: 'mongodb://db/z' }, logger, claimTick }),
  );
  try {
    for (const r of replicas) await r.sync(job({ schedule: '* * * * * *' }));
    await sleep(3200);
    // Unschedule, then let the runs already started finish on their own (close() would SIGTERM them).
    for (const r of replicas) await r.sync(job({ schedule: '* * * * * *', enabled: false }));
    const deadline = Date.now() + 15_000;
    // A tick being claimed at that moment still spawns: settle, then wait for every child to exit.
    await sleep(500);
    while (replicas.some((r) => r.running() > 0) && Date.now() < deadline) await sleep(100);
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
  }
  await sleep(300);
  await db.connection.dropDatabase().catch(() => undefined);
  await db.close();
  expect(claimed.size).toBeLessThanOrEqual(5); // one claim per second of schedule, not one per replica
  expect(claimed.size).toBeGreaterThanOrEqual(2);
  expect([...claimed].every((k) => /^nhe-audit-retention@\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/.test(k))).toBe(true);
  expect(lines().filter((l) => l.startsWith('schedule'))).toHaveLength(claimed.size);
});

test('run now spawns at once (manual); close() sends SIGTERM to a running child and waits for it', async () => {
  writeFileSync(out, '');
  const runner = createInProcessRunner({
    entryOf: () => script,
    env: { MONGODB_URI: 'mongodb://db/y' },
    logger,
    args: ['--linger'],
  });
  const started = await runner.runNow(job({ enabled: false }));
  expect(started).toEqual({ backend: 'in-process', pid: expect.any(Number) });
  const deadline = Date.now() + 5000;
  while (!lines().length && Date.now() < deadline) await sleep(50);
  expect(runner.running()).toBe(1);
  await runner.close();
  expect(lines()).toEqual(['manual mongodb://db/y', 'sigterm']);
  expect(runner.running()).toBe(0);
});
