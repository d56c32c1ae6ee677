import type { Logger } from '@idp/logger';
import type { Models } from './models';
import { createIndexes } from './connect';

/** A model whose server refuses every index option with code 238, as FerretDB refuses TTL indexes. */
function refusingModel(indexes: Array<[Record<string, number>, Record<string, unknown>]>) {
  return {
    createCollection: () => Promise.resolve(undefined),
    schema: { indexes: () => indexes },
    collection: {
      collectionName: 'things',
      createIndex: () =>
        Promise.reject(
          Object.assign(new Error('Index option "expireAfterSeconds" is not implemented yet'), { code: 238 }),
        ),
    },
  };
}

function recordingLogger() {
  const lines: Array<[string, string]> = [];
  const logger = {
    info: (_o: object, msg: string) => lines.push(['info', msg]),
    warn: (_o: object, msg: string) => lines.push(['warn', msg]),
  } as unknown as Logger;
  return { logger, lines };
}

it('a TTL index the server does not implement is logged at info (expected on FerretDB), another refused option at warn', async () => {
  const { logger, lines } = recordingLogger();
  const models = {
    Thing: refusingModel([
      [{ expiresAt: 1 }, { expireAfterSeconds: 0 }],
      [{ name: 1 }, { collation: { locale: 'en' } }],
    ]),
  } as unknown as Models;
  await createIndexes(models, logger);
  expect(lines.map(([level]) => level)).toEqual(['info', 'warn']);
  expect(lines[0]![1]).toMatch(/TTL index not supported.*sweepers/);
});

it('any other failure still fails', async () => {
  const { logger } = recordingLogger();
  const model = refusingModel([[{ a: 1 }, {}]]);
  model.collection.createIndex = () => Promise.reject(Object.assign(new Error('boom'), { code: 1 }));
  await expect(createIndexes({ Thing: model } as unknown as Models, logger)).rejects.toThrow('boom');
});
