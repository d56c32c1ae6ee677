/**
 * GET /tenants/{tenantId}/clients/{clientId}/custom-claims-script/state: the circuit-breaker state
 * of a client's customizeUserInfoClaims script, as oidc-core's sandbox records it. Here oidc-core's own runner
 * (sandbox, breaker, state writer) runs the looping script against the same database until its breaker opens;
 * the management API then shows it open with the last error, only to the tenant's admins, and a new script or
 * the client's deletion leaves nothing of it. Every response is validated against the OpenAPI document.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { CustomClaimsSandbox } from '../../oidc-core/src/domain/custom-claims-sandbox';
import { CustomClaimsRunner } from '../../oidc-core/src/provider/claims-custom';
import { ScriptStateWriter } from '../../oidc-core/src/provider/custom-claims-state';
import { startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let runner: CustomClaimsRunner;
let writer: ScriptStateWriter;

beforeAll(async () => {
  h = await startHarness('mgmtscriptstate');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  writer = new ScriptStateWriter(h.db.models, { minIntervalMs: 100 });
  runner = new CustomClaimsRunner({
    sandbox: new CustomClaimsSandbox({ size: 2 }),
    state: writer,
    breaker: { failureThreshold: 3, openMs: 60_000 },
  });
});
// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (runner as typeof runner | undefined)?.close();
  await (h as typeof h | undefined)?.close();
});

const state = (tenantId: number, clientId: string) =>
  `/auth/admin/tenants/${tenantId}/clients/${clientId}/custom-claims-script/state`;
const LOOP = 'while (true) {}';

async function callUserInfo(clientId: string, script: string) {
  return runner.resolve({
    tenantId: A,
    tenantName: 'a',
    clientId,
    sub: 'u1',
    scopes: ['openid', 'custom_claims'],
    claims: {},
    mapped: { dept: 'ops' },
    script,
  });
}

async function createClient(clientId: string, script?: string) {
  const res = await h.call('post', `/auth/admin/tenants/${A}/clients`, adminA, {
    clientId,
    name: clientId,
    grantTypes: ['authorization_code'],
    redirectUris: ['https://app.example/cb'],
    ...(script ? { config: { customizeUserInfoClaims: script } } : {}),
  });
  expect(res.status).toBe(201);
}

describe('custom-claims script state', () => {
  it('is closed for a client whose script never failed, and for a client without a script', async () => {
    await createClient('scripted', 'return { ok: true };');
    await createClient('plain');
    await expect(callUserInfo('scripted', 'return { ok: true };')).resolves.toEqual({ ok: true });
    const res = await h.call('get', state(A, 'scripted'), adminA);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clientId: 'scripted', hasScript: true, state: 'closed', consecutiveFailures: 0 });
    const plain = await h.call('get', state(A, 'plain'), adminA);
    expect(plain.body).toEqual({ clientId: 'plain', hasScript: false, state: 'closed', consecutiveFailures: 0 });
  });

  it('shows the breaker open, with the last error and when it opened, after repeated timeouts', async () => {
    await createClient('looping', LOOP);
    const before = Date.now();
    for (let i = 0; i < 3; i++) await expect(callUserInfo('looping', LOOP)).resolves.toBeUndefined();
    // Skipped now: the script does not run, so this call is immediate.
    const started = performance.now();
    await expect(callUserInfo('looping', LOOP)).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(20);
    await writer.idle();

    const res = await h.call('get', state(A, 'looping'), adminA);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      clientId: 'looping',
      hasScript: true,
      state: 'open',
      consecutiveFailures: 3,
      lastError: { reason: 'timeout' },
    });
    expect(res.body.lastError.message).toMatch(/exceeded 50 ms/);
    const openedAt = Date.parse(res.body.openedAt);
    expect(openedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(res.body.retryAt) - openedAt).toBe(60_000);
  });

  it('is readable only with auth.clients.list, and only by the tenant', async () => {
    expect((await h.call('get', state(A, 'looping'), await h.token(A, ['auth.clients.update']))).status).toBe(403);
    expect((await h.call('get', state(A, 'looping'), await h.token(B, [...MANAGEMENT_SCOPES]))).status).toBe(404);
    expect((await h.call('get', state(B, 'looping'), await h.token(B, [...MANAGEMENT_SCOPES]))).status).toBe(404);
    expect((await h.call('get', state(A, 'nobody-here'), adminA)).status).toBe(404);
    // Read-only: no other method.
    expect((await h.call('delete', state(A, 'looping'), adminA)).status).toBe(405);
  });

  it('starts closed again when the script is replaced', async () => {
    const fixed = 'return { fixed: true };';
    expect(
      (
        await h.call('patch', `/auth/admin/tenants/${A}/clients/looping`, adminA, {
          config: { customizeUserInfoClaims: fixed },
        })
      ).status,
    ).toBe(200);
    expect((await h.call('get', state(A, 'looping'), adminA)).body).toEqual({
      clientId: 'looping',
      hasScript: true,
      state: 'closed',
      consecutiveFailures: 0,
    });
    // oidc-core's breaker agrees: the new script runs.
    await expect(callUserInfo('looping', fixed)).resolves.toEqual({ fixed: true });
  });

  it("goes with the client: a deleted client's record is removed", async () => {
    await createClient('doomed', LOOP);
    await callUserInfo('doomed', LOOP);
    await writer.idle();
    expect(await h.db.models.CustomClaimsScriptState.countDocuments({ tenantId: A, clientId: 'doomed' })).toBe(1);
    expect((await h.call('delete', `/auth/admin/tenants/${A}/clients/doomed`, adminA)).status).toBe(204);
    expect(await h.db.models.CustomClaimsScriptState.countDocuments({ tenantId: A, clientId: 'doomed' })).toBe(0);
  });
});
