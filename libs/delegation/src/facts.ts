import type { ClientDoc, DelegationPolicyDoc, Models, NheDoc, ResourceServerDoc, TenantDoc } from '@idp/db';
import { NHE_SETTINGS_DEFAULTS, toObjectId, userPermissions } from '@idp/db';
import type { ActorAuthMethod, NheSettings } from '@idp/db';
import type {
  ChainActorFacts,
  ChainFacts,
  ClientFacts,
  DelegationFacts,
  NheFacts,
  PolicyFacts,
  ResourceServerFacts,
  TenantFacts,
} from './decision';
import type { SignInFacts } from './sign-in';

/**
 * Tenant, client and resource-server rows as a lean read returns them. Lean reads fill absent top-level fields with
 * their schema defaults only (see @idp/db lean-defaults): nested settings that an older version never wrote, or a
 * row restored from a backup or fixed by hand, may lack them, so these readers fall back to the defaults.
 */
type StoredTenant = Omit<TenantDoc, 'settings'> & { settings?: { nhe?: Partial<NheSettings> } };
type StoredClient = Omit<ClientDoc, 'config'> & { config?: { nhe?: Partial<ClientDoc['config']['nhe']> } };
type StoredResourceServer = Omit<ResourceServerDoc, 'scopes' | 'config'> & {
  scopes?: string[];
  config?: {
    accessToken?: Partial<ResourceServerDoc['config']['accessToken']>;
    nhe?: Partial<ResourceServerDoc['config']['nhe']>;
  };
};

/** The subject token of a hand-on (a delegation token handed on to another NHE), as its claims say. */
export interface ParentToken {
  /** Its `act` chain, outermost first: identifiers (without `nhe:`) and how each proved who it is. */
  actors: Array<{ identifier: string; method: ActorAuthMethod }>;
  scopes: string[];
  audience: string[];
  /** Its exp (seconds since the epoch). */
  exp: number;
}

export interface DelegationRequest {
  tenantId: number;
  clientId: string;
  userId: string;
  nheIdentifier: string;
  resource: string;
  requestedScopes: string[];
  /**
   * The scopes the user consented to the client for `resource`: the subject token's `scope` when its `aud` names
   * the resource (token exchange), or what a dry run assumes. Absent: none.
   */
  consentedScopes?: string[];
  /**
   * An agent client's token (an OAuth client that embodies a registered NHE): the client may have no record (a Client
   * ID Metadata Document client); its facts are then those of a third party without delegation settings (the caller
   * supplies the link).
   */
  agentClient?: boolean;
  /** The subject token is itself a delegation token handed on (a delegation chain). */
  parent?: ParentToken;
  /** The user's sign-in as the subject token states it (acr, amr, age from auth_time); absent: unknown. */
  signIn?: SignInFacts;
}

/** The chain facts of a hand-on: the parent's actors as loaded, with the parent token's own (per-request) values. */
export function chainFactsOf(
  parent: ParentToken,
  actors: Array<Omit<ChainActorFacts, 'method'>>,
  nowSeconds = Date.now() / 1000,
): ChainFacts {
  return {
    actors: actors.map((a, i) => ({ ...a, method: parent.actors[i]?.method ?? 'named' })),
    scopes: parent.scopes,
    audience: parent.audience,
    remainingSeconds: parent.exp - nowSeconds,
  };
}

function policyFacts(p: {
  _id: unknown;
  target: { type: PolicyFacts['target']['type']; id: string };
  allowedScopes: string[];
  maxTokenLifetime?: number;
  maxChainDepth?: number;
  phishingResistantSignInMaxAgeMinutes?: number | null;
  approvalRequiredScopes?: string[] | null;
}): PolicyFacts {
  return {
    id: String(p._id),
    target: { type: p.target.type, id: p.target.id },
    allowedScopes: p.allowedScopes,
    ...(typeof p.maxTokenLifetime === 'number' ? { maxTokenLifetime: p.maxTokenLifetime } : {}),
    ...(typeof p.maxChainDepth === 'number' ? { maxChainDepth: p.maxChainDepth } : {}),
    ...(typeof p.phishingResistantSignInMaxAgeMinutes === 'number'
      ? { phishingResistantSignInMaxAgeMinutes: p.phishingResistantSignInMaxAgeMinutes }
      : {}),
    ...(p.approvalRequiredScopes?.length ? { approvalRequiredScopes: p.approvalRequiredScopes } : {}),
  };
}

