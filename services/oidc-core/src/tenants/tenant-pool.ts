import { LRUCache } from 'lru-cache';
import Provider from 'oidc-provider';
import type { Models, TenantDoc } from '@idp/db';
import type { OutboundPolicy } from '@idp/http';
import type { Logger } from '@idp/logger';
import type { KeyStore } from '@idp/tokens';
import { providerConfiguration } from '../provider/configuration';
import type { GrantEnded } from '../provider/adapter';
import {
  keySetRefreshAwayFromSlot,
  oauthAnswers,
  pinPublicOrigin,
  releaseRequestAfterResponse,
  useDigestedClientSecrets,
} from '../provider/internals';
import { registerTokenExchange, type TokenExchangeForwarder } from '../provider/grants/token-exchange';
import { registerJwtBearerGrant } from '../provider/grants/jwt-bearer';
import type { IdJagAuditForwarder } from '../provider/grants/sidecar-forwarder';
import { registerAgentClientTokens, type AgentTokenForwarder } from '../provider/agent-clients';
import { registerProviderEvents } from '../provider/events';
import { enforceDevicePollingInterval } from '../provider/device-polling';
import { registerCiba, type CibaForwarder, type CibaRequested } from '../provider/ciba';
import { ClaimsResolver } from '../provider/claims-account';
import type { CustomClaimsRunner } from '../provider/claims-custom';
import { registerJwtUserinfo } from '../provider/claims-userinfo';
import { registerIntrospection } from '../provider/introspection';
import { advertiseLogoutConfirmation } from '../provider/logout';
import { isFapi2Tenant } from '../provider/fapi2';
import { outboundFetch, type OutboundOptions } from '../provider/client-id-metadata';
import {
  openidDynamicProfileOn,
  registerAuthorizationRequests,
  registerPublishedMetadata,
} from '../provider/openid-dynamic';
import { OutboundFetches } from '../provider/outbound-fetches';
import { registerClientRegistration, registrationSettingsOf } from '../provider/registration';

export interface TenantContext {
  tenantId: number;
  tenant: TenantDoc;
  provider: Provider;
  callback: ReturnType<Provider['callback']>;
}

export interface TenantPoolOptions {
  models: Models;
  keyStore: KeyStore;
  logger: Logger;
  /** `{publicBaseUrl}/auth/{tenantId}` is each tenant's issuer. */
  publicBaseUrl: string;
  cookieKeys: string[];
  /** Countdown of the logout confirmation page, seconds (default 30). */
  logoutPromptSeconds?: number;
  clientSecretPepper: string;
  forwardTokenExchange: TokenExchangeForwarder;
  /** Honour X-Forwarded-For (set when running behind the ingress); URLs never follow X-Forwarded-Host or -Proto. */
  trustProxy: boolean;
  /** Proxies in front that append to X-Forwarded-For (TRUST_PROXY_HOPS; default 1): only that many right-most entries are read. */
  trustProxyHops?: number;
  /** At most this many tenants' providers are kept in memory. */
  maxTenants: number;
  /** A provider is rebuilt after this long, so configuration changes apply even without an invalidation event. */
  ttlMs: number;
  /** Unknown tenant ids are remembered this long (404 without a database query). */
  negativeTtlMs: number;
  /** Runs customizeUserInfoClaims scripts for every tenant (one pool, fair per tenant, with breakers); default: the shared one. */
  customClaims?: CustomClaimsRunner;
  /** Told when a grant ends (ProviderDeps.grantEnded). */
  grantEnded?: GrantEnded;
  /** Outbound requests of the providers (Client ID Metadata Documents, jwks_uri): the operator's policy and limits; CAs, resolver, time bounds (tests). */
  outbound?: OutboundOptions;
  /** The operator's policy for what tenants configure (trusted issuers' key sets; UPSTREAM_ALLOW_*): default public https only. */
  upstreamPolicy?: OutboundPolicy;
  /** Told of each new backchannel authentication request (CIBA), fire-and-forget (main.ts: core NATS publish). */
  cibaNotify?: (event: CibaRequested) => void;
}

export class UnknownTenantError extends Error {
  constructor(readonly tenantId: string) {
    super(`unknown tenant ${tenantId}`);
  }
}

/**
 * One node-oidc-provider instance per tenant, built on first use and held in a bounded LRU. The cache holds the
 * promise, so concurrent first requests build a tenant once. Evicting drops the reference only: requests in
 * flight keep their provider until they finish (it has no timers or global registrations to dispose).
 */
export class TenantPool {
  private readonly cache: LRUCache<number, Promise<TenantContext>>;
  private readonly unknown: LRUCache<string, true>;
  /** The limits on outbound fetches, per tenant across its provider's rebuilds. */
  private readonly fetches: OutboundFetches;
  /**
   * The same limits, counted apart, for request objects fetched by request_uri (provider/openid-dynamic): any
   * client_id of the tenant, which is no secret, can send one, so their fetches must not take the in-flight slots the
   * tenant's clients' jwks_uri and metadata documents need.
   */
  private readonly requestObjectFetches: OutboundFetches;

  constructor(private readonly options: TenantPoolOptions) {
    this.fetches = new OutboundFetches(options.outbound);
    this.requestObjectFetches = new OutboundFetches(options.outbound);
    this.cache = new LRUCache({ max: options.maxTenants, ttl: options.ttlMs, updateAgeOnGet: false });
    this.unknown = new LRUCache({ max: 10_000, ttl: options.negativeTtlMs });
  }

