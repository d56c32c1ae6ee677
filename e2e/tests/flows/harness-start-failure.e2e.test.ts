/**
 * A topology that fails to start leaves nothing running: its services, its nats-server and the browser started
 * beside it are stopped, so jest can exit after the failure (a clean-clone run hung after a router port was taken).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePort } from '@idp/testing';
import { launchChromium } from '../../src/clients/browser';
import { startHarness } from '../../src/harness';
import { startAll } from '../../src/start-all';

/** The pids of this process's children that are still alive (zombies excluded). */
function children(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

test('the router port is taken: startHarness rejects, and neither it nor the browser started beside it leaves a process', async () => {
  const port = await freePort();
  const squatter: Server = createServer();
  await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', () => r()));
  const before = children();
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    await expect(
      startAll([startHarness('start-failure', { routerPort: port }), launchChromium().then((b) => (browser = b))]),
    ).rejects.toThrow(/EADDRINUSE/);
    expect(browser).toBeDefined(); // what did start is handed to the caller, which closes it (afterAll)
    await browser!.close();
    const deadline = Date.now() + 10_000;
    while (children().some((pid) => !before.includes(pid)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(children().filter((pid) => !before.includes(pid))).toEqual([]);
  } finally {
    await new Promise((r) => squatter.close(r));
  }
}, 60_000);