export function tenantFacts(doc: StoredTenant): TenantFacts {
  const nhe = { ...NHE_SETTINGS_DEFAULTS, ...(doc.settings?.nhe ?? {}) };
  return {
    id: doc._id,
    name: doc.name,
    nhe: {
      enabled: nhe.enabled,
      hardMaxTokenLifetime: nhe.hardMaxTokenLifetime,
      allowedNheTypes: nhe.allowedNheTypes,
      requireDpop: nhe.requireDpop,
      requireActorProof: nhe.requireActorProof === true,
      maxChainDepth: typeof nhe.maxChainDepth === 'number' ? nhe.maxChainDepth : 1,
      ...(typeof nhe.phishingResistantSignInMaxAgeMinutes === 'number'
        ? { phishingResistantSignInMaxAgeMinutes: nhe.phishingResistantSignInMaxAgeMinutes }
        : {}),
    },
  };
}

function clientFacts(doc: StoredClient): ClientFacts {
  return {
    clientId: doc.clientId,
    numericId: doc.numericId,
    firstParty: doc.firstParty === true,
    nhe: {
      delegationEnabled: doc.config?.nhe?.delegationEnabled ?? false,
      allowedNheIdentifiers: doc.config?.nhe?.allowedNheIdentifiers ?? [],
      ...(typeof doc.config?.nhe?.maxTokenLifetime === 'number'
        ? { maxTokenLifetime: doc.config.nhe.maxTokenLifetime }
        : {}),
    },
  };
}

function resourceServerFacts(doc: StoredResourceServer): ResourceServerFacts {
  return {
    identifier: doc.identifier,
    scopes: doc.scopes ?? [],
    accessTokenLifetime: doc.config?.accessToken?.lifetime ?? 3600,
    nhe: {
      acceptDelegationTokens: doc.config?.nhe?.acceptDelegationTokens ?? false,
      allowedNheTypes: doc.config?.nhe?.allowedNheTypes ?? [],
    },
  };
}

/** `defaultLifetime`: the tenant's defaultMaxTokenLifetime, the NHE's lifetime when its record has none (DESIGN.md). */
function nheFacts(doc: NheDoc & { _id: unknown }, defaultLifetime: number): NheFacts {
  return {
    id: String(doc._id),
    identifier: doc.identifier,
    type: doc.type,
    allowedScopes: doc.allowedScopes,
    maxTokenLifetime: typeof doc.maxTokenLifetime === 'number' ? doc.maxTokenLifetime : defaultLifetime,
    enabled: doc.enabled,
    operator: doc.operator,
    ...(doc.model ? { model: { name: doc.model.name, version: doc.model.version, provider: doc.model.provider } } : {}),
    ...(typeof doc.requireActorProof === 'boolean' ? { requireActorProof: doc.requireActorProof } : {}),
    ...(doc.requireKeyBoundDpop ? { requireKeyBoundDpop: true } : {}),
  };
}

/**
 * Loads every fact the decision needs, in parallel, scoped to the tenant. Returns null when the tenant or the
 * client does not exist (the caller has already authenticated the client, so that is a race with a deletion).
 */
