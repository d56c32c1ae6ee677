// @ts-check
/**
 * Summarises V8 .cpuprofile files (node --cpu-prof): self time per group (HTTP parsing, JSON, jose/crypto,
 * mongoose/driver, NATS client, GC, oidc-provider, express/helmet, ...) and the top functions by self time.
 *
 *   node bench/profile/summarize.js FILE.cpuprofile [...] [--from US --to US] [--requests N] [--top 25] [--json]
 *
 * --from/--to: a window in microseconds of the monotonic clock (the clock of the profile's startTime and of
 *   `process.hrtime.bigint() / 1000n` in any process of the machine): only samples inside it count, so a run can
 *   leave out start-up, warm-up and shutdown (bench/profile/run.js passes the measured window).
 * --requests: requests served in the window; self time is then also printed in CPU-ms per request.
 * --weight samples|time: samples (default) weighs every sample alike (the nominal interval), which follows CPU time
 *   even when the process shares its CPU; time weighs each by the wall time to the next sample, as DevTools does.
 * Several files (one process's profiles, or several workers) are summed. "(idle)" samples are left out of the total.
 */
const { readFileSync } = require('node:fs');

/**
 * The groups, first match wins. Each test sees the frame's url (node:..., file path, or '' for builtins/native) and
 * function name.
 * @type {Array<[string, (url: string, fn: string) => boolean]>}
 */
