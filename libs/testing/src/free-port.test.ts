import { connect, createServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { FETCH_BLOCKED_PORTS, freePort } from './infra';

const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test("ports come from below the ephemeral range, from this worker's slice, never twice, and can be bound", async () => {
  const ports: number[] = [];
  for (let i = 0; i < 40; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
  for (const p of ports) expect(p >= 10_000 && p < low).toBe(true);
  const size = Math.floor((low - 10_000) / 8);
  const slice = (Number(process.env.JEST_WORKER_ID ?? '1') - 1) % 8;
  for (const p of ports) expect(Math.floor((p - 10_000) / size)).toBe(slice);
  const servers: Server[] = [];
  try {
    for (const p of ports)
      servers.push(
        await new Promise<Server>((res, rej) => {
          const s = createServer().once('error', rej);
          s.listen(p, '127.0.0.1', () => res(s));
        }),
      );
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
});

test('outgoing connections never take such a port: their local ports are in the ephemeral range', async () => {
  const server = createServer((c) => c.end()).listen(await freePort(), '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as { port: number };
  try {
    for (let i = 0; i < 20; i++) {
      const local = await new Promise<number>((res, rej) => {
        const c = connect(port, '127.0.0.1', () => {
          res(c.localPort!);
          c.destroy();
        }).once('error', rej);
      });
      expect(local).toBeGreaterThanOrEqual(low);
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('never a port that fetch refuses ("bad port"), such as 10080 in the first slice', async () => {
  const size = Math.floor((low - 10_000) / 8);
  const worker = process.env.JEST_WORKER_ID;
  process.env.JEST_WORKER_ID = '1';
  // The first draw lands on 10080; later draws are random again.
  const random = jest.spyOn(Math, 'random').mockReturnValueOnce((10_080 - 10_000 + 0.5) / size);
  try {
    const port = await freePort();
    expect(random).toHaveBeenCalled();
    expect(port).not.toBe(10_080);
    expect(FETCH_BLOCKED_PORTS.has(port)).toBe(false);
  } finally {
    random.mockRestore();
    if (worker === undefined) delete process.env.JEST_WORKER_ID;
    else process.env.JEST_WORKER_ID = worker;
  }
  // fetch itself refuses it, which is why.
  const refused: unknown = await fetch('http://127.0.0.1:10080/').catch((err: unknown) => err);
  expect(refused).toHaveProperty('cause.message', 'bad port');
});
