/**
 * Agent clients: OAuth clients that embody a registered NHE. An NHE registration names them
 * in `agentClients`, each entry either a client id (exactly) or a Client ID Metadata Document URL pattern: an https
 * URL (http only on loopback) whose last character may be `*`, matching every client id that starts with what precedes it (the host
 * is always named in full, so a pattern never spans hosts).
 */
import type { Models, NheDoc } from '@idp/db';
import type { DelegationFacts } from './decision';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** At most this many entries per NHE (management refuses more). */
export const MAX_AGENT_CLIENTS = 32;

/** Why an entry is not a valid agent client entry; undefined when it is valid. */
export function agentClientEntryProblem(entry: string): string | undefined {
  if (entry.length < 1 || entry.length > 2048) return 'must be 1 to 2048 characters';
  if (/\s/.test(entry)) return 'must not contain whitespace';
  const wildcard = entry.indexOf('*');
  if (!/^https?:\/\//i.test(entry)) {
    // A client id of the tenant (managed or dynamically registered): named exactly.
    if (wildcard !== -1) return 'a wildcard is only allowed at the end of an https metadata document URL pattern';
    return undefined;
  }
  if (wildcard !== -1 && wildcard !== entry.length - 1) return 'a wildcard is only allowed as the last character';
  let url: URL;
  try {
    url = new URL(wildcard === -1 ? entry : entry.slice(0, -1));
  } catch {
    return 'must be an absolute https URL';
  }
  // http only on loopback (a tenant that allows loopback metadata documents, for development).
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)))
    return 'a metadata document URL must be https (http only on loopback)';
  if (url.username || url.password || url.hash || url.search) return 'must not carry user info, a query or a fragment';
  // The host must be complete before a wildcard: `https://agent.example*` would match agent.example.evil.net.
  const afterHost = entry.slice(entry.indexOf('//') + 2);
  const slash = afterHost.indexOf('/');
  if (wildcard !== -1 && (slash === -1 || slash > afterHost.indexOf('*')))
    return 'a pattern must name the host in full and end its path with *';
  return undefined;
}

/** Whether a client id is named by one entry of an NHE's agentClients. */
export function agentClientMatches(entry: string, clientId: string): boolean {
  if (entry.endsWith('*')) return clientId.startsWith(entry.slice(0, -1));
  return entry === clientId;
}

/** The NHE registrations that name `clientId` as an agent client (normally none or one). */
export async function agentNhesOf(
  models: Models,
  tenantId: number,
  clientId: string,
): Promise<Array<NheDoc & { _id: unknown }>> {
  // Exact entries by index; patterns are few per tenant, matched here.
  const candidates = await models.Nhe.find({ tenantId, agentClients: { $exists: true, $ne: [] } }).lean<
    Array<NheDoc & { _id: unknown }>
  >();
  return candidates.filter((n) => (n.agentClients ?? []).some((e) => agentClientMatches(e, clientId)));
}

export type AgentLink =
  { kind: 'none' } | { kind: 'agent'; nhe: NheDoc & { _id: unknown } } | { kind: 'ambiguous'; identifiers: string[] };

/** What the client embodies: no NHE, exactly one, or several (refused: a client is one agent). */
export async function agentLinkOf(models: Models, tenantId: number, clientId: string): Promise<AgentLink> {
  const nhes = await agentNhesOf(models, tenantId, clientId);
  if (!nhes.length) return { kind: 'none' };
  if (nhes.length > 1) return { kind: 'ambiguous', identifiers: nhes.map((n) => n.identifier) };
  return { kind: 'agent', nhe: nhes[0]! };
}

/**
 * The facts of an agent client's token: the link is the client gate (the NHE registration naming
 * the client is the administrator's decision that this client is that agent; the client record's own config.nhe
 * governs it as a token-exchange client only), the client is always a third party (its user saw the consent page),
 * and the client record's maxTokenLifetime, when it has one, still caps the lifetime. Used by the sidecar and the
 * management API's dry run alike.
 */
export function agentClientFacts(
  loaded: DelegationFacts,
  nheIdentifier: string,
  clientNumericId: number,
): DelegationFacts {
  return {
    ...loaded,
    client: {
      clientId: loaded.client.clientId,
      numericId: clientNumericId,
      firstParty: false,
      nhe: {
        delegationEnabled: true,
        allowedNheIdentifiers: [nheIdentifier],
        ...(loaded.client.nhe.maxTokenLifetime !== undefined
          ? { maxTokenLifetime: loaded.client.nhe.maxTokenLifetime }
          : {}),
      },
    },
    actorAuth: 'named',
  };
}
