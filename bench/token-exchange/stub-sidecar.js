// @ts-check
/**
 * A sidecar that answers every forwarded exchange at once with a fixed token response: bench/token-exchange runs
 * oidc-core against it to measure oidc-core's stage alone (client authentication, grant dispatch, the forward and
 * its response), without the sidecar's work. Prints its port on stdout.
 */
const { run, serve } = require('../reference-server');

const body = JSON.stringify({
  access_token: 'x'.repeat(600),
  issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
  token_type: 'Bearer',
  expires_in: 300,
});

run(async () => {
  serve((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(body);
    });
  });
});
