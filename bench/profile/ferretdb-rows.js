// @ts-check
/**
 * FerretDB's CPU per inserted audit-like row (where the exchange's audit write spends its CPU): `insertMany` batches of 1, 20 and 200 rows of about the
 * audit row's shape, `w: majority`, into a collection with no secondary index and into one with the token audit's
 * nine (unique jti, unique sparse chainKey, the five listing indexes, tenantId+seq; libs/db tokenAuditSchema).
 * CPU from FerretDB's /proc/<pid>/stat. Not part of any test.
 *
 *   node bench/profile/ferretdb-rows.js [--rows 4000]
 */
const { readFileSync } = require('node:fs');
const { MongoClient } = require('mongodb');
const { startFerretDb } = require('@idp/testing');
const { arg } = require('../common');

const rows = Number(arg('rows', '4000'));
const cpuMs = (/** @type {number} */ pid) => {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

async function main() {
  const server = await startFerretDb({ quiet: true });
  const client = await MongoClient.connect(server.url);
  const db = client.db('idp_bench_ferretdb_rows');
  let n = 0;
  const row = () => {
    n += 1;
    return {
      tenantId: 4260,
      jti: `jti-${n}-${Math.random().toString(36).slice(2)}`,
      chainKey: `4260:${n}`,
      seq: n,
      issuedAt: new Date(),
      expiresAt: new Date(Date.now() + 3600e3),
      userId: 'u-123456',
      nheId: 'nhe-abcdef',
      clientId: 'agent-client',
      resourceServer: 'https://api.orders.example',
      grantType: 'urn:ietf:params:oauth:grant-type:token-exchange',
      scope: 'orders:read',
      actorChain: [{ sub: 'nhe-abcdef', client_id: 'agent-client' }],
      decision: { policyId: 'p-1', reason: 'allowed' },
      prevHash: 'x'.repeat(43),
      hash: 'y'.repeat(43),
      eventId: `ev-${n}`,
    };
  };
  try {
    for (const indexed of [false, true]) {
      const coll = db.collection(indexed ? 'indexed' : 'bare');
      if (indexed) {
        await coll.createIndex({ jti: 1 }, { unique: true });
        await coll.createIndex({ chainKey: 1 }, { unique: true, sparse: true });
        for (const f of ['_id', 'userId', 'nheId', 'clientId', 'resourceServer'])
          await coll.createIndex({
            tenantId: 1,
            ...(f === '_id' ? { issuedAt: -1, _id: -1 } : { [f]: 1, issuedAt: -1 }),
          });
        await coll.createIndex({ tenantId: 1, seq: 1 });
      }
      for (const batch of [1, 20, 200]) {
        await coll.insertMany(Array.from({ length: batch }, row), { ordered: true, writeConcern: { w: 'majority' } });
        const before = cpuMs(server.process.pid ?? 0);
        const t = Date.now();
        for (let i = 0; i < rows / batch; i++)
          await coll.insertMany(Array.from({ length: batch }, row), { ordered: true, writeConcern: { w: 'majority' } });
        const ms = cpuMs(server.process.pid ?? 0) - before;
        process.stdout.write(
          `${indexed ? '9 indexes' : 'no index '}  batch ${String(batch).padStart(3)}: FerretDB ${(ms / rows).toFixed(3)} CPU-ms per row, ${Math.round((rows * 1000) / (Date.now() - t))} rows/s\n`,
        );
      }
    }
  } finally {
    await client.close();
    await server.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