const GROUPS = [
  ['GC', (u, f) => f === '(garbage collector)'],
  ['(program): native, outside JS', (u, f) => f === '(program)'],
  // V8's JSON builtins carry no url; another url-less builtin named parse/stringify would land here too.
  [
    'JSON parse/stringify',
    (u, f) => u === '' && /^(parse|stringify|JSON\.parse|JSON\.stringify|SerializeJSON.*|JsonParse.*)$/.test(f),
  ],
  ['jose (JWT sign/verify, JWK import)', (u) => /node_modules\/jose\//.test(u)],
  ['node:crypto (sign/verify, hashes, HMAC, random)', (u) => /^node:(internal\/)?crypto/.test(u)],
  [
    'oidc-provider + koa',
    (u) =>
      /node_modules\/(oidc-provider|koa[^/]*|@koa|koa-compose|http-errors|statuses|raw-body|content-type|iconv-lite|jsesc|eta|quick-lru|oidc-token-hash|@panva)\//.test(
        u,
      ),
  ],
  [
    'mongoose / mongodb driver / bson',
    (u) =>
      /node_modules\/(mongoose|mongodb|bson|mquery|kareem|sift|mpath|@mongodb-js|mongodb-connection-string-url)\//.test(
        u,
      ),
  ],
  ['NATS client', (u) => /node_modules\/(nats|@nats-io)\//.test(u)],
  [
    'express / helmet / middleware',
    (u) =>
      /node_modules\/(express|router|body-parser|helmet|finalhandler|send|serve-static|on-finished|on-headers|parseurl|path-to-regexp|qs|type-is|accepts|negotiator|mime-types|mime-db|content-disposition|cookie|cookie-signature|depd|vary|proxy-addr|forwarded|ipaddr\.js|fresh|etag|range-parser|merge-descriptors|methods|utils-merge|encodeurl|escape-html|array-flatten|setprototypeof|destroy|ee-first|unpipe|bytes)\//.test(
        u,
      ),
  ],
  [
    'pino / logging',
    (u) =>
      /node_modules\/(pino[^/]*|sonic-boom|thread-stream|fast-redact|@pinojs|quick-format-unescaped|atomic-sleep|on-exit-leak-free|safe-stable-stringify)\//.test(
        u,
      ),
  ],
  ['prom-client / metrics', (u) => /node_modules\/(prom-client|tdigest|bintrees)\//.test(u)],
  ['other node_modules', (u) => /node_modules\//.test(u)],
  ['this repo: libs/*', (u) => /\/libs\/[^/]+\/(dist|src)\//.test(u)],
  ['this repo: services/*', (u) => /\/services\/[^/]+\/(dist|src)\//.test(u)],
  [
    'node:http server (parse request, write response)',
    (u, f) =>
      /^node:(_http_server|_http_common|_http_incoming|_http_outgoing|http$)/.test(u) ||
      (u === '' && /^(parserOn|execute|HTTPParser)/.test(f)),
  ],
  [
    'node:http client (the loopback hop: agent, request)',
    (u) => /^node:(_http_client|_http_agent|internal\/http)/.test(u) || /node_modules\/(undici)\//.test(u),
  ],
  [
    'net / streams / sockets (syscalls, writev, reads)',
    (u, f) =>
      /^node:(net|internal\/(stream_base_commons|streams|net|tcp_wrap|dns|fs\/))|^node:stream/.test(u) ||
      (u === '' &&
        /^(writev|writeUtf8String|writeBuffer|writeLatin1String|onStreamRead|readStop|readStart|shutdown|close)$/.test(
          f,
        )),
  ],
  [
    'async context / promises / timers / ticks',
    (u, f) =>
      /^node:(internal\/(async_hooks|process\/task_queues|timers|async_local_storage|process\/promises)|async_hooks|timers)/.test(
        u,
      ) ||
      (u === '' && /^(Promise|then|resolve|AsyncFunction|await|PromiseHook|runMicrotasks)/.test(f)),
  ],
  [
    'events / buffer / url / util (node)',
    (u) =>
      /^node:(events|buffer|url|internal\/(url|util|buffer|querystring|errors|validators|event_target|events)|querystring|util|string_decoder)/.test(
        u,
      ),
  ],
  ['other node internals', (u) => /^node:/.test(u)],
  ['V8 builtins / native (no url)', (u) => u === ''],
  ['other', () => true],
];

/** @param {string} url */
function shortUrl(url) {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const repo = url.search(/\/(libs|services|e2e|bench)\//);
  if (repo >= 0) return url.slice(repo + 1);
  return url.replace(/^file:\/\//, '');
}

/**
 * @param {string[]} files @param {{ from?: number, to?: number, weight?: 'samples' | 'time' }} [window]
 * @returns {{ totalMs: number, idleMs: number, wallMs: number, byGroup: Map<string, number>, byFunction: Map<string, { ms: number, group: string }> }}
 */
function summarize(files, window = {}) {
  let totalMs = 0;
  let idleMs = 0;
  let wallMs = 0;
  /** @type {Map<string, number>} */
  const byGroup = new Map();
  /** @type {Map<string, { ms: number, group: string }>} */
  const byFunction = new Map();
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, 'utf8'));
    /** @type {Map<number, any>} */
    const nodes = new Map(p.nodes.map((/** @type {any} */ n) => [n.id, n]));
    const from = window.from ?? -Infinity;
    const to = window.to ?? Infinity;
    // The nominal sampling interval (ms): the median time delta.
    const deltas = p.timeDeltas.slice(1).sort((/** @type {number} */ a, /** @type {number} */ b) => a - b);
    const interval = (deltas[Math.floor(deltas.length / 2)] ?? 1000) / 1000;
    wallMs += (Math.min(p.endTime, to) - Math.max(p.startTime, from)) / 1000;
    let t = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      // weight 'time': a sample weighs the time until the next one (the last one its own delta): wall time, which on
      // a CPU shared with other busy processes charges the frame where the thread was preempted with the time others
      // ran. weight 'samples' (the default): every sample weighs the nominal interval; a thread that is not running
      // takes no samples (the profiler's signals to it coalesce), so counts follow its CPU time.
      t += p.timeDeltas[i];
      const dt =
        window.weight === 'time'
          ? (i + 1 < p.timeDeltas.length ? p.timeDeltas[i + 1] : p.timeDeltas[i]) / 1000
          : interval;
      if (t < from || t > to) continue;
      const cf = nodes.get(p.samples[i]).callFrame;
      if (cf.functionName === '(idle)') {
        idleMs += dt;
        continue;
      }
      totalMs += dt;
      const group = (GROUPS.find(([, test]) => test(cf.url, cf.functionName)) ?? ['other'])[0];
      byGroup.set(group, (byGroup.get(group) ?? 0) + dt);
      const key = `${cf.functionName || '(anonymous)'} ${shortUrl(cf.url)}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
      const f = byFunction.get(key) ?? { ms: 0, group };
      f.ms += dt;
      byFunction.set(key, f);
    }
  }
  return { totalMs, idleMs, wallMs, byGroup, byFunction };
}

function main() {
  const argv = process.argv.slice(2);
  /** @type {string[]} */
  const files = [];
  /** @type {Record<string, string>} */
  const opt = {};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith('--')) {
      if (argv[i] === '--json') opt.json = '1';
      else opt[argv[i].slice(2)] = argv[++i];
    } else files.push(argv[i]);
  }
  if (!files.length) {
    process.stderr.write(
      'usage: node bench/profile/summarize.js FILE.cpuprofile [...] [--from US --to US] [--requests N] [--top 25] [--json]\n',
    );
    process.exit(2);
  }
  const s = summarize(files, {
    from: opt.from ? Number(opt.from) : undefined,
    to: opt.to ? Number(opt.to) : undefined,
    weight: opt.weight === 'time' ? 'time' : 'samples',
  });
  const requests = opt.requests ? Number(opt.requests) : 0;
  const top = Number(opt.top ?? 25);
  const perReq = (/** @type {number} */ ms) => (requests ? ms / requests : NaN);
  const groups = [...s.byGroup.entries()].sort((a, b) => b[1] - a[1]);
  const fns = [...s.byFunction.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, top);
  if (opt.json) {
    process.stdout.write(
      `${JSON.stringify({
        files,
        busyMs: +s.totalMs.toFixed(1),
        idleMs: +s.idleMs.toFixed(1),
        requests,
        busyMsPerRequest: requests ? +perReq(s.totalMs).toFixed(4) : undefined,
        groups: groups.map(([g, ms]) => ({
          group: g,
          ms: +ms.toFixed(1),
          share: +(ms / s.totalMs).toFixed(4),
          msPerRequest: requests ? +perReq(ms).toFixed(4) : undefined,
        })),
        top: fns.map(([k, v]) => ({
          frame: k,
          group: v.group,
          ms: +v.ms.toFixed(1),
          share: +(v.ms / s.totalMs).toFixed(4),
        })),
      })}\n`,
    );
    return;
  }
  const out = (/** @type {string} */ l) => process.stdout.write(`${l}\n`);
  out(
    `busy ${s.totalMs.toFixed(0)} ms (idle ${s.idleMs.toFixed(0)} ms)${requests ? `, ${requests} requests: ${perReq(s.totalMs).toFixed(3)} CPU-ms/request on the JS thread` : ''}`,
  );
  out('\nself time by group:');
  for (const [g, ms] of groups)
    out(
      `  ${(((ms / s.totalMs) * 100).toFixed(1) + '%').padStart(6)}  ${ms.toFixed(0).padStart(6)} ms${requests ? `  ${perReq(ms).toFixed(4)} ms/req` : ''}  ${g}`,
    );
  out(`\ntop ${top} functions by self time:`);
  for (const [k, v] of fns)
    out(
      `  ${(((v.ms / s.totalMs) * 100).toFixed(1) + '%').padStart(6)}  ${v.ms.toFixed(0).padStart(6)} ms  ${k}  [${v.group}]`,
    );
}

if (require.main === module) main();

module.exports = { summarize, GROUPS };
