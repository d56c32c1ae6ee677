/**
 * The only place that reaches past node-oidc-provider's documented API. oidc-provider is pinned exactly
 * (9.13.3) in package.json because of this file.
 */
import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { outsideTenantSlot, TenantBusy } from '../tenants/request-scope';
import { clientSecretDigest, constantTimeEqual } from '@idp/tokens';

/**
 * Client secrets are stored as a keyed SHA-256 digest, and the client's `client_secret` metadata carries that
 * digest. Replacing `compareClientSecret` on this provider's Client class makes client_secret_basic and
 * client_secret_post digest the presented secret and compare digests in constant time.
 * (client_secret_jwt, which needs the plain secret as an HMAC key, is not offered.)
 */
export function useDigestedClientSecrets(provider: Provider, pepper: string): void {
  const ClientClass = provider.Client as unknown as {
    prototype: { clientSecret?: string; compareClientSecret: (actual: string) => boolean };
  };
  ClientClass.prototype.compareClientSecret = function compareClientSecret(
    this: { clientSecret?: string },
    actual: string,
  ): boolean {
    if (typeof this.clientSecret !== 'string' || typeof actual !== 'string') return false;
    return constantTimeEqual(this.clientSecret, clientSecretDigest(pepper, actual));
  };
}

/** A client's key set as node-oidc-provider keeps it (its ClientKeyStore): fresh, or refreshed from its jwks_uri. */
interface ClientKeySet {
  fresh(): boolean;
  refresh(): Promise<void>;
}

/**
 * Every request that waits on a client's key-set refresh (its `jwks_uri`) does so away from its tenant's admission
 * slot, as the request that fetches does (routes/tenant-admission.ts). node-oidc-provider makes the first request
 * that finds the key set stale fetch it and the client's other requests await the same refresh; left holding their
 * slots, a few of them would hold all of a tenant's slots for as long as the client's server takes to answer.
 *
 * Each provider has a key-set class of its own, reached through a client it builds: a probe client with no keys,
 * never stored nor used. A request refused for having too many of its tenant's requests away fails as an
 * `invalid_client` that says to try again later.
 */
export function keySetRefreshAwayFromSlot(provider: Provider): void {
  const ClientClass = provider.Client as unknown as new (metadata: Record<string, unknown>) => {
    asymmetricKeyStore: ClientKeySet;
  };
  const keySets = Object.getPrototypeOf(probeClient(ClientClass).asymmetricKeyStore) as ClientKeySet;
  const refresh = keySets.refresh;
  keySets.refresh = function refreshAwayFromSlot(this: ClientKeySet): Promise<void> {
    if (this.fresh()) return refresh.call(this);
    return outsideTenantSlot(() => refresh.call(this)).catch((err: unknown) => {
      throw err instanceof TenantBusy ? new errors.InvalidClient(err.message) : err;
    });
  };
}

/**
 * A client the provider accepts under any of our profiles: a public one where that is allowed, one with
 * private_key_jwt where only that is (FAPI 2.0 tenants). Only its key set's class is used.
 */
function probeClient<T>(ClientClass: new (metadata: Record<string, unknown>) => T): T {
  const base = {
    client_id: 'key-set-probe',
    redirect_uris: ['https://key-set-probe.invalid/cb'],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  };
  try {
    return new ClientClass({ ...base, token_endpoint_auth_method: 'none' });
  } catch {
    return new ClientClass({
      ...base,
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks_uri: 'https://key-set-probe.invalid/jwks',
    });
  }
}

/**
 * Empties each request's Koa context (and its `ctx.oidc`) once the response is closed, so that garbage from a
 * request stays young.
 *
 * node-oidc-provider gives every request its `ctx.oidc` through `Object.defineProperty(ctx, 'oidc', { get })` with
 * a getter closure made for that request, and V8 allocates the accessor pair of such a property in the old
 * generation. The dead pair points at the young closure, the closure at the context, the context at the request,
 * response, parameters and body: young-generation collections cannot see that the pair is dead, so every request's
 * objects were kept, promoted, and freed only by a major GC. At saturation that was a major GC every 1.6 s, each
 * stalling every request in flight for tens of milliseconds (bench/README.md). With the context emptied, the pair
 * keeps only an empty shell alive.
 *
 * It runs after the middleware chain has finished and the response has closed (or, for a client that went away
 * first, after Koa's own response handling), so nothing of the request's handling can still read the context.
 */
