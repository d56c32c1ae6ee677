/**
 * Rolling restart of the HA topology: under a steady token-exchange load through the round-robin router, every oidc replica
 * (oidc-core and its sidecar) and then every audit-writer is restarted one at a time as a rolling update does it:
 * taken out of the endpoints, SIGTERM, drained, started, ready, back in. Zero failed requests other than the
 * documented 503 temporarily_unavailable, zero lost audit rows, zero duplicate rows. About 60 s.
 */
import { startHaHarness, type HaHarness } from '../../src/ha/ha-harness';
import { HA_WORKLOADS } from '../../src/ha/ha-topology';
import { checkRows, describeLoad, loadWhile, sleep, undocumentedRefusals, userToken } from './helpers';
import { ifAssigned } from '../../src/if-assigned';

let h: HaHarness;
let subject: string;

beforeAll(async () => {
  h = await startHaHarness('ha-rolling');
  subject = await userToken(h);
}, 180_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

test('every oidc-core/sidecar pair and every writer restarted one at a time under load: no failure, no lost or duplicate row', async () => {
  let go = true;
  const live: string[] = [];
  const loading = loadWhile(h, subject, () => go, 24, live);
  await sleep(3000);
  const restarted: string[] = [];
  for (const workload of ['oidc', 'audit-writer'] as const) {
    for (let i = 0; i < HA_WORKLOADS[workload].replicas; i += 1) {
      const r = h.topology.replica(workload, i);
      const pidsBefore = Object.values(r.processes).map((p) => p!.pid);
      const exits = Object.values(r.processes).map(
        (p) => new Promise<number | null>((res) => p!.once('exit', (code) => res(code))),
      );
      const before = live.length;
      await h.topology.stopReplica(workload, i);
      // A clean drain: every container exited 0 on SIGTERM.
      expect(await Promise.all(exits)).toEqual(pidsBefore.map(() => 0));
      await sleep(1500); // the other replica carries the load alone meanwhile
      const whileDown = live.length - before;
      await h.topology.startReplica(workload, i);
      expect(Object.values(r.processes).map((p) => p!.pid)).not.toEqual(pidsBefore);
      restarted.push(`${r.name} (${whileDown} tokens issued while it was down)`);
      if (workload === 'oidc') expect(whileDown).toBeGreaterThan(0);
      await sleep(1500);
    }
  }
  go = false;
  const load = await loading;
  console.log(
    `${describeLoad('rolling restart', load)}\nrestarted one at a time: ${restarted.join(', ')}\ncontainers restarted after exiting before ready at start-up: ${JSON.stringify(h.topology.crashRestarts)}\nrouter: ${h.topology.router.stats.retriedRefused} re-sent after a refused connection, ${h.topology.router.stats.badGateway} bad gateway`,
  );
  expect(undocumentedRefusals(load)).toEqual([]);
  expect(h.topology.router.stats.badGateway).toBe(0);
  expect(load.issued.length).toBeGreaterThan(50);
  // Both oidc replicas served requests after their restart.
  const served = [0, 1].map(
    (i) => h.topology.router.stats.forwarded.get(h.topology.replica('oidc', i).ports['oidc-core']!) ?? 0,
  );
  expect(served.every((n) => n > 0)).toBe(true);

  const rows = await checkRows(h, load.issued);
  console.log(
    `audit: ${rows.rows} rows for ${load.issued.length} tokens received; ${rows.undelivered} undelivered; ${rows.duplicates} duplicates`,
  );
  expect(rows.missing).toEqual([]);
  expect(rows.duplicates).toBe(0);
}, 150_000);
