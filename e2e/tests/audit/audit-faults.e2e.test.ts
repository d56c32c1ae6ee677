/**
 * Fault tests of the audit pipeline, every service a real process, real NATS (file storage) and real store:
 * the writer killed (SIGKILL) while tokens are being issued, nats-server restarted mid-stream, and a malformed
 * message in the stream. After each: every issued token has exactly one audit row, and the chain verifies.
 */
import { randomUUID } from 'node:crypto';
import { verifyAuditChain } from '@idp/db';
import {
  AUDIT_DEAD_LETTER_SUBJECT,
  AUDIT_STREAM,
  auditSubject,
  connectNats,
  publishAndAwaitAck,
  type NatsHandle,
} from '@idp/events';
import { createLogger } from '@idp/logger';
import { startHarness, type Harness } from '../../src/harness';
import { issueWhile, sleep, userToken, waitForRows } from './helpers';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let subject: string;
const logger = createLogger({ service: 'e2e', level: 'silent' });

beforeAll(async () => {
  h = await startHarness('auditfaults');
  subject = await userToken(h);
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

/** Every issued jti has exactly one row; no row exists for a token that was not issued. */
async function expectRowsMatchIssued(allIssued: string[]): Promise<void> {
  const jtis = await waitForRows(h, allIssued.length);
  expect(jtis.length).toBe(allIssued.length);
  expect(new Set(jtis).size).toBe(jtis.length);
  expect([...jtis].sort()).toEqual([...allIssued].sort());
  const chain = await verifyAuditChain(h.db.models, h.tenant.tenantId);
  expect(chain).toMatchObject({ valid: true, checked: allIssued.length, problems: [] });
}

const issuedSoFar: string[] = [];

test('writer killed with SIGKILL while tokens are issued, then restarted: issued tokens = audit rows, no duplicates', async () => {
  let go = true;
  const live: string[] = [];
  const issuing = issueWhile(h, subject, () => go, 4, live);
  await sleep(1500);
  const writer = h.topology.services['audit-writer'].process;
  const exited = new Promise((r) => writer.once('exit', r));
  writer.kill('SIGKILL');
  await exited;
  await sleep(1500); // tokens keep being issued: JetStream holds their events
  const whileDown = live.length;
  const rowsWhileDown = await h.db.models.TokenAudit.countDocuments({ tenantId: h.tenant.tenantId });
  expect(rowsWhileDown).toBeLessThan(issuedSoFar.length + whileDown); // a real backlog exists
  await h.topology.startService('audit-writer');
  await sleep(1000);
  go = false;
  const { issued, refused } = await issuing;
  expect(refused).toEqual([]); // the writer is not on the issuing path
  expect(issued.length).toBeGreaterThan(20);
  issuedSoFar.push(...issued);
  await expectRowsMatchIssued(issuedSoFar);
}, 90_000);

test('nats-server restarted mid-stream (file storage): every issued token still has exactly one row', async () => {
  let go = true;
  const issuing = issueWhile(h, subject, () => go);
  await sleep(1500);
  await h.nats.restart();
  await sleep(2500);
  go = false;
  const { issued, refused } = await issuing;
  // While NATS is down the sidecar answers 503 and issues nothing (no token without its audit event).
  expect(refused.every((s) => s === 503)).toBe(true);
  expect(issued.length).toBeGreaterThan(10);
  issuedSoFar.push(...issued);
  await expectRowsMatchIssued(issuedSoFar);
}, 90_000);

test('a malformed message lands in the dead-letter subject and the writer keeps going', async () => {
  let nats: NatsHandle | undefined;
  try {
    nats = await connectNats(h.nats.url, logger, 'e2e');
    const marker = `malformed-${randomUUID()}`;
    const bad = JSON.stringify({ type: 'nhe.token.issued', jti: marker, tenantId: h.tenant.tenantId });
    await nats.js.publish(auditSubject(h.tenant.tenantId), bad, { msgID: marker });
    // A valid event after it, published at the NATS level, still gets its row.
    const good = {
      type: 'nhe.token.issued',
      jti: `direct-${randomUUID()}`,
      tenantId: h.tenant.tenantId,
      userId: h.tenant.user.id,
      nheId: h.tenant.nhe.id,
      nheIdentifier: h.tenant.nhe.identifier,
      clientId: h.tenant.client.clientId,
      clientNumericId: h.tenant.client.numericId,
      resourceServer: h.tenant.resource,
      scopes: ['orders:read'],
      ttl: 300,
      sourceIp: '198.51.100.1',
      issuedAt: new Date().toISOString(),
    };
    await publishAndAwaitAck(nats.js, auditSubject(h.tenant.tenantId), good, good.jti);
    issuedSoFar.push(good.jti);
    await expectRowsMatchIssued(issuedSoFar);

    const deadline = Date.now() + 15_000;
    let dead: { data: string; reason?: string } | undefined;
    const jsm = await nats.js.jetstreamManager();
    while (!dead && Date.now() < deadline) {
      const last = await jsm.streams
        .getMessage(AUDIT_STREAM, { last_by_subj: AUDIT_DEAD_LETTER_SUBJECT })
        .catch(() => null);
      if (last && last.string().includes(marker)) dead = { data: last.string(), reason: last.header.get('Idp-Reason') };
      else await sleep(200);
    }
    expect(dead?.data).toBe(bad);
    expect(dead?.reason).toMatch(/userId/);
    expect(await h.db.models.TokenAudit.countDocuments({ jti: marker })).toBe(0);

    // And the writer still writes tokens issued through the stack.
    let go = true;
    const issuing = issueWhile(h, subject, () => go, 2);
    await sleep(500);
    go = false;
    const { issued } = await issuing;
    issuedSoFar.push(...issued);
    await expectRowsMatchIssued(issuedSoFar);
  } finally {
    await nats?.close();
  }
}, 60_000);