export function releaseRequestAfterResponse(provider: Provider): void {
  provider.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      const res = ctx.res;
      if (res.closed) setImmediate(emptyContext, ctx);
      else res.once('close', () => emptyContext(ctx));
    }
  });
}

/**
 * Best effort, never a failure: it runs from a 'close' listener or an immediate, where a throw would be uncaught.
 * A streamed body is left alone: Koa's pipeline callback may still read the context (app, onerror) after 'close'.
 */
function emptyContext(ctx: { body?: unknown }): void {
  try {
    if (isStreamed(ctx.body)) return;
    const getter = Object.getOwnPropertyDescriptor(ctx, 'oidc')?.get;
    if (getter) emptyObject(getter.call(ctx) as object);
    emptyObject(ctx);
  } catch {
    // Nothing to do: the request is over, and at worst its objects wait for a major GC as before.
  }
}

function isStreamed(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (typeof (body as { pipe?: unknown }).pipe === 'function' ||
      typeof (body as { getReader?: unknown }).getReader === 'function' ||
      body instanceof Blob ||
      body instanceof Response)
  );
}

/**
 * Sets the object's own writable data properties to undefined, symbol-keyed ones included (the Cookies objects that
 * Koa and node-oidc-provider keep under symbols hold the request and response; both getters rebuild them if asked).
 * Accessors and read-only values stay.
 */
function emptyObject(o: object): void {
  const own = o as Record<PropertyKey, unknown>;
  for (const key of Reflect.ownKeys(own)) {
    const d = Object.getOwnPropertyDescriptor(own, key);
    if (d?.writable) own[key] = undefined;
  }
}

/**
 * The provider's endpoints with the methods their specifications name (a path of the tenant's mount). POST at the
 * authorization and end-session endpoints is answered before the provider (routes/form-post-endpoints.ts).
 */
const MACHINE_ENDPOINTS: Partial<Record<string, readonly string[]>> = {
  '/authorize': ['GET', 'HEAD', 'POST'],
  '/session/end': ['GET', 'HEAD', 'POST'],
  '/oidc/token': ['POST'],
  '/token/introspection': ['POST'],
  '/token/revocation': ['POST'],
  '/request': ['POST'],
  '/jwks': ['GET', 'HEAD'],
  '/me': ['GET', 'HEAD', 'POST'],
  '/device/auth': ['POST'],
  '/.well-known/openid-configuration': ['GET', 'HEAD'],
};

/**
 * How long shared caches and clients may keep the public metadata (a path of the tenant's mount). Short, because
 * both change: discovery when resource servers or scopes change, the JWKS at a key rotation, whose new key signs at
 * once (a cached JWKS without it fails verification until it expires). Neither depends on anything but the path,
 * since the origin is the configured one (pinPublicOrigin), so a cache may serve one answer to everyone.
 */
const PUBLIC_METADATA_CACHE_CONTROL: Record<string, string> = {
  '/.well-known/openid-configuration': 'public, max-age=300',
  '/jwks': 'public, max-age=60',
};

/** node-oidc-provider's descriptions for a grant the client is not registered for (token and device endpoints). */
const GRANT_NOT_ALLOWED =
  /^(requested grant type|urn:ietf:params:oauth:grant-type:device_code) is not allowed for this client$/;

