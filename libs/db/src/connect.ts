import mongoose, { type Connection } from 'mongoose';
import type { Logger } from '@idp/logger';
import { createModels, type Models } from './models';

export interface Database {
  connection: Connection;
  models: Models;
  /** Resolves when the server answers a ping. For /readyz. */
  ping: () => Promise<void>;
  /** Creates the indexes every model declares (idempotent). */
  syncIndexes: () => Promise<void>;
  close: () => Promise<void>;
}

export async function connectDatabase(
  uri: string,
  logger: Logger,
  options: { appName?: string } = {},
): Promise<Database> {
  const connection = mongoose.createConnection(uri, {
    appName: options.appName,
    serverSelectionTimeoutMS: 5000,
    autoIndex: false,
    autoCreate: false,
  });
  await connection.asPromise();
  // A disconnection we asked for (close() at shutdown) is no news; one we did not is.
  let closing = false;
  connection.on('disconnected', () =>
    closing ? logger.info('mongodb connection closed') : logger.warn('mongodb disconnected'),
  );
  connection.on('reconnected', () => logger.info('mongodb reconnected'));
  const models = createModels(connection);
  return {
    connection,
    models,
    ping: async () => {
      const db = connection.db;
      if (!db) throw new Error('not connected');
      await db.admin().command({ ping: 1 });
    },
    syncIndexes: () => createIndexes(models, logger),
    close: () => {
      closing = true;
      return connection.close();
    },
  };
}

/**
 * Creates every index the schemas declare, one by one. A server that does not implement an index option (FerretDB
 * refuses TTL indexes with code 238) gets a log line instead of a failure: expiry then relies on the readers' own
 * expiresAt checks and the services' sweepers. A refused TTL index is expected there and handled, so it is logged at
 * info (a first `npm start` on FerretDB should print no warning per TTL index: nothing is wrong); any other refused
 * option is a warning.
 */
export async function createIndexes(models: Models, logger: Logger): Promise<void> {
  for (const model of Object.values(models) as Array<import('mongoose').Model<unknown>>) {
    await model.createCollection().catch((err: unknown) => {
      if ((err as { code?: number } | null | undefined)?.code !== 48) throw err; // 48: NamespaceExists
    });
    for (const [fields, options] of model.schema.indexes()) {
      try {
        await model.collection.createIndex(
          fields as import('mongodb').IndexSpecification,
          options as import('mongodb').CreateIndexesOptions,
        );
      } catch (err) {
        if ((err as { code?: number }).code === 238) {
          const ttl = typeof (options as { expireAfterSeconds?: unknown } | undefined)?.expireAfterSeconds === 'number';
          const line = { collection: model.collection.collectionName, fields, reason: (err as Error).message };
          if (ttl)
            logger.info(
              line,
              'TTL index not supported by this server (FerretDB): expired rows are removed by the readers and sweepers',
            );
          else logger.warn(line, 'index option not supported by this server');
          continue;
        }
        throw err;
      }
    }
  }
}
