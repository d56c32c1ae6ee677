// @ts-check
/**
 * Tenant A's flood, in a process of its own (so that its load generator does not slow the measurement of B's
 * calls in the parent): GET {url} with a bearer token over `connections` connections for `seconds`, then one JSON
 * line with what autocannon saw and the CPU milliseconds this process used.
 *
 *   node bench/custom-claims-fairness/flood.js <url> <token> <connections> <seconds>
 */
const autocannon = require('autocannon');

const [url, token, connections, seconds] = process.argv.slice(2);
/** CPU this process used (user + system, ms): the flood's own share of the machine. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return Math.round((u.user + u.system) / 1000);
};
autocannon(
  {
    url,
    method: 'GET',
    connections: Number(connections),
    duration: Number(seconds),
    headers: { authorization: `Bearer ${token}` },
  },
  (err, r) => {
    if (err) {
      process.stderr.write(`${err.stack}\n`);
      process.exit(1);
    }
    process.stdout.write(
      `${JSON.stringify({ requests: r.requests.total, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuMs: cpuMs() })}\n`,
    );
  },
);
