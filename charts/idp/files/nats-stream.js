'use strict';
/**
 * Creates or updates the audit stream IDP_AUDIT with the same code audit-writer runs at start
 * (ensureAuditStream of @idp/events). Run by the nats-stream Helm hook job with the audit-writer image:
 *
 *   NODE_PATH=/app/node_modules node /hook/nats-stream.js
 *
 * Env: NATS_URL (comma-separated; credentials may be in each URL), AUDIT_STREAM_REPLICAS,
 * AUDIT_DUPLICATE_WINDOW_SECONDS, AUDIT_STREAM_MAX_AGE_SECONDS. Prints the stream's resulting settings as JSON.
 */
const { connect } = require('@nats-io/transport-node');
const { AUDIT_STREAM, ensureAuditStream } = require('@idp/events');

const int = (env, key) => {
  const n = Number(env[key]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive integer`);
  return n;
};

/**
 * Servers and credentials from a NATS_URL list. nats.js 3 ignores user:password in a server URL, so they are taken
 * out of the URLs (the first URL carrying them wins) and passed as the user/pass options. A tls:// URL requires TLS.
 */
function natsOptions(natsUrl) {
  let user;
  let pass;
  const servers = natsUrl.split(',').map((raw) => {
    const s = raw.trim();
    const m = /^([a-z]+:\/\/)?(?:([^:@/]*)(?::([^@/]*))?@)?(.+)$/i.exec(s);
    if (!m) return s;
    if (m[2] !== undefined && user === undefined) {
      user = decodeURIComponent(m[2]);
      pass = m[3] !== undefined ? decodeURIComponent(m[3]) : undefined;
    }
    return `${m[1] ?? ''}${m[4]}`;
  });
  // nats.js 3 does not require TLS for a tls:// URL (it would send the password in plain text to a server offering
  // none): a tls:// server anywhere in the list makes TLS required.
  const tls = servers.some((s) => /^tls:\/\//i.test(s)) ? { tls: {} } : {};
  return user === undefined ? { servers, ...tls } : { servers, user, pass, ...tls };
}

async function main(env) {
  if (!env.NATS_URL) throw new Error('NATS_URL is required');
  const options = {
    replicas: int(env, 'AUDIT_STREAM_REPLICAS'),
    duplicateWindowSeconds: int(env, 'AUDIT_DUPLICATE_WINDOW_SECONDS'),
    maxAgeSeconds: int(env, 'AUDIT_STREAM_MAX_AGE_SECONDS'),
  };
  const nc = await connect({ ...natsOptions(env.NATS_URL), name: 'idp-nats-stream', timeout: 10_000 });
  try {
    const jsm = await ensureAuditStream(nc, options);
    const { config } = await jsm.streams.info(AUDIT_STREAM);
    process.stdout.write(
      `${JSON.stringify({ stream: config.name, subjects: config.subjects, replicas: config.num_replicas, duplicateWindowSeconds: config.duplicate_window / 1e9, maxAgeSeconds: config.max_age / 1e9, storage: config.storage })}\n`,
    );
  } finally {
    await nc.drain();
  }
}

module.exports = { natsOptions };

if (require.main === module) {
  main(process.env).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`stream setup failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
