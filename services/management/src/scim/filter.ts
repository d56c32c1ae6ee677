/**
 * SCIM filters (RFC 7644 section 3.4.2.2), parsed by scim2-parse-filter and translated into store queries over the
 * attributes this service provider supports filtering on: for Users `id`, `userName` (caseExact false, RFC 7643
 * section 4.1.1), `externalId` (caseExact true), `active`, `emails` / `emails.value` (caseExact false), `displayName`;
 * for Groups `id`, `displayName`, `externalId`, `members` / `members.value`. Operators eq, ne, co, sw, ew, pr, and,
 * or, not, and `attr[filter]` value paths. Anything else is a 400 `invalidFilter`, never a wrong answer.
 */
import { parse, type Filter } from 'scim2-parse-filter';
import { toObjectId } from '@idp/db';
import { scimErrors } from './errors';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

type Query = Record<string, unknown>;
interface Target {
  /** Store field. */
  field: string;
  kind: 'string' | 'boolean' | 'id';
  caseExact: boolean;
}

const USER_ATTRIBUTES: Record<string, Target> = {
  id: { field: '_id', kind: 'id', caseExact: true },
  username: { field: 'username', kind: 'string', caseExact: false },
  externalid: { field: 'externalId', kind: 'string', caseExact: true },
  active: { field: 'enabled', kind: 'boolean', caseExact: true },
  emails: { field: 'scim.emails.value', kind: 'string', caseExact: false },
  'emails.value': { field: 'scim.emails.value', kind: 'string', caseExact: false },
  'emails.type': { field: 'scim.emails.type', kind: 'string', caseExact: false },
  displayname: { field: 'scim.displayName', kind: 'string', caseExact: false },
  'name.givenname': { field: 'scim.name.givenName', kind: 'string', caseExact: false },
  'name.familyname': { field: 'scim.name.familyName', kind: 'string', caseExact: false },
};

