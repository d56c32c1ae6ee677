import { nheTokenRefusedSchema, type NheTokenRefused } from '@idp/events';
import { refusalPublisher, type RefusalDropReason } from './refusal-publisher';

const facts = {
  tenantId: 7,
  outcome: 'denied' as const,
  error: 'invalid_scope',
  gate: 'scope-exceeds-policy',
  flow: 'token-exchange' as const,
  clientId: 'demo-app',
  nheIdentifier: 'orders-agent',
};

describe('refusalPublisher', () => {
  it('hands a valid event to publish and returns at once, without waiting for the ack', () => {
    const sent: NheTokenRefused[] = [];
    const publish = refusalPublisher({
      publish: (e) => (sent.push(e), new Promise<void>(() => undefined)),
      maxInFlight: 4,
      onDropped: () => undefined,
    });
    publish(facts, new Date('2026-03-01T10:00:00Z'));
    expect(sent).toHaveLength(1);
    expect(nheTokenRefusedSchema.parse(sent[0])).toEqual({
      type: 'nhe.token.refused',
      id: sent[0]!.id,
      tenantId: 7,
      outcome: 'denied',
      error: 'invalid_scope',
      gate: 'scope-exceeds-policy',
      flow: 'token-exchange',
      clientId: 'demo-app',
      nheIdentifier: 'orders-agent',
      at: '2026-03-01T10:00:00.000Z',
    });
  });

  it('drops past maxInFlight (queue-full) and counts a failed publish, then publishes again once acks come', async () => {
    const drops: RefusalDropReason[] = [];
    const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
    const publish = refusalPublisher({
      publish: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
      maxInFlight: 2,
      onDropped: (r) => drops.push(r),
    });
    publish(facts);
    publish(facts);
    publish(facts);
    expect([pending.length, drops]).toEqual([2, ['queue-full']]);
    pending[0]!.resolve();
    pending[1]!.reject(new Error('no responders'));
    await new Promise((r) => setImmediate(r));
    expect(drops).toEqual(['queue-full', 'publish-failed']);
    publish(facts);
    expect(pending.length).toBe(3);
  });

  it('a publish that throws never reaches the caller', async () => {
    const drops: RefusalDropReason[] = [];
    const publish = refusalPublisher({
      publish: () => {
        throw new Error('closed');
      },
      maxInFlight: 1,
      onDropped: (r) => drops.push(r),
    });
    expect(() => publish(facts)).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(drops).toEqual(['publish-failed']);
    publish(facts);
    await new Promise((r) => setImmediate(r));
    expect(drops).toEqual(['publish-failed', 'publish-failed']);
  });
});
