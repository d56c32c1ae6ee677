/**
 * What the provider publishes, corrected after it answers (provider.use, around its router):
 *
 * - The JWKS: a retired signing key is handed to the provider with `key_ops: ["verify"]` (libs/tokens key-store.ts),
 *   so that it keeps verifying with it (an `id_token_hint` it signed) and never signs with it again. The provider
 *   publishes `key_ops` with the key, so the JWK a client cached would change at rotation though the key did not
 *   (RFC 7517 section 4.3: key_ops is a member of the key's representation). The set is published as it was: each
 *   key without `key_ops`, as it was published while it signed, until it is dropped.
 *
 * - Discovery, under the OpenID Dynamic profile: node-oidc-provider writes `request_uri_parameter_supported: false`
 *   (v9 resolves no request_uri but its own pushed ones); the tenant resolves them (authorization-requests.ts), so
 *   the document says so, and that request URIs need no pre-registration (Discovery 1.0 section 3).
 */
import type Provider from 'oidc-provider';

export function registerPublishedMetadata(provider: Provider, o: { profile: boolean }): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 200 || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return;
    if (ctx.path === '/jwks' && Array.isArray(body.keys)) {
      // A new set: the provider's own key objects stay as they are.
      ctx.body = {
        keys: (body.keys as Array<Record<string, unknown>>).map((key) => {
          const published = { ...key };
          delete published.key_ops;
          return published;
        }),
      };
    } else if (o.profile && ctx.path === '/.well-known/openid-configuration') {
      body.request_uri_parameter_supported = true;
      body.require_request_uri_registration = false;
    }
  });
}
