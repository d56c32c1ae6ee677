import type Provider from 'oidc-provider';
import { errorFields, type Logger } from '@idp/logger';

/** Provider events worth a log line. Errors never carry tokens: only the error code and description. */
export function registerProviderEvents(provider: Provider, logger: Logger): void {
  const error =
    (event: string) =>
    (_ctx: unknown, err: { error?: string; error_description?: string; message?: string; status?: number }) => {
      // The provider refuses every JWT at introspection; provider/introspection.ts answers those itself (not an error).
      if (event === 'introspection.error' && err.error === 'unsupported_token_type') return;
      const level = (err.status ?? 500) >= 500 ? 'error' : 'info';
      logger[level](
        { event, error: err.error ?? err.message, error_description: err.error_description, status: err.status },
        event,
      );
    };
  for (const event of [
    'grant.error',
    'server_error',
    'userinfo.error',
    'introspection.error',
    'revocation.error',
    'end_session.error',
    'authorization.error',
    'backchannel.error',
    'jwks.error',
    'discovery.error',
  ]) {
    (provider.on as (e: string, l: (...args: never[]) => void) => void)(event, error(event));
  }
  // What escapes the provider's own error handling (Koa's 'error'): one JSON line instead of Koa's stderr dump.
  (provider.on as (e: string, l: (err: unknown, ctx?: { path?: string; method?: string }) => void) => void)(
    'error',
    (err, ctx) => {
      logger.error({ err: errorFields(err), method: ctx?.method, path: ctx?.path }, 'provider error');
    },
  );
  provider.on(
    'grant.success',
    (ctx: { oidc: { params?: { grant_type?: unknown }; client?: { clientId: string } } }) => {
      logger.debug(
        { event: 'grant.success', grant_type: ctx.oidc.params?.grant_type, client_id: ctx.oidc.client?.clientId },
        'grant.success',
      );
    },
  );
}
