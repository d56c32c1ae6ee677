import type {
  ClaimsSettings,
  ClientDoc,
  ClientIdMetadataDocumentSettings,
  NheSettings,
  OpenidDynamicProfileSettings,
  RegistrationSettings,
  ResourceServerDoc,
  SecuritySettings,
  TenantDoc,
} from '@idp/db';

/*
 * Nested settings of stored documents as a lean read returns them. A document written by an older version, restored
 * from a backup or fixed by hand may lack the settings object, a section of it or a field of a section: mongoose
 * fills no nested default on a lean read (@idp/db lean-defaults fills top-level fields only). The declared document
 * types describe what current writers store, so readers go through these views and keep their own fallbacks
 * (`?? DEFAULT`): a missing setting never fails a request.
 */

/** A tenant's `settings` as they may be stored. */
export interface StoredTenantSettings {
  nhe?: Partial<NheSettings>;
  claims?: {
    amrProfile?: ClaimsSettings['amrProfile'];
    ga4ghPassport?: Partial<ClaimsSettings['ga4ghPassport']>;
  };
  security?: Partial<SecuritySettings>;
  clientIdMetadataDocuments?: Partial<ClientIdMetadataDocumentSettings>;
  registration?: Partial<RegistrationSettings>;
  openidDynamicProfile?: Partial<OpenidDynamicProfileSettings>;
}

/** The settings of a stored tenant (an empty object when it has none). */
export function storedSettingsOf(tenant: Pick<TenantDoc, 'settings'>): StoredTenantSettings {
  return (tenant as { settings?: StoredTenantSettings }).settings ?? {};
}

type ClientConfig = ClientDoc['config'];

/** A client's `config` as it may be stored. */
export interface StoredClientConfig {
  nhe?: Partial<ClientConfig['nhe']>;
  featureToggles?: Partial<ClientConfig['featureToggles']>;
  legacyRoleCompatibility?: boolean;
  customizeUserInfoClaims?: string;
}

/** The config of a stored client (an empty object when it has none). */
export function storedClientConfigOf(client: Pick<ClientDoc, 'config'>): StoredClientConfig {
  return (client as { config?: StoredClientConfig }).config ?? {};
}

type ResourceServerConfig = ResourceServerDoc['config'];

/** A resource server's `config` as it may be stored. */
export interface StoredResourceServerConfig {
  accessToken?: Partial<ResourceServerConfig['accessToken']>;
  nhe?: Partial<ResourceServerConfig['nhe']>;
}

/** The config of a stored resource server (an empty object when it has none). */
export function storedResourceServerConfigOf(rs: Pick<ResourceServerDoc, 'config'>): StoredResourceServerConfig {
  return (rs as { config?: StoredResourceServerConfig }).config ?? {};
}
