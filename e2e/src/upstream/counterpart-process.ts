/**
 * Starts one of the test counterparts (Keycloak, SimpleSAMLphp) through scripts/counterparts.sh for this process
 * alone, when the test command did not start a shared one (a single test file run by hand). The script is the one
 * place that knows how each is launched; this module adds a free port, a bounded wait and a stop on our exit.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot } from '@idp/testing';

export type CounterpartName = 'keycloak' | 'simplesamlphp';

export interface StartedCounterpart {
  /** Base URL, e.g. http://127.0.0.1:23456. */
  url: string;
  /** The script's directory for this instance (pid, log, SimpleSAMLphp's state under ssp/). */
  dir: string;
  /** Stops it (SIGTERM to its process group, SIGKILL after 10 s) and removes its directory. */
  stop: () => Promise<void>;
}

const PORT_ENV: Record<CounterpartName, string> = { keycloak: 'KEYCLOAK_PORT', simplesamlphp: 'SIMPLESAMLPHP_PORT' };

function script(args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [join(repoRoot(), 'scripts', 'counterparts.sh'), ...args],
      { env, timeout: timeoutMs, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`scripts/counterparts.sh ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * Starts `name` on a free loopback port and waits until it serves logins (Keycloak: its `corp` realm is imported),
 * at most `timeoutS` seconds; the error carries the tail of its log.
 */
export async function startCounterpart(name: CounterpartName, timeoutS: number): Promise<StartedCounterpart> {
  const dir = mkdtempSync(join(tmpdir(), `idp-${name}-`));
  const port = await freePort();
  const stop = () => script(['stop', dir], process.env, 30_000).then(() => undefined);
  try {
    // OWNER_PID: the script stops it once this process is gone. A jest test file cannot do that itself: the
    // `process` of its sandbox is not Node's, so its 'exit' listeners never run, and a worker may be killed.
    const env = { ...process.env, [PORT_ENV[name]]: String(port), OWNER_PID: String(process.pid) };
    await script(['start', dir, name], env, 60_000);
    const out = await script(['wait', dir, String(timeoutS)], process.env, (timeoutS + 30) * 1000);
    const url = new RegExp(`^${name.toUpperCase()}_URL=(\\S+)`, 'm').exec(out)?.[1];
    if (url === undefined) throw new Error(`scripts/counterparts.sh wait printed no ${name} URL: ${out}`);
    return { url, dir, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
