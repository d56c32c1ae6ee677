/**
 * Reads, updates and deletes by `_id` use the store's `_id` index. FerretDB v1.24.2's SQLite backend filtered `_id`
 * on an expression its `_id` index does not match, so each of them scanned the whole collection (27 CPU-ms per read
 * at 20,000 documents: every exchange reads its subject token's grant by `_id`); scripts/tools.sh builds it with
 * tools/ferretdb/id-index.sed. With MONGODB_URI set to a real MongoDB the same assertions hold (IDHACK / IXSCAN).
 */
import { openTestDatabase } from '@idp/testing';

let db: Awaited<ReturnType<typeof openTestDatabase>>;
const TENANT = 4_261;
const ids = Array.from({ length: 2_000 }, (_, i) => `${TENANT}:Session:${i}`);

beforeAll(async () => {
  db = await openTestDatabase('id_index');
  await db.models.OidcPayload.init();
  for (let i = 0; i < ids.length; i += 500) {
    await db.models.OidcPayload.collection.insertMany(
      ids
        .slice(i, i + 500)
        .map((_id, j) => ({ _id, tenantId: TENANT, model: 'Session', payload: JSON.stringify({ n: i + j }) })) as never,
    );
  }
});
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

/** The store's query plan for a command on oidc_payloads, as text. */
async function plan(command: Record<string, unknown>): Promise<string> {
  const explained = await db.connection.db!.command({ explain: { ...command }, verbosity: 'queryPlanner' });
  return JSON.stringify(explained.queryPlanner ?? explained);
}

const USES_INDEX = /USING (COVERING )?INDEX|IDHACK|IXSCAN|EXPRESS_/;
const SCANS = /detail=SCAN|COLLSCAN/;

test('a find by _id is served by the _id index, not a collection scan', async () => {
  const text = await plan({ find: 'oidc_payloads', filter: { _id: ids[1_234] } });
  expect(text).toMatch(USES_INDEX);
  expect(text).not.toMatch(SCANS);
});

test('finds, updates and deletes by _id still act on exactly the one document', async () => {
  const id = ids[777]!;
  expect(await db.models.OidcPayload.findById(id, { payload: 1 }).lean()).toEqual({
    _id: id,
    payload: JSON.stringify({ n: 777 }),
  });
  expect(await db.models.OidcPayload.findById(`${TENANT}:Session:nope`).lean()).toBeNull();
  const updated = await db.models.OidcPayload.updateOne({ _id: id }, { $set: { payload: '{"n":-1}' } });
  expect(updated.modifiedCount).toBe(1);
  expect((await db.models.OidcPayload.findById(ids[778]).lean())?.payload).toBe(JSON.stringify({ n: 778 }));
  expect((await db.models.OidcPayload.findById(id).lean())?.payload).toBe('{"n":-1}');
  expect((await db.models.OidcPayload.deleteOne({ _id: id })).deletedCount).toBe(1);
  expect(await db.models.OidcPayload.countDocuments({ tenantId: TENANT })).toBe(ids.length - 1);
});

test('ids with JSON-special characters are matched exactly', async () => {
  const odd = [`${TENANT}:Grant:a"b`, `${TENANT}:Grant:a\\b`, `${TENANT}:Grant:ä/ü`, `${TENANT}:Grant:a"b `];
  await db.models.OidcPayload.collection.insertMany(
    odd.map((_id) => ({ _id, tenantId: TENANT, model: 'Grant', payload: JSON.stringify({ id: _id }) })) as never,
  );
  for (const id of odd) expect(JSON.parse((await db.models.OidcPayload.findById(id).lean())!.payload)).toEqual({ id });
  await expect(
    db.models.OidcPayload.collection.insertOne({
      _id: odd[0],
      tenantId: TENANT,
      model: 'Grant',
      payload: '{}',
    } as never),
  ).rejects.toThrow(/duplicate key|E11000/);
});
