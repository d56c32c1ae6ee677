/**
 * The client's address for every per-address decision and record of the provider (the registration limit, the audit
 * row's source address): the address express resolves under the trusted hop count (TRUST_PROXY, TRUST_PROXY_HOPS),
 * that is the entry the outermost trusted proxy appended to X-Forwarded-For. Koa's `ctx.ip` with `proxy` on would be
 * the left-most entry, which the client writes itself; the tenant pool also caps what Koa reads (`maxIpsCount`), and
 * this stays the one place that names the source.
 */
export function clientAddress(ctx: { req: object; ip: string }): string {
  const resolved = (ctx.req as { ip?: unknown }).ip;
  return typeof resolved === 'string' && resolved ? resolved : ctx.ip;
}
