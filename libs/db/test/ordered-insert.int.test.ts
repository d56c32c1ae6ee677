/**
 * An ordered insert stops at its first error, as MongoDB's `insert` command does: nothing after the failed document
 * is stored. FerretDB v1.24.2 inserts in batches of 100 and, when a batch failed on a duplicate key, stopped only
 * that batch's one-by-one retry and went on with the next batch; scripts/tools.sh builds it with
 * tools/ferretdb/ordered-insert.sed. The audit writer relies on this to keep its hash chain without gaps.
 */
import { openTestDatabase } from '@idp/testing';

let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase('ordered_insert');
});
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

const docs = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ _id: `${prefix}:${i}`, n: i }));

test.each([
  ['at the first document', 0],
  ['in the middle of the first 100', 57],
  ['in the second 100', 140],
])(
  'a duplicate _id %s: the documents before it are stored, none after it, and the error names its index',
  async (_name, at) => {
    const c = db.connection.db!.collection<{ _id: string; n: number }>(`ordered_${at}`);
    const batch = docs(`d${at}`, 250);
    await c.insertOne(batch[at]!);
    const err = await c.insertMany(batch, { ordered: true }).then(
      () => null,
      (e: { writeErrors?: unknown; code?: number }) => e,
    );
    expect(err).not.toBeNull();
    const writeErrors = ([] as Array<{ index: number; code: number }>).concat(
      (err as { writeErrors: never }).writeErrors,
    );
    expect(writeErrors.map((w) => [w.index, w.code])).toEqual([[at, 11000]]);
    const stored = (
      await c
        .find({}, { projection: { n: 1 } })
        .sort({ n: 1 })
        .toArray()
    ).map((d) => d.n);
    expect(stored).toEqual(Array.from({ length: at + 1 }, (_, i) => i));
  },
);

test('a duplicate on a unique secondary index also stops an ordered insert of more than 100 documents', async () => {
  const c = db.connection.db!.collection<{ _id: string; key: string }>('ordered_unique');
  await c.createIndex({ key: 1 }, { unique: true });
  await c.insertOne({ _id: 'first', key: 'k0' });
  const batch = Array.from({ length: 200 }, (_, i) => ({ _id: `o${i}`, key: `k${i}` }));
  await expect(c.insertMany(batch, { ordered: true })).rejects.toMatchObject({ code: 11000 });
  expect(await c.countDocuments({})).toBe(1);
});

test('an unordered insert goes on past a duplicate and stores every other document', async () => {
  const c = db.connection.db!.collection<{ _id: string; n: number }>('unordered');
  const batch = docs('u', 250);
  await c.insertOne(batch[10]!);
  await expect(c.insertMany(batch, { ordered: false })).rejects.toMatchObject({ code: 11000 });
  expect(await c.countDocuments({})).toBe(250);
});
