/**
 * UserInfo for JWT access tokens issued for the tenant's own UserInfo audience (`{issuer}/me`, requested with
 * `resource`). node-oidc-provider's UserInfo only knows its opaque access tokens, so a JWT bearer token at `/me`
 * (in the Authorization header, or in a POST's form body: RFC 6750 section 2) is answered here (verified by
 * @idp/resource-server against the tenant's keys, issuer, audience, `typ: at+jwt`,
 * expiry); every other request goes on to the provider. Both paths release the same claims (claims-account.ts).
 *
 * Login scopes are never in a JWT access token's `scope`: a UserInfo-audience token carries its granted login
 * scopes in `org.vendor.userinfo.scope` instead.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload } from 'jose';
import type Provider from 'oidc-provider';
import { ResourceServerError, verifyJwtAccessToken } from '@idp/resource-server';
import type { ClaimsResolver } from './claims-account';
import { claimsForScopes } from './claims';
import type { LogLike } from './claims-custom';
import { CLAIM_USERINFO_SCOPE, userinfoAudience } from './userinfo-audience';

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

type KoaLikeContext = {
  path: string;
  method: string;
  status: number;
  body: unknown;
  req: AsyncIterable<Buffer> & { log?: LogLike; body?: unknown };
  get(name: string): string;
  set(name: string, value: string): void;
  is(type: string): string | false | null;
};

/** node-oidc-provider's own limit on a form body. */
const FORM_LIMIT = 56 * 1024;

/**
 * The access tokens of a form-encoded POST body (RFC 6750 section 2.2). The body is read here and left on
 * `req.body`, where the provider's parser takes it from (it reads the stream only while the stream is unread; it
 * warns once per process that it found a parsed body), so the provider sees the same parameters whichever of the
 * two answers.
 */
async function formBodyTokens(ctx: KoaLikeContext): Promise<string[]> {
  if (ctx.method !== 'POST' || !ctx.is('application/x-www-form-urlencoded')) return [];
  const length = Number(ctx.get('content-length') || 0);
  if (length > FORM_LIMIT) return []; // the provider refuses it
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw Object.assign(new Error('request entity too large'), { status: 413 });
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  ctx.req.body = body;
  return new URLSearchParams(body.toString('utf8')).getAll('access_token');
}

function fail(ctx: KoaLikeContext, issuer: string, status: 400 | 401 | 403, error: string, description: string): void {
  ctx.status = status;
  ctx.set('WWW-Authenticate', `Bearer realm="${issuer}", error="${error}", error_description="${description}"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

export function registerJwtUserinfo(provider: Provider, publicJwks: JSONWebKeySet, resolver: ClaimsResolver): void {
  const issuer = provider.issuer;
  const audience = userinfoAudience(issuer);
  const jwks = createLocalJWKSet(publicJwks);

  provider.use(async (koa, next) => {
    const ctx = koa as unknown as KoaLikeContext;
    if (ctx.path !== '/me' || (ctx.method !== 'GET' && ctx.method !== 'POST')) return next();
    let inBody: string[];
    try {
      inBody = await formBodyTokens(ctx);
    } catch {
      return fail(ctx, issuer, 400, 'invalid_request', 'the request body could not be read');
    }
    // Two tokens in the body, or one there and one in the header: the provider refuses the request (one mechanism,
    // no repeated parameter), with the same answer whatever the tokens are.
    if (inBody.length > 1 || (inBody.length === 1 && ctx.get('authorization'))) return next();
    const match = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'));
    const token = inBody[0] ?? match?.[1];
    if (!token || !JWT_SHAPE.test(token)) return next();

    const senderConstrained = 'sender-constrained JWT access tokens are not accepted at UserInfo';
    let payload: JWTPayload;
    try {
      // The shared verifier (@idp/resource-server): canonical compact JWS, signature, issuer, audience, typ, time.
      const verified = await verifyJwtAccessToken(token, {
        key: jwks,
        issuer,
        audience,
        typ: 'at+jwt',
        algorithms: ['ES256', 'RS256'],
      });
      if (verified.binding) return fail(ctx, issuer, 401, 'invalid_token', senderConstrained);
      payload = verified.payload;
    } catch (err) {
      if (!(err instanceof ResourceServerError)) throw err;
      const description =
        err.reason === 'expired'
          ? 'access token is expired'
          : err.reason === 'claim_invalid' || err.reason === 'not_yet_valid'
            ? "access token is not for this tenant's UserInfo audience"
            : err.reason === 'cnf_unsupported' || err.reason === 'cnf_malformed'
              ? senderConstrained
              : 'access token is invalid';
      return fail(ctx, issuer, 401, 'invalid_token', description);
    }
    const scopes = new Set(
      String(payload[CLAIM_USERINFO_SCOPE] ?? '')
        .split(' ')
        .filter(Boolean),
    );
    if (!scopes.has('openid')) return fail(ctx, issuer, 403, 'insufficient_scope', 'access token missing openid scope');
    const sub = typeof payload.sub === 'string' ? payload.sub : '';
    const user = sub ? await resolver.findUser(sub) : null;
    if (!user) return fail(ctx, issuer, 401, 'invalid_token', 'access token subject is not an active user');

    const all = await resolver.claims(user, issuer, {
      use: 'userinfo',
      sub,
      scopes,
      clientId: typeof payload.client_id === 'string' ? payload.client_id : undefined,
      amr: payload.amr,
      log: ctx.req.log,
    });
    const released = claimsForScopes(scopes);
    const body: Record<string, unknown> = { sub };
    for (const [k, v] of Object.entries(all)) if (released.has(k) && v !== undefined) body[k] = v;
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 200;
    ctx.body = body;
    return undefined;
  });
}
