/**
 * PATCH (RFC 7644 section 3.5.2) through scim-patch, after bringing the shapes real directories send into the RFC's:
 *
 * - Microsoft Entra ID capitalises operation names ("Replace", "Add", "Remove"), has sent booleans as the strings
 *   "True"/"False", sends the enterprise `manager` as a bare string value, and may send a path-less "Replace" whose
 *   value object is keyed by attribute paths (`name.givenName`, `urn:...:enterprise:2.0:User:department`)
 *   (learn.microsoft.com, "Tutorial: Develop and plan provisioning for a SCIM endpoint in Microsoft Entra ID").
 * - Okta sends path-less `replace` operations whose value is a partial resource (`{"active": false}`; for groups
 *   `{"id": ..., "displayName": ...}`), and removes members with `members[value eq "..."]`
 *   (developer.okta.com, "SCIM 2.0 protocol reference").
 */
import {
  patchBodyValidation,
  ScimError as PatchLibraryError,
  scimPatch,
  type ScimPatch,
  type ScimPatchOperation,
  type ScimResource,
} from 'scim-patch';
import { ScimError, scimErrors } from './errors';
import { hasControlCharacters } from './filter';
import { ENTERPRISE_SCHEMA } from './user-resource';

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MAX_OPERATIONS = 1000;

interface RawOp {
  op: string;
  path?: string;
  value?: unknown;
}

function lookupKey(o: Record<string, unknown>, name: string): string | undefined {
  return Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
}

/** The request's operations, in RFC 7644 shape. */
export function patchOperations(body: unknown): ScimPatchOperation[] {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw scimErrors.invalidSyntax('the body must be a PatchOp message');
  const b = body as Record<string, unknown>;
  const schemasKey = lookupKey(b, 'schemas');
  const opsKey = lookupKey(b, 'Operations');
  const schemas = schemasKey ? b[schemasKey] : undefined;
  const ops = opsKey ? b[opsKey] : undefined;
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA))
    throw scimErrors.invalidSyntax(`schemas must be ["${PATCH_SCHEMA}"]`);
  if (!Array.isArray(ops) || ops.length === 0) throw scimErrors.invalidSyntax('Operations must be a non-empty array');
  if (ops.length > MAX_OPERATIONS) throw scimErrors.tooMany(`at most ${MAX_OPERATIONS} operations`);
  const out: RawOp[] = [];
  for (const raw of ops) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw scimErrors.invalidSyntax('each operation must be an object');
    const o = raw as Record<string, unknown>;
    const opKey = lookupKey(o, 'op');
    const pathKey = lookupKey(o, 'path');
    const valueKey = lookupKey(o, 'value');
    const op = opKey ? o[opKey] : undefined;
    if (typeof op !== 'string' || !['add', 'remove', 'replace'].includes(op.toLowerCase()))
      throw scimErrors.invalidSyntax('op must be add, remove or replace');
    const path = pathKey ? o[pathKey] : undefined;
    if (path !== undefined && (typeof path !== 'string' || path.length === 0 || path.length > 512))
      throw scimErrors.invalidPath('path must be a non-empty string');
    // scim-patch parses value filters in paths with the same tokenizer as filter.ts: the same refusal first.
    if (typeof path === 'string' && hasControlCharacters(path))
      throw scimErrors.invalidPath('path contains control characters');
    const value = valueKey ? o[valueKey] : undefined;
    out.push(
      ...expand({ op: op.toLowerCase(), ...(path === undefined ? {} : { path }), ...(valueKey ? { value } : {}) }),
    );
  }
  const message = { schemas: [PATCH_SCHEMA], Operations: out } as unknown as ScimPatch;
  patchBodyValidation(message);
  return message.Operations;
}

/** One path-less add/replace keyed by attribute paths becomes one operation per path (Entra ID). */
function expand(op: RawOp): RawOp[] {
  if (op.path !== undefined && op.op === 'remove' && op.path.toLowerCase() === 'members' && Array.isArray(op.value))
    return op.value.map((m: unknown) => {
      const v = m && typeof m === 'object' ? (m as Record<string, unknown>).value : undefined;
      if (typeof v !== 'string') throw scimErrors.invalidValue('each member to remove needs a value (the user id)');
      // Entra ID names the members to remove by value alone; the stored members also carry display and $ref.
      return { op: 'remove', path: `members[value eq ${JSON.stringify(v)}]` };
    });
  if (op.path !== undefined) return [fixManager(op)];
  if (op.op === 'remove') throw scimErrors.noTarget('remove needs a path (RFC 7644 section 3.5.2.2)');
  if (!op.value || typeof op.value !== 'object' || Array.isArray(op.value))
    throw scimErrors.invalidValue('an operation without a path needs an object value');
  const residual: Record<string, unknown> = {};
  const split: RawOp[] = [];
  for (const [k, v] of Object.entries(op.value)) {
    if (k.includes('.') || k.toLowerCase().startsWith('urn:')) split.push(fixManager({ op: op.op, path: k, value: v }));
    else residual[k] = v;
  }
  return [...(Object.keys(residual).length ? [{ op: op.op, value: residual }] : []), ...split];
}

/** Entra sends the enterprise manager as `"value": "<id>"` where RFC 7643 section 4.3 has `{ "value": "<id>" }`. */
function fixManager(op: RawOp): RawOp {
  if (op.path?.toLowerCase() === `${ENTERPRISE_SCHEMA}:manager`.toLowerCase() && typeof op.value === 'string')
    return { ...op, value: { value: op.value } };
  return op;
}

const isExtension = (path: string | undefined) => path?.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase();

/**
 * The whole enterprise extension as the target (RFC 7644 section 3.5.2: a path may be a schema URN): applied here,
 * since scim-patch reads the URN's last segment ("User") as an attribute of a schema "...:2.0". Add merges the
 * sub-attributes, replace sets them, remove drops the extension.
 */
function applyToExtension(resource: Record<string, unknown>, op: ScimPatchOperation): Record<string, unknown> {
  const out = { ...resource };
  if (op.op.toLowerCase() === 'remove') {
    delete out[ENTERPRISE_SCHEMA];
    return out;
  }
  const value: unknown = op.value;
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw scimErrors.invalidValue(`${ENTERPRISE_SCHEMA} must be an object`);
  const existing = out[ENTERPRISE_SCHEMA];
  out[ENTERPRISE_SCHEMA] =
    op.op.toLowerCase() === 'add' && existing && typeof existing === 'object' ? { ...existing, ...value } : value;
  return out;
}

export function applyPatch<T extends ScimResource>(resource: T, ops: ScimPatchOperation[]): T {
  try {
    let current = resource;
    // In order (RFC 7644 section 3.5.2: operations are applied sequentially).
    for (const op of ops)
      current = isExtension(op.path)
        ? (applyToExtension(current as unknown as Record<string, unknown>, op) as unknown as T)
        : scimPatch(current, [op], { mutateDocument: false, treatMissingAsAdd: true });
    return current;
  } catch (err) {
    if (err instanceof ScimError) throw err;
    // scim-patch's own refusals carry their scimType (errors.ts maps them); anything else it throws is a path or
    // value it could not follow (a malformed value filter, a path through a scalar).
    if (err instanceof PatchLibraryError) throw err;
    throw scimErrors.invalidPath(`the operation cannot be applied: ${(err as Error).message}`);
  }
}
