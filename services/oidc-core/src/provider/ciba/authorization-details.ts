/**
 * The authorization-detail type agents use to describe what they ask to do (RFC 9396 section 2), and the plain
 * sentence the person reads on their approval page. RFC 9396's common members (actions, locations, identifier) and
 * ours: object_ids, amount {value, currency} and description (the agent's own sentence). Anything else is refused
 * (section 5: invalid_authorization_details), so that nothing the person does not see is approved.
 */
import { errors } from 'oidc-provider';
import { AGENT_ACTION_TYPE } from './settings';

const MEMBERS = new Set(['type', 'actions', 'locations', 'identifier', 'object_ids', 'amount', 'description']);
const MAX_DETAIL_CHARS = 4096;

const stringList = (v: unknown, max: number, each: number) =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.length <= max &&
  v.every((s) => typeof s === 'string' && s.length > 0 && s.length <= each);

/** RFC 9396 section 5: a detail of our type that is malformed or carries members we would not show. */
export function validateAgentAction(detail: Record<string, unknown>): void {
  const fail = (why: string) => {
    throw new errors.InvalidAuthorizationDetails(`${AGENT_ACTION_TYPE}: ${why}`);
  };
  if (JSON.stringify(detail).length > MAX_DETAIL_CHARS) fail(`a detail is at most ${MAX_DETAIL_CHARS} characters`);
  for (const key of Object.keys(detail)) if (!MEMBERS.has(key)) fail(`unknown member ${key.slice(0, 64)}`);
  if (detail.actions !== undefined && !stringList(detail.actions, 16, 128)) fail('actions must be 1-16 short strings');
  if (detail.locations !== undefined && !stringList(detail.locations, 8, 2048)) fail('locations must be 1-8 URIs');
  if (detail.object_ids !== undefined && !stringList(detail.object_ids, 32, 256))
    fail('object_ids must be 1-32 short strings');
  if (detail.identifier !== undefined && !(typeof detail.identifier === 'string' && detail.identifier.length <= 256))
    fail('identifier must be a string of at most 256 characters');
  if (
    detail.description !== undefined &&
    !(typeof detail.description === 'string' && detail.description.length > 0 && detail.description.length <= 280)
  )
    fail('description must be a sentence of at most 280 characters');
  if (detail.amount !== undefined) {
    const a = detail.amount as { value?: unknown; currency?: unknown } | null;
    if (
      !a ||
      typeof a !== 'object' ||
      Object.keys(a).some((k) => k !== 'value' && k !== 'currency') ||
      typeof a.value !== 'string' ||
      !/^\d{1,12}(\.\d{1,6})?$/.test(a.value) ||
      typeof a.currency !== 'string' ||
      !/^[A-Z]{3}$/.test(a.currency)
    )
      fail('amount must be {"value": "12.34", "currency": "EUR"} (a decimal string and an ISO 4217 code)');
  }
  if (!detail.actions && !detail.description) fail('say what the agent will do: actions or description');
}

/** One detail in plain words, for the person (the page escapes it). */
export function describeDetail(detail: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof detail.description === 'string')
    parts.push(/[.!?]$/.test(detail.description) ? detail.description : `${detail.description}.`);
  const actions = Array.isArray(detail.actions) ? (detail.actions as string[]) : [];
  if (actions.length) parts.push(`Actions: ${actions.join(', ')}.`);
  const amount = detail.amount as { value?: string; currency?: string } | undefined;
  if (amount?.value && amount.currency) parts.push(`Amount: ${amount.value} ${amount.currency}.`);
  const objects = [
    ...(typeof detail.identifier === 'string' ? [detail.identifier] : []),
    ...(Array.isArray(detail.object_ids) ? (detail.object_ids as string[]) : []),
  ];
  if (objects.length) parts.push(`On: ${objects.join(', ')}.`);
  const locations = Array.isArray(detail.locations) ? (detail.locations as string[]) : [];
  if (locations.length) parts.push(`At: ${locations.join(', ')}.`);
  if (detail.type !== AGENT_ACTION_TYPE) parts.unshift(`(${String(detail.type)})`);
  return parts.join(' ');
}