  /** Resolves the tenant's context; rejects with UnknownTenantError for ids that are not tenants. */
  get(rawTenantId: string): Promise<TenantContext> {
    if (!/^(0|[1-9]\d{0,14})$/.test(rawTenantId) || this.unknown.has(rawTenantId))
      return Promise.reject(new UnknownTenantError(rawTenantId));
    const tenantId = Number(rawTenantId);
    let entry = this.cache.get(tenantId);
    if (!entry) {
      entry = this.build(tenantId);
      this.cache.set(tenantId, entry);
      entry.catch((err: unknown) => {
        this.cache.delete(tenantId);
        if (err instanceof UnknownTenantError) this.unknown.set(rawTenantId, true);
      });
    }
    return entry;
  }

  /** Drops a tenant so the next request rebuilds it from the database. */
  evict(tenantId: number): void {
    this.cache.delete(tenantId);
    this.unknown.delete(String(tenantId));
  }

  /** Drops every tenant (configuration invalidations may have been missed, e.g. across a NATS reconnect). */
  clear(): void {
    this.cache.clear();
    this.unknown.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  private async build(tenantId: number): Promise<TenantContext> {
    const { models, keyStore } = this.options;
    const tenant = await models.Tenant.findById(tenantId).lean<TenantDoc>();
    if (!tenant) throw new UnknownTenantError(String(tenantId));
    let keys = await keyStore.load(tenantId);
    if (!keys.signing.some((k) => k.alg === 'ES256') || !keys.signing.some((k) => k.alg === 'RS256')) {
      await keyStore.ensureKeys(tenantId);
      keys = await keyStore.load(tenantId);
    }
    const issuer = `${this.options.publicBaseUrl}/auth/${tenantId}`;
    // One claims resolver per tenant build, for the provider's findAccount and the JWT UserInfo route alike.
    const claims = new ClaimsResolver({ models, tenant, keys: keys.signing, customClaims: this.options.customClaims });
    const provider = new Provider(
      issuer,
      providerConfiguration(tenant, [...keys.signing, ...keys.retired], {
        models,
        cookieKeys: this.options.cookieKeys,
        logoutPromptSeconds: this.options.logoutPromptSeconds,
        claims,
        outbound: this.options.outbound,
        fetches: this.fetches,
        accountRedirectUri: `${issuer}/account/callback`,
        ...(this.options.grantEnded ? { grantEnded: this.options.grantEnded } : {}),
      }),
    );
    // X-Forwarded-For only: the origin of every URL the provider writes or checks is the configured one.
    provider.proxy = this.options.trustProxy;
    // Koa's ctx.ip is the left-most X-Forwarded-For entry, which the client writes; read only the entries the trusted
    // hops appended, so that ctx.ip is the address express resolves (clientAddress) wherever the provider uses it.
    provider.maxIpsCount = this.options.trustProxy ? (this.options.trustProxyHops ?? 1) : 0;
    pinPublicOrigin(provider, this.options.publicBaseUrl);
    useDigestedClientSecrets(provider, this.options.clientSecretPepper);
    releaseRequestAfterResponse(provider);
    keySetRefreshAwayFromSlot(provider);
    oauthAnswers(provider);
    // The JWKS as published (retired keys unchanged), errors in the requested response mode, and under the OpenID
    // Dynamic profile request_uri by reference through the tenant's outbound layer (provider/openid-dynamic).
    registerPublishedMetadata(provider, { profile: openidDynamicProfileOn(tenant) });
    registerAuthorizationRequests(provider, {
      profile: openidDynamicProfileOn(tenant),
      fetch: outboundFetch(tenantId, this.requestObjectFetches, this.options.outbound) as unknown as Parameters<
        typeof registerAuthorizationRequests
      >[1]['fetch'],
    });
    if (!tenant.system) registerClientRegistration(provider, tenantId, registrationSettingsOf(tenant), models);
    advertiseLogoutConfirmation(provider);
    registerTokenExchange(provider, tenantId, this.options.forwardTokenExchange, {
      fapi2: isFapi2Tenant(tenant),
      idJag: {
        models,
        tenantId,
        fapi2: isFapi2Tenant(tenant),
        signing: keys.signing,
        publicJwks: keys.publicJwks as import('jose').JSONWebKeySet,
        // An agent's ID-JAG is audited by the sidecar, on the delegation tokens' JetStream path.
        recordIssuance: (this.options.forwardTokenExchange as { idJagIssued?: IdJagAuditForwarder }).idJagIssued,
      },
    });
    // Agent clients' tokens come from the sidecar too (its second call, beside the exchange); so do those of another
    // organisation's agents redeemed at the JWT bearer grant.
    const agentToken = (this.options.forwardTokenExchange as { agentToken?: AgentTokenForwarder }).agentToken;
    registerJwtBearerGrant(provider, {
      models,
      tenantId,
      policy: this.options.upstreamPolicy ?? {},
      agentToken,
      fapi2: isFapi2Tenant(tenant),
    });
    registerAgentClientTokens(provider, tenantId, models, agentToken);
    registerIntrospection(provider, tenantId, {
      models,
      publicJwks: keys.publicJwks as import('jose').JSONWebKeySet,
      tenantEnabled: tenant.enabled !== false,
    });
    registerProviderEvents(provider, this.options.logger.child({ tenantId }));
    enforceDevicePollingInterval(provider, models, tenantId);
    // CIBA (provider/ciba): interval, slow_down and the delegation token from the sidecar's fourth call.
    registerCiba(provider, {
      models,
      tenant,
      forward: (this.options.forwardTokenExchange as { cibaToken?: CibaForwarder }).cibaToken,
      logger: this.options.logger.child({ tenantId }),
      notify: this.options.cibaNotify,
    });
    registerJwtUserinfo(provider, keys.publicJwks, claims);
    this.options.logger.info({ tenantId }, 'tenant provider built');
    return { tenantId, tenant, provider, callback: provider.callback() };
  }
}
