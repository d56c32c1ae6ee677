// @ts-check
/**
 * FerretDB's CPU per point read by `_id`: the read the sidecar makes for every exchange (the subject
 * token's grant in `oidc_payloads`, libs/db's schema and indexes), with the driver's findOne and with mongoose's
 * findById + lean as the sidecar does, over collections of 1,000 and 20,000 documents. CPU from /proc
 * (bench/common.js cpuTimes: FerretDB, and this process as the client). Not part of any test.
 *
 *   node bench/profile/ferretdb-reads.js [--reads 3000] [--sizes 1000,20000]
 */
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { startFerretDb } = require('@idp/testing');
const { arg, cpuPerRequest, cpuTimes } = require('../common');

const reads = Number(arg('reads', '3000'));

async function main() {
  const server = await startFerretDb({ quiet: true });
  const db = await connectDatabase(
    `${server.url.replace(/\/?$/, '/')}idp_bench_ferretdb_reads`,
    createLogger({ service: 'bench', level: 'silent' }),
  );
  const Payload = db.models.OidcPayload;
  await Payload.init();
  try {
    let have = 0;
    for (const size of arg('sizes', '1000,20000').split(',').map(Number)) {
      const docs = [];
      for (; have < size; have++) {
        docs.push({
          _id: `4260:Session:${have}`,
          tenantId: 4260,
          model: 'Session',
          payload: JSON.stringify({ jti: String(have), accountId: 'u-1', exp: 4e9, kind: 'Session' }),
          expiresAt: new Date(Date.now() + 3600e3),
        });
        if (docs.length === 500) await Payload.collection.insertMany(docs.splice(0));
      }
      if (docs.length) await Payload.collection.insertMany(docs);
      const id = `4260:Session:${Math.floor(size / 2)}`;
      const ways = {
        'driver findOne({_id}) without projection': () => Payload.collection.findOne({ _id: /** @type {any} */ (id) }),
        'driver find({_id}).limit(1)': () =>
          Payload.collection
            .find({ _id: /** @type {any} */ (id) })
            .limit(1)
            .next(),
        'driver findOne({_id})': () =>
          Payload.collection.findOne({ _id: /** @type {any} */ (id) }, { projection: { payload: 1, expiresAt: 1 } }),
        'mongoose findById(...).lean() (the sidecar)': () => Payload.findById(id, { payload: 1, expiresAt: 1 }).lean(),
      };
      for (const [name, read] of Object.entries(ways)) {
        for (let i = 0; i < 200; i++) await read();
        const pids = { ferretdb: server.process.pid };
        const before = cpuTimes(pids);
        const t = Date.now();
        // 16 in flight, as the sidecar under load.
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            for (let i = 0; i < reads / 16; i++) if (!(await read())) throw new Error('not found');
          }),
        );
        const cpu = cpuPerRequest(before, cpuTimes(pids), reads);
        process.stdout.write(
          `${String(size).padStart(6)} docs, ${name}: FerretDB ${cpu.ferretdb} CPU-ms per read, client ${cpu['load generator']}, ${Math.round((reads * 1000) / (Date.now() - t))} reads/s\n`,
        );
      }
    }
  } finally {
    await db.close();
    await server.dispose();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
