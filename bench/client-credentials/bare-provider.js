// @ts-check
/**
 * The ceiling for bench/client-credentials: a bare node-oidc-provider (in-memory adapter, one static client,
 * one resource server, the same ES256 JWT access tokens) in its own process, like oidc-core is.
 * Prints its port on stdout once listening.
 */
const { createServer } = require('node:http');
const { generateKeyPair, exportJWK } = require('jose');

async function main() {
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
  const resource = process.env.RESOURCE ?? 'https://api.orders.example';
  const provider = new Provider('http://127.0.0.1/bare', {
    jwks: { keys: [jwk] },
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['client_credentials'], response_types: [] },
    clients: [{ client_id: 'bench', client_secret: process.env.CLIENT_SECRET ?? 'bench-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({ scope: 'orders:read orders:write', accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'ES256' } } }),
      },
    },
    routes: { token: '/oidc/token' },
  });
  const callback = provider.callback();
  const server = createServer((req, res) => callback(req, res));
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
