import type { Models } from '@idp/db';
import { ScriptStateWriter, scriptSha256 } from './custom-claims-state';

/** A stand-in for the model that records each update and answers after `delayMs`. */
function fakeModel(delayMs = 0) {
  const updates: Array<{ filter: unknown; update: { $set: Record<string, unknown> } }> = [];
  const model = {
    updateOne: (filter: unknown, update: { $set: Record<string, unknown> }) => {
      updates.push({ filter, update });
      return { catch: (f: (e: unknown) => unknown) => new Promise((r) => setTimeout(r, delayMs)).catch(f) };
    },
  };
  return { models: { CustomClaimsScriptState: model } as unknown as Pick<Models, 'CustomClaimsScriptState'>, updates };
}

const failure = (n: number) => ({
  state: 'closed' as const,
  consecutiveFailures: n,
  lastError: { reason: 'timeout', message: 'script exceeded 50 ms', at: 1000 + n },
});

describe('ScriptStateWriter', () => {
  it('writes a transition at once, with the script hash and dates', async () => {
    const { models, updates } = fakeModel();
    const w = new ScriptStateWriter(models, { minIntervalMs: 60_000 });
    w.report({
      tenantId: 7,
      clientId: 'app',
      script: 'while(true){}',
      change: 'opened',
      snapshot: {
        state: 'open',
        consecutiveFailures: 5,
        openedAt: 1000,
        retryAt: 31_000,
        lastError: failure(5).lastError,
      },
    });
    await w.idle();
    expect(updates).toHaveLength(1);
    expect(updates[0]!.filter).toEqual({ tenantId: 7, clientId: 'app' });
    expect(updates[0]!.update.$set).toMatchObject({
      scriptSha256: scriptSha256('while(true){}'),
      state: 'open',
      consecutiveFailures: 5,
      openedAt: new Date(1000),
      retryAt: new Date(31_000),
    });
  });

  it('coalesces failures: at most one write per interval per script, and the last one lands', async () => {
    const { models, updates } = fakeModel();
    const w = new ScriptStateWriter(models, { minIntervalMs: 150 });
    for (let n = 1; n <= 50; n++)
      w.report({ tenantId: 7, clientId: 'app', script: 's', change: 'failure', snapshot: failure(n) });
    await w.idle();
    expect(updates).toHaveLength(2);
    expect(updates.map((u) => u.update.$set.consecutiveFailures)).toEqual([1, 50]);
    // Another script is not held back by the first one's interval.
    w.report({ tenantId: 7, clientId: 'other', script: 's', change: 'failure', snapshot: failure(1) });
    await w.idle();
    expect(updates).toHaveLength(3);
  });

  it('keeps one write in flight per script; a transition meanwhile is written right after', async () => {
    const { models, updates } = fakeModel(50);
    const w = new ScriptStateWriter(models, { minIntervalMs: 60_000 });
    w.report({
      tenantId: 7,
      clientId: 'app',
      script: 's',
      change: 'opened',
      snapshot: { state: 'open', consecutiveFailures: 1 },
    });
    w.report({
      tenantId: 7,
      clientId: 'app',
      script: 's',
      change: 'half_opened',
      snapshot: { state: 'half_open', consecutiveFailures: 1 },
    });
    w.report({
      tenantId: 7,
      clientId: 'app',
      script: 's',
      change: 'closed',
      snapshot: { state: 'closed', consecutiveFailures: 0 },
    });
    expect(updates).toHaveLength(1);
    await w.idle();
    expect(updates.map((u) => u.update.$set.state)).toEqual(['open', 'closed']);
  });
});
