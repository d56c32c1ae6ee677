/**
 * Awaits every start, then throws the first failure. Each start assigns its own result (a `.then`), so whatever did
 * start is assigned when beforeAll fails, and afterAll stops it. With `[a, b] = await Promise.all([...])` a browser or
 * topology whose sibling failed was never assigned, was left running, and kept jest from exiting after the run.
 */
export async function startAll(starts: Array<Promise<unknown>>): Promise<void> {
  const results = await Promise.allSettled(starts);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}
