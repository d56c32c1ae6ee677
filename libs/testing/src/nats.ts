import { startNatsServer, type RunningServer } from './infra';

/** NATS_URL when given (shared server), else a nats-server of this test file's own. */
export async function testNats(): Promise<{ url: string; server?: RunningServer }> {
  if (process.env.NATS_URL) return { url: process.env.NATS_URL };
  const server = await startNatsServer();
  return { url: server.url, server };
}