/**
 * The provider's answers put into the OAuth form the RFCs name, in one middleware around its router (one frame per
 * request, on the token endpoint's hot path too):
 * - an endpoint of MACHINE_ENDPOINTS called with another method (CORS preflights aside) is 405 with `Allow`, before
 *   the provider's router, which could take it for another route (GET /device/auth matches /device/:uid);
 * - what no route answers gets OAuth JSON instead of Koa's plain-text "Not Found": 404 `not_found` (as for an
 *   unknown tenant);
 * - a grant the client is not registered for, which the provider refuses with invalid_request, is
 *   unauthorized_client (RFC 6749 section 5.2; RFC 8628 section 3.2 for device authorization), for every grant;
 * - discovery and the JWKS carry a short public Cache-Control (PUBLIC_METADATA_CACHE_CONTROL).
 */
export function oauthAnswers(provider: Provider): void {
  provider.use(async (ctx, next) => {
    const allowed = MACHINE_ENDPOINTS[ctx.path];
    if (allowed && ctx.method !== 'OPTIONS' && !allowed.includes(ctx.method)) {
      ctx.status = 405;
      ctx.set('Allow', allowed.join(', '));
      ctx.set('Cache-Control', 'no-store');
      ctx.body = {
        error: 'invalid_request',
        error_description: `method ${ctx.method} is not allowed; use ${allowed.filter((m) => m !== 'HEAD').join(' or ')}`,
      };
      return;
    }
    await next();
    if (ctx.status === 200) {
      const cacheControl =
        ctx.method === 'GET' || ctx.method === 'HEAD' ? PUBLIC_METADATA_CACHE_CONTROL[ctx.path] : undefined;
      if (cacheControl) ctx.set('Cache-Control', cacheControl);
      return;
    }
    if (ctx.status === 400) {
      const body = ctx.body as { error?: string; error_description?: string } | undefined;
      if (body?.error === 'invalid_request' && GRANT_NOT_ALLOWED.test(body.error_description ?? ''))
        body.error = 'unauthorized_client';
      return;
    }
    if (ctx.status !== 404 || ctx.body != null) return;
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 404;
    ctx.body = { error: 'not_found', error_description: 'no such endpoint' };
  });
}

/** An absolute-form request target (`GET http://host/path HTTP/1.1`), which Koa would take as the whole URL. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * Every URL node-oidc-provider writes or compares (the endpoints in discovery, the DPoP `htu` it expects at the token
 * and UserInfo endpoints, the audiences of client assertions, the device verification URI, form actions, redirects
 * and cookie paths) comes from `ctx.oidc.urlFor`: Koa's `ctx.href` for the origin, plus the mount path. Koa takes the
 * origin from the request (Host, or X-Forwarded-Host and X-Forwarded-Proto when `proxy` is on, or the authority of an
 * absolute-form request target), so whoever sends the request would choose it, and a cache or a default-backend
 * ingress in front would hand those URLs to everyone.
 *
 * This pins the origin of every request to this provider to the configured public base URL, in one place: the
 * provider is the Koa application, and `provider.request` is the prototype of each request's `ctx.request`
 * (Koa's `app.request`), so its `protocol`, `host` (and with it `hostname`, `secure` and the cookies' secure flag),
 * `href` and `URL` answer from the configuration. The path stays the request's own, so the `/_api` alias keeps its
 * URLs under `/_api`. X-Forwarded-For (the client address) is untouched.
 */
export function pinPublicOrigin(provider: Provider, publicBaseUrl: string): void {
  const base = new URL(publicBaseUrl);
  const protocol = base.protocol.slice(0, -1);
  const { host } = base;
  const origin = `${protocol}://${host}`;
  const pathOf = (originalUrl: string | undefined): string => {
    const path = (originalUrl ?? '').replace(ABSOLUTE_FORM, '');
    return path.startsWith('/') ? path : `/${path}`;
  };
  const request = (provider as unknown as { request: object }).request;
  Object.defineProperties(request, {
    protocol: { get: () => protocol, configurable: true },
    host: { get: () => host, configurable: true },
    href: {
      get(this: { originalUrl?: string }) {
        return origin + pathOf(this.originalUrl);
      },
      configurable: true,
    },
    URL: {
      get(this: { originalUrl?: string }) {
        return new URL(origin + pathOf(this.originalUrl));
      },
      configurable: true,
    },
  });
}