export async function loadDelegationFacts(models: Models, r: DelegationRequest): Promise<DelegationFacts | null> {
  const userObjectId = toObjectId(r.userId);
  // A hand-on (a delegation chain): the parent chain's NHEs and policies, loaded beside the rest.
  const chainLoad = r.parent ? loadChainDocs(models, r.tenantId, r.parent) : Promise.resolve(undefined);
  chainLoad.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  const [tenant, client, rs, nhe, user, permissions] = await Promise.all([
    models.Tenant.findById(r.tenantId).lean<StoredTenant>(),
    models.Client.findOne({ tenantId: r.tenantId, clientId: r.clientId }).lean<StoredClient>(),
    models.ResourceServer.findOne({ tenantId: r.tenantId, identifier: r.resource }).lean<StoredResourceServer>(),
    models.Nhe.findOne({ tenantId: r.tenantId, identifier: r.nheIdentifier }).lean<NheDoc & { _id: unknown }>(),
    userObjectId
      ? models.User.findOne({ tenantId: r.tenantId, _id: userObjectId }, { groupIds: 1, enabled: 1 }).lean()
      : null,
    userPermissions(models, r.tenantId, r.userId, r.resource),
  ]);
  const chainDocs = await chainLoad;
  if (!tenant || (!client && !r.agentClient)) return null;
  const [policies, optOut] = nhe
    ? await Promise.all([
        models.DelegationPolicy.find({ tenantId: r.tenantId, nheId: String(nhe._id) }).lean(),
        // The user's own block of this NHE (their delegation ledger), by the NHE's id: a new NHE with the same
        // identifier is not blocked.
        models.AgentOptOut.exists({ tenantId: r.tenantId, userId: r.userId, nheId: String(nhe._id) }),
      ])
    : [[], null];
  return {
    tenant: tenantFacts(tenant),
    client: client
      ? clientFacts(client)
      : {
          clientId: r.clientId,
          numericId: 0,
          firstParty: false,
          nhe: { delegationEnabled: false, allowedNheIdentifiers: [] },
        },
    resourceServer: rs ? resourceServerFacts(rs) : null,
    nhe: nhe
      ? nheFacts(nhe, { ...NHE_SETTINGS_DEFAULTS, ...(tenant.settings?.nhe ?? {}) }.defaultMaxTokenLifetime)
      : null,
    userId: r.userId,
    userActive: Boolean(user?.enabled),
    userGroupIds: user?.groupIds ?? [],
    policies: policies.map(policyFacts),
    userPermissions: permissions,
    consentedScopes: new Set(r.consentedScopes ?? []),
    requestedScopes: r.requestedScopes,
    ...(optOut ? { userOptedOut: true } : {}),
    ...(r.signIn ? { signIn: r.signIn } : {}),
    ...(r.parent && chainDocs ? { chain: chainFactsOf(r.parent, chainActorsOf(r.parent, chainDocs, tenant)) } : {}),
  };
}

type ChainDocs = { nhes: Array<NheDoc & { _id: unknown }>; policies: Array<DelegationPolicyDoc & { _id: unknown }> };

/** The NHEs of a parent's chain and their policies: two queries whatever the depth. */
async function loadChainDocs(models: Models, tenantId: number, parent: ParentToken): Promise<ChainDocs> {
  const identifiers = [...new Set(parent.actors.map((a) => a.identifier))];
  const nhes = await models.Nhe.find({ tenantId, identifier: { $in: identifiers } }).lean<
    Array<NheDoc & { _id: unknown }>
  >();
  const policies = nhes.length
    ? await models.DelegationPolicy.find({ tenantId, nheId: { $in: nhes.map((n) => String(n._id)) } }).lean<
        Array<DelegationPolicyDoc & { _id: unknown }>
      >()
    : [];
  return { nhes, policies };
}

function chainActorsOf(
  parent: ParentToken,
  docs: ChainDocs,
  tenant: StoredTenant,
): Array<Omit<ChainActorFacts, 'method'>> {
  const defaultLifetime = { ...NHE_SETTINGS_DEFAULTS, ...(tenant.settings?.nhe ?? {}) }.defaultMaxTokenLifetime;
  return parent.actors.map((a) => {
    const doc = docs.nhes.find((n) => n.identifier === a.identifier);
    return {
      identifier: a.identifier,
      nhe: doc ? nheFacts(doc, defaultLifetime) : null,
      policies: doc ? docs.policies.filter((p) => p.nheId === String(doc._id)).map(policyFacts) : [],
    };
  });
}
