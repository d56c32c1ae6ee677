// @ts-check
/**
 * How the benchmarks' reference processes (the ceilings and floors) serve: node:http on a free loopback port, the
 * port printed as the first stdout line (bench/common.js startReference reads it), closed on SIGTERM; and `run`,
 * how every bench script runs its async main.
 */
const { createServer } = require('node:http');

/** @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown} handler */
function serve(handler) {
  const server = createServer((req, res) => void handler(req, res));
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

/** Runs an async main; a failure is printed and exits 1. @param {() => Promise<void>} main */
function run(main) {
  main().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

module.exports = { serve, run };
