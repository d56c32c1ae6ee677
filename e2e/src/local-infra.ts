/**
 * The store and NATS for a local run: MONGODB_URI / NATS_URL when set, else FerretDB and nats-server from the
 * tools folder on free loopback ports. Used by `npm start` and the benchmarks.
 */
import { ensureTools, startFerretDb, startNatsServer, withDatabase, type RunningServer } from '@idp/testing';

export interface LocalInfra {
  /** Connection string including a database of its own. */
  mongoUri: string;
  natsUrl: string;
  /** Stops what this call started (servers given by env are left alone). */
  stop: () => Promise<void>;
}

export async function startLocalInfra(databaseName: string, env: NodeJS.ProcessEnv = process.env): Promise<LocalInfra> {
  const owned: RunningServer[] = [];
  if (!env.MONGODB_URI || !env.NATS_URL) ensureTools('ferretdb', 'nats-server');
  let mongoBase = env.MONGODB_URI;
  if (!mongoBase) {
    const s = await startFerretDb({ quiet: true });
    owned.push(s);
    mongoBase = s.url;
  }
  let natsUrl = env.NATS_URL;
  if (!natsUrl) {
    const s = await startNatsServer({ quiet: true });
    owned.push(s);
    natsUrl = s.url;
  }
  return {
    mongoUri: withDatabase(mongoBase, databaseName),
    natsUrl,
    stop: async () => {
      await Promise.all(owned.map((s) => s.dispose()));
    },
  };
}
