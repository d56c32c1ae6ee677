/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, as MCP authorization asks):
 * a `client_id` that is an https URL names a JSON document with the client's metadata.
 *
 * node-oidc-provider 9.13 implements the draft behind `features.clientIdMetadataDocument` (experimental,
 * acknowledged as draft-02): it recognises such client ids, fetches the document with `redirect: 'manual'` (a 3xx is
 * a failure, so no redirect is followed), caps its size (`fetchResponseBodyLimits`), checks that the document's
 * `client_id` is its URL, refuses shared-secret authentication methods and any `client_secret`, requires https for
 * every web URI, caches it within `cacheDuration` by Cache-Control max-age / Expires, and advertises
 * `client_id_metadata_document_supported`. We use it as it is and extend it through its public configuration:
 * - `fetch`: every outbound request of the tenant's provider (documents, and the jwks_uri of private_key_jwt
 *   clients) goes through @idp/http's outboundRequest: the name is resolved once inside the socket's lookup and
 *   every address checked (no loopback unless the operator allows it, CIMD_ALLOW_LOOPBACK, for development; never
 *   private, link-local, metadata or reserved addresses), the connection is made to the checked address, no redirect
 *   is followed, the body is capped and the exchange bounded in time (connection 1 s, whole exchange 2.5 s); and
 *   under the limits of provider/outbound-fetches.ts (the request gives its admission slot up while it waits, a few
 *   fetches per tenant at once, one per request and URL, failures remembered);
 * - `allowFetch`: the tenant's allowed host patterns, loopback hosts only where the operator allows them, and the
 *   limits above told early, with a description (`invalid_client`, "try again later");
 * - `allowClient`: only `none`, or `private_key_jwt` with keys at `jwks_uri`; authorization_code and refresh_token
 *   only; redirect URIs by domain/client-registration-policy.ts (RFC 8252 for native clients, exact https otherwise);
 * - `extraClientMetadata.validator`: a document cannot set our own client properties: its client is a third party
 *   (consent page, never first-party), with PKCE, and no numeric id (so no NHE delegation);
 * - a document's `scope` naming API scopes (e.g. `mcp:tools`) would make node-oidc-provider refuse the whole client
 *   (it accepts only its OpenID scopes there): as at registration (provider/registration.ts), the value is replaced
 *   by its OpenID scopes, in the fetched document itself (only an answer whose `client_id` is the URL fetched).
 */
import type { lookup as dnsLookup } from 'node:dns';
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { CIMD_SETTINGS_DEFAULTS, type ClientIdMetadataDocumentSettings, type TenantDoc } from '@idp/db';
import { outboundRequest } from '@idp/http';
import { clientPolicyProblem, hostAllowed } from '../domain/client-registration-policy';
import { storedSettingsOf } from '../domain/stored-docs';
import { registrableScope } from './registration';
import type { FetchedAnswer, OutboundFetches, OutboundFetchLimits } from './outbound-fetches';

/**
 * How outbound requests are made: the operator's policy and limits (main.ts, from the environment), and for tests a
 * CA for their local https server, a resolver and shorter deadlines.
 */
export interface OutboundOptions extends Partial<OutboundFetchLimits> {
  /**
   * Loopback hosts (127.0.0.0/8, ::1, localhost), over http too, for every outbound request of every tenant
   * (CIMD_ALLOW_LOOPBACK): local development and tests only. Never a tenant's setting.
   */
  allowLoopback?: boolean;
  /** Trusted CAs instead of the default ones. */
  ca?: string | Buffer;
  /** DNS resolver (tests: names that resolve to private addresses). */
  resolve?: typeof dnsLookup;
  /** Whole exchange bound (ms); default 2500, node-oidc-provider's own. */
  timeoutMs?: number;
  /** Bound on the connection: name resolved, TCP connected, TLS handshake done (ms); default 1000. */
  connectTimeoutMs?: number;
}

/** Default deadlines of an outbound request (ms). */
export const OUTBOUND_TIMEOUT_MS = 2500;
export const OUTBOUND_CONNECT_TIMEOUT_MS = 1000;

/** Largest answer of any outbound request (jwks_uri, sector identifier); documents have their own, smaller cap. */
const MAX_OUTBOUND_BYTES = 256 * 1024;
/** Grant types a metadata-document client may have: it acts for a signed-in user. */
const CIMD_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const CIMD_AUTH_METHODS = ['none', 'private_key_jwt'] as const;

/**
 * The tenant's settings. An `allowLoopback` that earlier versions stored is not read: a tenant setting never widens
 * the platform's outbound policy.
 */
export function cimdSettingsOf(tenant: Pick<TenantDoc, 'settings'>): ClientIdMetadataDocumentSettings {
  const s = storedSettingsOf(tenant).clientIdMetadataDocuments;
  return {
    enabled: s?.enabled ?? CIMD_SETTINGS_DEFAULTS.enabled,
    allowedHosts: s?.allowedHosts ?? [...CIMD_SETTINGS_DEFAULTS.allowedHosts],
    cacheMaxSeconds: s?.cacheMaxSeconds ?? CIMD_SETTINGS_DEFAULTS.cacheMaxSeconds,
    maxDocumentBytes: s?.maxDocumentBytes ?? CIMD_SETTINGS_DEFAULTS.maxDocumentBytes,
  };
}

