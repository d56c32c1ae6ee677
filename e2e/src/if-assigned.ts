/**
 * A variable that a `beforeAll` assigns, as its `afterAll` may find it: still unassigned when `beforeAll` failed or
 * timed out before the assignment, which the variable's declared type does not say. Teardown reads it through this
 * (`await ifAssigned(h)?.stop()`) so a failed set-up reports its own error, not a TypeError from the teardown.
 */
export function ifAssigned<T>(value: T): T | undefined {
  return value;
}
