/**
 * findAccount for node-oidc-provider and the UserInfo claim resolution shared by both UserInfo paths (opaque access
 * tokens through the provider, JWT access tokens for the tenant's UserInfo audience through claims-userinfo.ts).
 */
import type { FindAccount, KoaContextWithOIDC } from 'oidc-provider';
import type { ClientDoc, Models, TenantDoc, UserDoc } from '@idp/db';
import { toObjectId, userMemberships } from '@idp/db';
import type { PrivateJwk } from '@idp/tokens';
import { acrForAmr, statedAcr } from '../domain/acr';
import { releasedAmr, type AmrProfile } from '../domain/claims-amr';
import { userClaims } from '../domain/claims-user';
import { storedClientConfigOf, storedSettingsOf, type StoredClientConfig } from '../domain/stored-docs';
import { claimsForScopes, STANDARD_SCOPE_CLAIMS, USERINFO_ONLY_CLAIMS } from './claims';
import { resolveCustomClaims, type CustomClaimsRunner, type LogLike } from './claims-custom';
import { PassportSigner } from './claims-passport';
import { recordCache } from './record-cache';
import { userinfoAudience } from './userinfo-audience';

export interface ClaimsDeps {
  models: Models;
  tenant: TenantDoc;
  /** The tenant's private signing keys (visas of GA4GH passports are signed with the RS256 one). */
  keys: PrivateJwk[];
  /** Runs customizeUserInfoClaims scripts (the process's pool and breakers); the shared default when absent. */
  customClaims?: CustomClaimsRunner;
}

/** Sources of a login that carry `amr` to the ID token and refresh tokens. */
const LOGIN_SOURCES = new Set(['AuthorizationCode', 'DeviceCode', 'RefreshToken', 'BackchannelAuthenticationRequest']);

export interface ClaimsRequest {
  use: 'id_token' | 'userinfo';
  sub: string;
  scopes: Set<string>;
  clientId: string | undefined;
  amr: unknown;
  log?: LogLike;
}

export class ClaimsResolver {
  private readonly passports: PassportSigner;
  readonly amrProfile: AmrProfile;

  /** Client settings the claims depend on (legacy role claims, the UserInfo script), cached like client records. */
  private readonly clientConfigs = recordCache<Pick<ClientDoc, 'config'> | null>();

  constructor(private readonly deps: ClaimsDeps) {
    this.passports = new PassportSigner(deps.keys);
    this.amrProfile = storedSettingsOf(deps.tenant).claims?.amrProfile ?? 'rfc8176';
  }

  async findUser(sub: string): Promise<UserDoc | null> {
    const _id = toObjectId(sub);
    if (!_id) return null;
    return this.deps.models.User.findOne({ tenantId: this.deps.tenant._id, _id, enabled: true }).lean<UserDoc>();
  }

  /**
   * Every claim the request may see (before masking by scope). For ID tokens, UserInfo-only claims are left out; for
   * UserInfo, custom_claims and the GA4GH passport are resolved now.
   */
  async claims(user: UserDoc, issuer: string, r: ClaimsRequest): Promise<Record<string, unknown>> {
    const { models, tenant } = this.deps;
    const userinfo = r.use === 'userinfo';
    const clientId = r.clientId;
    const client = clientId
      ? await this.clientConfigs(clientId, () =>
          models.Client.findOne({ tenantId: tenant._id, clientId }, { config: 1 }).lean(),
        )
      : null;
    const config: StoredClientConfig = client ? storedClientConfigOf(client) : {};
    const wantsMemberships = userinfo && (r.scopes.has('profile') || r.scopes.has('groups'));
    const out = userClaims({
      sub: r.sub,
      issuer,
      tenant: { id: tenant._id, name: tenant.name },
      user,
      memberships: wantsMemberships ? await userMemberships(models, tenant._id, user) : undefined,
      amr: releasedAmr(r.amr, this.amrProfile),
      legacyRoleCompatibility: config.legacyRoleCompatibility === true,
    });
    if (!userinfo) {
      for (const c of USERINFO_ONLY_CLAIMS) delete out[c];
      return out;
    }
    if (r.scopes.has('custom_claims') && r.clientId) {
      const released = claimsForScopes(r.scopes);
      const visible: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(out)) if (released.has(k)) visible[k] = v;
      const custom = await resolveCustomClaims(
        {
          tenantId: tenant._id,
          tenantName: tenant.name,
          clientId: r.clientId,
          sub: r.sub,
          scopes: [...r.scopes],
          claims: visible,
          mapped: user.customClaims,
          script: config.customizeUserInfoClaims || undefined,
          log: r.log,
        },
        this.deps.customClaims,
      );
      if (custom) out.custom_claims = custom;
    }
    const passport = storedSettingsOf(tenant).claims?.ga4ghPassport;
    if (r.scopes.has('ga4gh_passport_v1') && passport?.enabled) {
      out.ga4gh_passport_v1 = await this.passports.passport(
        issuer,
        r.sub,
        user.ga4ghVisas ?? [],
        passport.visaLifetimeSeconds ?? 3600,
      );
    }
    return out;
  }
}

