// @ts-check
/**
 * The ceiling for bench/client-credentials: a bare node-oidc-provider (in-memory adapter, one static client,
 * one resource server, the same ES256 JWT access tokens) in its own process, like oidc-core is.
 * Prints its port on stdout once listening.
 */
const { run, serve } = require('../reference-server');
const { generateKeyPair, exportJWK } = require('jose');

async function main() {
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const resource = process.env.RESOURCE ?? 'https://api.orders.example';
  const provider = new Provider('http://127.0.0.1/bare', {
    jwks: { keys: [jwk] },
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['client_credentials'], response_types: [] },
    clients: [
      {
        client_id: 'bench',
        client_secret: process.env.CLIENT_SECRET ?? 'bench-secret',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: 'orders:read orders:write',
          accessTokenFormat: 'jwt',
          accessTokenTTL: 3600,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    routes: { token: '/oidc/token' },
  });
  serve(provider.callback());
}

run(main);
