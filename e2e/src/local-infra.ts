/**
 * The store and NATS for a local run: MONGODB_URI / NATS_URL when set, else FerretDB and nats-server from the
 * tools folder on free loopback ports. Used by `npm start` and the benchmarks.
 */
import { ensureTools, startFerretDb, startNatsServer, withDatabase, type RunningServer } from '@idp/testing';
import { startNatsCluster, type NatsCluster } from './ha/nats-cluster';

export interface LocalInfra {
  /** Connection string including a database of its own. */
  mongoUri: string;
  natsUrl: string;
  /** The servers this call started, by name (absent when given by env); the benchmarks read their CPU time. */
  servers: Partial<Record<'ferretdb' | 'nats-server', RunningServer>>;
  /** The 3-node JetStream cluster this call started (`natsCluster: true` and no NATS_URL given). */
  natsCluster?: NatsCluster;
  /** Stops what this call started (servers given by env are left alone). */
  stop: () => Promise<void>;
}

/**
 * `ownProcessGroup: true` (`npm start`): the servers are out of the terminal's process group, so Ctrl-C reaches only
 * the services and `npm start`, which stops the servers after the services.
 * `natsCluster: true` (the HA topology) starts a 3-node JetStream cluster (ha/nats-cluster.ts) instead of one
 * nats-server, and natsUrl lists its three servers; NATS_URL, when set, is used as it is either way.
 */
export async function startLocalInfra(
  databaseName: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { natsCluster?: boolean; ownProcessGroup?: boolean } = {},
): Promise<LocalInfra> {
  const servers: LocalInfra['servers'] = {};
  if (!env.MONGODB_URI || !env.NATS_URL) ensureTools('ferretdb', 'nats-server');
  let mongoBase = env.MONGODB_URI;
  if (!mongoBase) {
    const s = await startFerretDb({ quiet: true, ownProcessGroup: options.ownProcessGroup });
    servers.ferretdb = s;
    mongoBase = s.url;
  }
  let natsUrl = env.NATS_URL;
  let natsCluster: NatsCluster | undefined;
  if (!natsUrl && options.natsCluster) {
    natsCluster = await startNatsCluster();
    natsUrl = natsCluster.url;
  } else if (!natsUrl) {
    const s = await startNatsServer({ quiet: true, ownProcessGroup: options.ownProcessGroup });
    servers['nats-server'] = s;
    natsUrl = s.url;
  }
  return {
    mongoUri: withDatabase(mongoBase, databaseName),
    natsUrl,
    servers,
    natsCluster,
    stop: async () => {
      await Promise.all([...Object.values(servers).map((s) => s.dispose()), natsCluster?.stop()]);
    },
  };
}
