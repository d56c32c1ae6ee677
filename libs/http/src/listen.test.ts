import { Agent, request } from 'node:http';
import { createLogger } from '@idp/logger';
import { listen } from './listen';

const logger = createLogger({ service: 'test', level: 'silent' });

/** One GET on a keep-alive agent; resolves with the status once the body is read. */
function get(agent: Agent, port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

it('a drain ends once the requests in flight are answered, not when the grace runs out, though their keep-alive connections stay open on the client side', async () => {
  const l = await listen(
    (req, res) => {
      setTimeout(() => res.end('ok'), req.url === '/slow' ? 300 : 0);
    },
    '127.0.0.1',
    0,
    logger,
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    // Keep-alive connections: two idle, one with a request in flight when the drain starts.
    await Promise.all([get(agent, l.port, '/'), get(agent, l.port, '/')]);
    const slow = get(agent, l.port, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    const closed = l.close(5000);
    expect(await slow).toBe(200);
    await closed;
    expect(performance.now() - started).toBeLessThan(2000);
  } finally {
    agent.destroy();
  }
});