/** Whether a client id is a URL (a metadata document's): managed and registered client ids never contain `:`. */
export function isMetadataDocumentClientId(clientId: unknown): boolean {
  return typeof clientId === 'string' && clientId.startsWith('https://');
}

/** Loopback hosts by name or literal; a trailing dot (a fully qualified name) changes nothing. */
const LOOPBACK_NAMES = /^(localhost|.*\.localhost|127(\.\d{1,3}){3}|\[::1\])\.*$/i;

/**
 * The `fetch` node-oidc-provider calls for every outbound request of the tenant's provider: under the operator's
 * policy (`o.allowLoopback`) and the process's limits (`fetches`).
 */
export function outboundFetch(
  tenantId: number,
  fetches: OutboundFetches,
  o: OutboundOptions = {},
): NonNullable<Configuration['fetch']> {
  return (async (url: URL | string, init: { method?: string; headers?: Headers; body?: string } = {}) => {
    const target = String(url);
    const method = init.method ?? 'GET';
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => {
      // node-oidc-provider sends an empty user-agent; leave it out.
      if (value !== '') headers[key] = value;
    });
    const answer = await fetches.fetch(tenantId, method, target, async (): Promise<FetchedAnswer> => {
      const res = await outboundRequest(target, {
        method,
        headers,
        body: typeof init.body === 'string' ? init.body : undefined,
        timeoutMs: o.timeoutMs ?? OUTBOUND_TIMEOUT_MS,
        connectTimeoutMs: o.connectTimeoutMs ?? OUTBOUND_CONNECT_TIMEOUT_MS,
        maxResponseBytes: MAX_OUTBOUND_BYTES,
        policy: { allowLoopback: o.allowLoopback === true },
        resolve: o.resolve,
        ca: o.ca,
      });
      if (res.truncated) throw new Error('response too large');
      if (res.status < 200 || res.status > 599) throw new Error(`unexpected response status ${res.status}`);
      const list: Array<[string, string]> = [];
      for (const [k, v] of Object.entries(res.headers)) for (const one of [v ?? []].flat()) list.push([k, String(one)]);
      return { status: res.status, headers: list, body: res.body };
    });
    const out = new Headers(answer.headers);
    const nullBody = answer.status === 204 || answer.status === 205 || answer.status === 304;
    const body =
      answer.status === 200 && isMetadataDocumentClientId(target)
        ? withRegistrableScope(target, answer.body)
        : answer.body;
    if (body !== answer.body) out.delete('content-length');
    return new Response(nullBody ? null : body, { status: answer.status, headers: out });
  }) as unknown as NonNullable<Configuration['fetch']>;
}

/**
 * A metadata document (a JSON object whose `client_id` is the URL it was fetched from) with its `scope` replaced by
 * its OpenID scopes (absent when none); any other answer unchanged.
 */
export function withRegistrableScope(url: string, body: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return body;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return body;
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url || !('scope' in d)) return body;
  const scope = registrableScope(d.scope);
  if (scope === undefined) delete d.scope;
  else d.scope = scope;
  return JSON.stringify(d);
}

function refuse(description: string): never {
  const err = new errors.InvalidClient(description);
  err.error_description = description;
  throw err;
}

/**
 * `features.clientIdMetadataDocument` for the tenant (disabled unless its settings enable it). `outbound`: the
 * operator's loopback rule, and the process's fetch limits with the tenant they count for.
 */
export function clientIdMetadataDocumentFeature(
  settings: ClientIdMetadataDocumentSettings,
  outbound: { allowLoopback: boolean; tenantId: number; fetches: OutboundFetches },
) {
  return {
    enabled: settings.enabled,
    ...(settings.enabled ? { ack: 'draft-02' } : {}),
    // Within the tenant's bound; at least a minute (or the bound when it is lower).
    cacheDuration: { min: Math.min(60, settings.cacheMaxSeconds), max: settings.cacheMaxSeconds },
    async allowFetch(_ctx: KoaContextWithOIDC, clientId: string): Promise<boolean> {
      const url = URL.parse(clientId);
      if (!url) return false;
      const host = url.hostname.toLowerCase();
      if (LOOPBACK_NAMES.test(host) && !outbound.allowLoopback)
        refuse('client_id metadata documents on loopback hosts are not allowed');
      if (!hostAllowed(settings.allowedHosts, host))
        refuse(`client_id metadata documents from ${host} are not allowed in this tenant`);
      // The limits on outbound fetches, told here with a description (the fetch itself can only fail).
      const refusal = await outbound.fetches.refusal(outbound.tenantId, clientId);
      if (refusal) refuse(`client_id metadata document not fetched: ${refusal}`);
      return true;
    },
    allowClient(_ctx: KoaContextWithOIDC, client: { metadata(): Record<string, unknown> }): boolean {
      const problem = clientPolicyProblem(
        client.metadata(),
        { grantTypes: CIMD_GRANT_TYPES, tokenEndpointAuthMethods: CIMD_AUTH_METHODS },
        { requireJwksUri: true },
      );
      if (problem) refuse(`client_id metadata document: ${problem}`);
      return true;
    },
  };
}
