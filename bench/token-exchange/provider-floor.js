// @ts-check
/**
 * The floor of oidc-core's share in bench/token-exchange: a bare node-oidc-provider (in-memory adapter, one static
 * client with client_secret_basic) with the token-exchange grant registered as oidc-core registers it, answering a
 * fixed token response at once (no sidecar hop, no tenancy, no logging, no metrics). It measures what the protocol
 * core itself costs per exchange request: routing, body parsing, client authentication, grant dispatch, response.
 * Prints its port on stdout once listening.
 */
const { run, serve } = require('../reference-server');

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const PARAMS = [
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'resource',
  'scope',
  'audience',
  'requested_token_type',
];

async function main() {
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider('http://127.0.0.1/floor', {
    clients: [
      {
        client_id: process.env.CLIENT_ID ?? 'bench',
        client_secret: process.env.CLIENT_SECRET ?? 'bench-secret',
        grant_types: [GRANT],
        redirect_uris: [],
        response_types: [],
      },
    ],
    features: { devInteractions: { enabled: false } },
    routes: { token: '/oidc/token' },
  });
  const body = {
    access_token: 'x'.repeat(600),
    issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    token_type: 'Bearer',
    expires_in: 300,
  };
  provider.registerGrantType(
    GRANT,
    async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = body;
    },
    PARAMS,
  );
  serve(provider.callback());
}

run(main);
