/**
 * Issue 20, node loss: the HA topology (3-node JetStream cluster, IDP_AUDIT with 3 replicas, two oidc-core+sidecar
 * replicas, two writers, round-robin router) under a steady token-exchange load; the nats-server leading IDP_AUDIT
 * is SIGKILLed, then started again. Issuing goes on once the leader has moved; exchanges during the election either
 * succeed or get 503 temporarily_unavailable (both counted and printed); every token a client received has exactly
 * one audit row, no row is duplicated (Nats-Msg-Id dedup across the leader change), and the writers' durable
 * consumer resumes on the new leader until nothing is pending.
 *
 * Partition: the stream leader is cut off from the other two (its routes cut; clients can still reach it): the
 * other two keep quorum and elect a leader, the system keeps issuing, and once healed nothing is lost.
 * About 110 s for the file (both tests, ~15 s to start the topology).
 */
import { AUDIT_STREAM, AUDIT_WRITER_DURABLE, connectNats } from '@idp/events';
import { createLogger } from '@idp/logger';
import { startHaHarness, type HaHarness } from '../../src/ha/ha-harness';
import { checkRows, describeLoad, loadWhile, netnsProbe, sleep, streamLeader, undocumentedRefusals, userToken, waitForNewLeader, waitForStreamHealthy } from './helpers';

let h: HaHarness;
let subject: string;
/** Every token received in this file (the tenant's rows are checked against all of them). */
const allIssued: string[] = [];

beforeAll(async () => {
  h = await startHaHarness('ha-nodeloss');
  subject = await userToken(h);
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

test('SIGKILL of the stream leader under load: issuing goes on after the election, every token has exactly one row', async () => {
  const before = await waitForStreamHealthy(h);
  expect(h.nats.nodes.map((n) => n.name)).toContain(before.leader);

  let go = true;
  const live: string[] = [];
  const loading = loadWhile(h, subject, () => go, 6, live);
  await sleep(5000);
  const leader = (await streamLeader(h)).leader;
  const killedAt = Date.now();
  await h.nats.kill(leader, 'SIGKILL');
  // The other two elect a new leader; the sidecars' connections to the killed node reconnect to the others.
  const moved = { leader: await waitForNewLeader(h, leader) };
  const electionMs = Date.now() - killedAt;
  const issuedAtElection = live.length;
  await sleep(6000);
  const issuedWithoutOldLeader = live.length - issuedAtElection;
  await h.nats.start(leader);
  const healed = await waitForStreamHealthy(h, 30_000);
  await sleep(5000);
  go = false;
  const load = await loading;

  console.log(
    [
      describeLoad('node loss', load),
      `stream leader ${leader} killed; new leader ${moved.leader} after ${electionMs} ms; after restart leader ${healed.leader}, replicas ${JSON.stringify(healed.replicas)}`,
      `tokens issued in the 6 s after the election, the old leader still down: ${issuedWithoutOldLeader}`,
    ].join('\n'),
  );
  expect(moved.leader).not.toBe(leader);
  expect(issuedWithoutOldLeader).toBeGreaterThan(10); // issuing went on without the old leader
  expect(undocumentedRefusals(load)).toEqual([]);
  expect(load.issued.length).toBeGreaterThan(50);

  allIssued.push(...load.issued);
  const rows = await checkRows(h, allIssued);
  console.log(`audit: ${rows.rows} rows for ${load.issued.length} tokens received; ${rows.undelivered} rows of events stored whose 503 answer handed out no token; ${rows.duplicates} duplicates`);
  expect(rows.missing).toEqual([]);
  expect(rows.duplicates).toBe(0);

  // The writers' shared durable consumer resumed on the new leader: nothing left pending or unacknowledged.
  const nats = await connectNats(h.nats.url, createLogger({ service: 'e2e', level: 'silent' }), 'e2e-ha');
  try {
    const jsm = await nats.js.jetstreamManager();
    const deadline = Date.now() + 20_000;
    let info = await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
    while ((info.num_pending > 0 || info.num_ack_pending > 0) && Date.now() < deadline) {
      await sleep(500);
      info = await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
    }
    expect({ pending: info.num_pending, ackPending: info.num_ack_pending }).toEqual({ pending: 0, ackPending: 0 });
    expect(info.cluster?.leader).toBeTruthy();
  } finally {
    await nats.close();
  }
}, 150_000);

test('partition: the stream leader cut off from the other two under load; quorum kept, issuing goes on, healed with nothing lost', async () => {
  await waitForStreamHealthy(h);
  const before = await h.db.models.TokenAudit.countDocuments({ tenantId: h.tenant.tenantId });
  const netns = netnsProbe();
  // The cluster runs on this namespace's loopback (as every topology here does), so the cut is made on the NATS
  // routes: the node is restarted with no routes and a route port nobody dials. Clients keep reaching it.
  console.log(
    `partition method: routes cut (node restarted without routes). Network namespaces ${netns.available ? 'can be created here, but the cluster is not built across them' : `cannot be created here (${netns.detail})`}.`,
  );

  let go = true;
  const live: string[] = [];
  const loading = loadWhile(h, subject, () => go, 6, live);
  await sleep(3000);
  const cut = (await streamLeader(h)).leader;
  const majority = h.nats.nodes.filter((n) => n.name !== cut).map((n) => n.url).join(',');
  await h.nats.start(cut, { routes: false });
  const leaderOfMajority = await waitForNewLeader(h, cut, 30_000, majority);
  // The cut-off node answers clients but has no quorum: JetStream's API does not answer through it.
  const isolatedAnswers = await streamLeader(h, h.nats.nodes.find((n) => n.name === cut)!.url).then(
    () => true,
    () => false,
  );
  const atCut = live.length;
  await sleep(8000);
  const issuedDuringPartition = live.length - atCut;
  await h.nats.start(cut); // healed: routes back
  const healed = await waitForStreamHealthy(h, 45_000);
  await sleep(3000);
  go = false;
  const load = await loading;
  console.log(
    [
      describeLoad('partition', load),
      `${cut} cut off; the other two elected ${leaderOfMajority}; JetStream through the cut-off node: ${isolatedAnswers ? 'answered' : 'no answer (no quorum)'}`,
      `tokens issued during the 8 s partition: ${issuedDuringPartition}; healed: leader ${healed.leader}, replicas ${JSON.stringify(healed.replicas)}`,
    ].join('\n'),
  );
  expect(leaderOfMajority).not.toBe(cut);
  expect(isolatedAnswers).toBe(false);
  expect(issuedDuringPartition).toBeGreaterThan(10);
  expect(undocumentedRefusals(load)).toEqual([]);

  allIssued.push(...load.issued);
  const rows = await checkRows(h, allIssued);
  console.log(`audit: ${rows.rows - before} new rows for ${load.issued.length} tokens received; ${rows.undelivered} undelivered; ${rows.duplicates} duplicates`);
  expect(rows.missing).toEqual([]);
  expect(rows.duplicates).toBe(0);
}, 150_000);