const GROUP_ATTRIBUTES: Record<string, Target> = {
  id: { field: '_id', kind: 'id', caseExact: true },
  displayname: { field: 'name', kind: 'string', caseExact: false },
  externalid: { field: 'externalId', kind: 'string', caseExact: true },
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Attribute names are case-insensitive (RFC 7643 section 2.1) and may carry their schema URN. */
function normalise(attrPath: string, schema: string): string {
  const lower = attrPath.toLowerCase();
  const prefix = `${schema.toLowerCase()}:`;
  return lower.startsWith(prefix) ? lower.slice(prefix.length) : lower;
}

/**
 * Control characters (C0 but tab, DEL, C1) and the Unicode line separators. RFC 7644 section 3.4.2.2's grammar is text
 * of the JSON string values of RFC 7159; no directory sends a raw line break in a filter. Refused before parsing:
 * scim2-parse-filter's tokenizer matches a newline inside a quoted string in two ways, so an unterminated string of
 * newlines backtracks exponentially and would stop the whole service.
 */
// eslint-disable-next-line no-control-regex
const NOT_TEXT = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;
/** Nesting (parentheses, `not`, value paths, and/or chains) a directory never needs; deeper is a 400, not a store error. */
export const MAX_FILTER_DEPTH = 10;

/** Whether text holds more than printable text plus space and tab (filters and PATCH paths). */
export const hasControlCharacters = (text: string) => NOT_TEXT.test(text);

export function parseFilter(text: string): Filter {
  if (hasControlCharacters(text)) throw scimErrors.invalidFilter('the filter contains control characters');
  try {
    return parse(text);
  } catch (err) {
    throw scimErrors.invalidFilter(`the filter cannot be parsed: ${(err as Error).message}`);
  }
}

function compare(op: string, t: Target, value: unknown): Query {
  if (t.kind === 'boolean') {
    if (typeof value !== 'boolean')
      throw scimErrors.invalidFilter(`${t.field === 'enabled' ? 'active' : t.field} compares with true or false`);
    if (op === 'eq') return { [t.field]: value };
    if (op === 'ne') return { [t.field]: { $ne: value } };
    throw scimErrors.invalidFilter(`operator ${op} is not defined for booleans`);
  }
  if (t.kind === 'id') {
    if (typeof value !== 'string') throw scimErrors.invalidFilter('id compares with a string');
    const oid = toObjectId(value);
    if (op === 'eq') return oid ? { _id: oid } : { _id: { $in: [] } };
    if (op === 'ne') return oid ? { _id: { $ne: oid } } : {};
    throw scimErrors.invalidFilter(`operator ${op} is not supported on id`);
  }
  if (typeof value !== 'string') throw scimErrors.invalidFilter(`${op} on a string attribute needs a string value`);
  const flags = t.caseExact ? '' : 'i';
  const v = escapeRegExp(value);
  switch (op) {
    case 'eq':
      return { [t.field]: t.caseExact ? value : new RegExp(`^${v}$`, flags) };
    case 'ne':
      return { [t.field]: { $not: t.caseExact ? new RegExp(`^${v}$`) : new RegExp(`^${v}$`, flags) } };
    case 'sw':
      return { [t.field]: new RegExp(`^${v}`, flags) };
    case 'ew':
      return { [t.field]: new RegExp(`${v}$`, flags) };
    case 'co':
      return { [t.field]: new RegExp(v, flags) };
    default:
      throw scimErrors.invalidFilter(`operator ${op} is not supported on strings`);
  }
}

function translate(
  f: Filter,
  attributes: Record<string, Target | undefined>,
  schema: string,
  prefix = '',
  depth = 0,
): Query {
  if (depth > MAX_FILTER_DEPTH)
    throw scimErrors.invalidFilter(`the filter is nested more than ${MAX_FILTER_DEPTH} levels deep`);
  const next = (x: Filter, p = prefix) => translate(x, attributes, schema, p, depth + 1);
  switch (f.op) {
    case 'and':
      return { $and: f.filters.map((x) => next(x)) };
    case 'or':
      return { $or: f.filters.map((x) => next(x)) };
    case 'not':
      return { $nor: [next(f.filter)] };
    case '[]': {
      // emails[type eq "work" and value co "@example.com"]: each inner attribute is a sub-attribute of the outer one.
      const outer = normalise(f.attrPath, schema);
      return next(f.valFilter, `${outer}.`);
    }
    case 'pr': {
      const t = attributes[prefix + normalise(f.attrPath, schema)];
      if (!t) throw scimErrors.invalidFilter(`filtering on ${f.attrPath} is not supported`);
      return { [t.field]: { $exists: true, $nin: [null, ''] } };
    }
    default: {
      const c = f as { op: string; attrPath: string; compValue: unknown };
      const name = prefix + normalise(c.attrPath, schema);
      const t = attributes[name] ?? attributes[`${name}.value`];
      if (!t) throw scimErrors.invalidFilter(`filtering on ${c.attrPath} is not supported`);
      return compare(c.op, t, c.compValue);
    }
  }
}

export const userFilterQuery = (text: string): Query => translate(parseFilter(text), USER_ATTRIBUTES, USER_SCHEMA);

/** Groups: `members[value eq "id"]` / `members.value eq "id"` become a test on the users' groupIds (the caller's job). */
export function groupFilterQuery(text: string): { query: Query; memberOf?: string } {
  const f = parseFilter(text);
  const member = memberTest(f);
  if (member !== undefined) return { query: {}, memberOf: member };
  return { query: translate(f, GROUP_ATTRIBUTES, GROUP_SCHEMA) };
}

function memberTest(f: Filter): string | undefined {
  if (f.op === 'eq') {
    const attr = normalise(f.attrPath, GROUP_SCHEMA);
    if ((attr === 'members' || attr === 'members.value') && typeof f.compValue === 'string') return f.compValue;
  }
  if (f.op === '[]' && normalise(f.attrPath, GROUP_SCHEMA) === 'members' && f.valFilter.op === 'eq') {
    const inner = f.valFilter;
    if (inner.attrPath.toLowerCase() === 'value' && typeof inner.compValue === 'string') return inner.compValue;
  }
  return undefined;
}
