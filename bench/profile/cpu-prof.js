// @ts-check
/**
 * A preload (`NODE_OPTIONS=--require .../bench/profile/cpu-prof.js`) that does what `node --cpu-prof` does, for
 * processes started by someone else: Node 20 refuses `--cpu-prof` in NODE_OPTIONS. It starts V8's sampling profiler
 * through node:inspector at load and writes `<CPU_PROF_DIR>/<pid>.cpuprofile` when the process exits (the services exit
 * on SIGTERM after stopping). CPU_PROF_DIR (default: the working directory), CPU_PROF_INTERVAL in µs (default 1000).
 */
const { Session } = require('node:inspector');
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.env.CPU_PROF_DIR || process.cwd();
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: Number(process.env.CPU_PROF_INTERVAL || 1000) });
session.post('Profiler.start');
process.on('exit', () => {
  // The main thread's session answers synchronously, so this runs to completion inside 'exit'.
  session.post('Profiler.stop', (err, res) => {
    if (err) return;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
  });
});