function requestLog(ctx: KoaContextWithOIDC | undefined): LogLike | undefined {
  return (ctx?.req as unknown as { log?: LogLike } | undefined)?.log;
}

/**
 * Whether the access token issued with this ID token can call UserInfo: an opaque one (no audience), or a JWT for
 * the tenant's UserInfo audience that is not sender-constrained (claims-userinfo.ts refuses those). False when no
 * access token is being issued.
 */
function accessTokenReachesUserinfo(ctx: KoaContextWithOIDC | undefined): boolean {
  const at = ctx?.oidc.entities.AccessToken as { aud?: unknown; isSenderConstrained?: () => boolean } | undefined;
  if (!at || !ctx) return false;
  if (at.aud === undefined) return true;
  return at.aud === userinfoAudience(ctx.oidc.provider.issuer) && !at.isSenderConstrained?.();
}

/**
 * findAccount: enabled users of this tenant. The login source's `amr` is normalised to the tenant's claims profile
 * here (so the ID token, refresh tokens and access tokens all carry the released values, default `["pwd"]`), and
 * its `acr` to the value the ID token states (domain/acr.ts: one of the requested values when acr was essential).
 *
 * ID tokens (OpenID Connect Core 5.4): while the access token issued beside them can call UserInfo, the claims of
 * the profile, email, address and phone scopes are left to UserInfo, except those the client asks for in the ID
 * token with the claims parameter (`claims.id_token`, which the provider passes here as `requested`). When it
 * cannot (a token for an API), they stay in the ID token, which is then the client's only way to get them.
 */
export function createFindAccount(resolver: ClaimsResolver): FindAccount {
  return async (ctx, sub, token) => {
    const user = await resolver.findUser(sub);
    if (!user) return undefined;
    const t = token as unknown as
      | {
          kind?: string;
          amr?: unknown;
          acr?: unknown;
          claims?: unknown;
          clientId?: string;
          extra?: Record<string, unknown>;
        }
      | undefined;
    if (t?.kind && LOGIN_SOURCES.has(t.kind)) {
      t.amr = releasedAmr(t.amr, resolver.amrProfile);
      t.acr = statedAcr(typeof t.acr === 'string' ? t.acr : acrForAmr(t.amr), t.claims);
    }
    return {
      accountId: sub,
      // node-oidc-provider passes the scope of the token or request, which may be absent.
      claims: async (use: string, scope: string | undefined, requested?: Record<string, unknown>) => {
        const out = await resolver.claims(user, ctx.oidc.issuer, {
          use: use === 'userinfo' ? 'userinfo' : 'id_token',
          sub,
          scopes: new Set((scope ?? '').split(' ').filter(Boolean)),
          clientId: t?.clientId ?? ctx.oidc.client?.clientId,
          amr: t?.extra?.amr ?? t?.amr,
          log: requestLog(ctx),
        });
        if (use !== 'userinfo' && accessTokenReachesUserinfo(ctx)) {
          for (const c of STANDARD_SCOPE_CLAIMS) if (!requested || !(c in requested)) delete out[c];
        }
        return { sub, ...out };
      },
    };
  };
}

/**
 * Claims added to every user access token (RFC 9068 section 2.2.1): the released `amr` of the login, its `acr` (the
 * value the ID token states, findAccount above) and its `auth_time`. A resource server, and the token exchange's
 * phishing-resistant delegation, can then tell how and when the user signed in.
 */
export function userTokenClaims(
  ctx: KoaContextWithOIDC | undefined,
  token: { accountId?: string },
  profile: AmrProfile,
): Record<string, unknown> {
  if (!token.accountId || !ctx?.oidc) return {};
  const e = ctx.oidc.entities as Record<string, { amr?: unknown; acr?: unknown; authTime?: unknown } | undefined>;
  const source = e.AuthorizationCode ?? e.DeviceCode ?? e.RefreshToken ?? e.BackchannelAuthenticationRequest;
  if (!source) return {};
  const amr = releasedAmr(source.amr, profile);
  return {
    amr,
    acr: typeof source.acr === 'string' ? source.acr : acrForAmr(amr),
    ...(typeof source.authTime === 'number' ? { auth_time: source.authTime } : {}),
  };
}
