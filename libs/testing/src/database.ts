import { randomBytes } from 'node:crypto';
import { connectDatabase, type Database } from '@idp/db';
import { createLogger } from '@idp/logger';
import { withDatabase } from './infra';

/** The MongoDB-compatible server of this test run (set by the global setup). */
export function testMongoBase(): string {
  const base = process.env.TEST_MONGODB_URI;
  if (!base) throw new Error('TEST_MONGODB_URI is not set: run tests through jest (its global setup starts the store)');
  return base;
}

export function uniqueDbName(label: string): string {
  return `t_${label.replace(/[^a-z0-9]/gi, '').slice(0, 20)}_${randomBytes(4).toString('hex')}`;
}

/** A fresh database for one test file, with every index created. */
export async function openTestDatabase(label: string): Promise<Database & { uri: string }> {
  const uri = withDatabase(testMongoBase(), uniqueDbName(label));
  const db = await connectDatabase(uri, createLogger({ service: 'test', level: 'silent' }));
  await db.syncIndexes();
  return Object.assign(db, { uri });
}
