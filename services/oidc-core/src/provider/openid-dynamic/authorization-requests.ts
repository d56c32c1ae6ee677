/**
 * What the authorization endpoint needs before node-oidc-provider reads the request (provider.use, ahead of its
 * router; a POST to /authorize arrives here as a GET, routes/form-post-endpoints.ts):
 *
 * - Errors in the requested response mode (OAuth 2.0 Multiple Response Type Encoding Practices section 2, Form Post
 *   Response Mode section 2, JARM): the provider answers an error in the request's `response_mode`, but it refuses a
 *   request object before reading it when request objects are off (`request_not_supported`, Core section 6.1), so
 *   a `response_mode` (and `state`, `redirect_uri`) sent only inside the object would be lost and the error would go
 *   back in the default mode, by query. With request objects off, those three members of the object are read
 *   (unverified) into the request where the request itself lacks them: they decide only how the refusal is
 *   delivered. The provider still sends it only to a redirect URI the client registered, and the request is
 *   refused whatever they say.
 *
 * - `request_uri` by reference (Core section 6.2, RFC 9101 section 5.2), under the OpenID Dynamic profile:
 *   node-oidc-provider v9 takes request_uri only from its own pushed authorization requests. Any other value must be
 *   an https URL; the request object is fetched through the tenant's outbound layer (the `fetch` of its provider
 *   configuration: the operator's SSRF policy, time and size bounds, the process's per-tenant in-flight limit and
 *   failure cache), then handed to the provider as `request`, which verifies it as a request object by value. A URL
 *   that cannot be fetched, or whose answer is not a JWS, is refused with invalid_request_uri (checked after the
 *   client and its redirect URI, so the refusal goes back to the client). Nothing is fetched for a request whose
 *   client_id names no client of the tenant.
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';

/** The members of a request object that decide how an error is delivered. */
const DELIVERY_MEMBERS = ['response_mode', 'state', 'redirect_uri'] as const;

/** node-oidc-provider's pushed authorization request URIs (RFC 9126), which it resolves itself. */
const PAR_URN = 'urn:ietf:params:oauth:request_uri:';

/** Core section 6.2: a request_uri SHOULD NOT exceed 512 ASCII characters; anything much longer is refused. */
const MAX_REQUEST_URI_LENGTH = 2048;

/** The largest request object fetched by reference. */
export const MAX_REQUEST_OBJECT_BYTES = 64 * 1024;

const JWS_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The decoded payload of a compact JWS or unsecured JWT, unverified; undefined when it is not one. */
export function unverifiedPayload(jwt: string): Record<string, unknown> | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return payload && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

type FetchLike = (url: string, init: { method: string; headers: Headers }) => Promise<Response>;

/** Why a request_uri could not be resolved, kept for the validator below (per request). */
const requestUriProblems = new WeakMap<object, string>();

/** The extraParams entry whose validator reports an unresolved request_uri. */
export const REQUEST_URI_CHECK_PARAM = 'idp_request_uri_check';

export function requestUriParams() {
  return {
    [REQUEST_URI_CHECK_PARAM]: (ctx: KoaContextWithOIDC) => {
      const problem = requestUriProblems.get(ctx);
      if (problem === undefined) return;
      const err = new errors.InvalidRequestUri(problem);
      err.error_description = problem;
      throw err;
    },
  };
}

/** The request object at `uri`, or why it could not be had. */
async function fetchRequestObject(fetch: FetchLike, uri: string): Promise<{ jwt: string } | { problem: string }> {
  if (uri.length > MAX_REQUEST_URI_LENGTH) return { problem: 'request_uri is too long' };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { problem: 'request_uri must be an absolute https URL' };
  }
  if (url.protocol !== 'https:') return { problem: 'request_uri must be an absolute https URL' };
  // The fragment is the client's cache key (Core section 6.2), never sent.
  url.hash = '';
  try {
    const res = await fetch(url.href, {
      method: 'GET',
      headers: new Headers({ accept: 'application/oauth-authz-req+jwt, application/jwt' }),
    });
    if (res.status !== 200) return { problem: `request_uri answered ${res.status}` };
    const body = (await res.text()).trim();
    if (Buffer.byteLength(body) > MAX_REQUEST_OBJECT_BYTES) return { problem: 'the request object is too large' };
    if (!JWS_SHAPE.test(body)) return { problem: 'request_uri did not answer a signed request object' };
    return { jwt: body };
  } catch {
    return { problem: 'the request object could not be fetched from request_uri' };
  }
}

function single(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Whether `clientId` names a client of the tenant. A request_uri is the client's own object (Core section 6.2: the
 * client stores it where the OP can fetch it), so it is fetched only for a client the tenant knows: a request without
 * a known client_id fetches nothing, and the provider refuses it (invalid_client) before it looks at the request_uri.
 * Without this, anyone could make the tenant send GET requests to URLs of their choosing and hold its outbound fetch
 * slots, which its clients' jwks_uri and metadata documents need.
 */
async function knownClient(provider: Provider, clientId: unknown): Promise<boolean> {
  const id = single(clientId);
  if (id === undefined) return false;
  try {
    return (await provider.Client.find(id)) !== undefined;
  } catch {
    return false;
  }
}

export interface AuthorizationRequestOptions {
  /** Whether the tenant serves the OpenID Dynamic profile (request objects on). */
  profile: boolean;
  /** The tenant's outbound fetch (its provider configuration's `fetch`). */
  fetch: FetchLike;
}

export function registerAuthorizationRequests(provider: Provider, o: AuthorizationRequestOptions): void {
  provider.use(async (ctx, next) => {
    if (ctx.path !== '/authorize' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const query = { ...ctx.query };
    let changed = false;
    const requestUri = single(query.request_uri);
    if (
      o.profile &&
      requestUri !== undefined &&
      !requestUri.startsWith(PAR_URN) &&
      query.request === undefined &&
      (await knownClient(provider, query.client_id))
    ) {
      const got = await fetchRequestObject(o.fetch, requestUri);
      delete query.request_uri;
      if ('jwt' in got) query.request = got.jwt;
      else requestUriProblems.set(ctx, got.problem);
      changed = true;
    }
    const request = single(query.request);
    if (!o.profile && request !== undefined) {
      const payload = unverifiedPayload(request);
      for (const member of DELIVERY_MEMBERS) {
        const value = payload?.[member];
        if (query[member] === undefined && typeof value === 'string') {
          query[member] = value;
          changed = true;
        }
      }
    }
    if (changed) ctx.query = query;
    return next();
  });
}
