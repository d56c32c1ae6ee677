/**
 * Starts the Orders API: the verifier for the tenant's issuer and this API's resource identifier, the SSF poll
 * receiver as its revocation source (client credentials of a client allowed ssf.manage on urn:idp:ssf), then the
 * HTTP server. Logs JSON lines on stdout (the audit lines included). Environment:
 *
 * ORDERS_ISSUER (the tenant's issuer), ORDERS_RESOURCE (this API's URL: the tokens' aud), PORT (4100), HOST
 * (127.0.0.1), SSF_CLIENT_ID and SSF_CLIENT_SECRET (the receiver; without them no revocations are learnt),
 * SSF_POLL_INTERVAL_MS (5000), SSF_LONG_POLL (true/false).
 */
import { createSsfPollReceiver, createVerifier, type SsfPollReceiver } from '@idp/resource-server';
import { createOrdersApi } from './app';

function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is required`);
    process.exit(1);
  }
  return value;
}

const log = (line: object): void => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), service: 'orders-api', ...line })}\n`);
};

async function main(): Promise<void> {
  const issuer = required('ORDERS_ISSUER');
  const resource = required('ORDERS_RESOURCE');
  const port = Number(process.env.PORT ?? 4100);
  const host = process.env.HOST ?? '127.0.0.1';

  let receiver: SsfPollReceiver | undefined;
  if (process.env.SSF_CLIENT_ID && process.env.SSF_CLIENT_SECRET) {
    receiver = createSsfPollReceiver({
      issuer,
      clientCredentials: { clientId: process.env.SSF_CLIENT_ID, clientSecret: process.env.SSF_CLIENT_SECRET },
      intervalMs: Number(process.env.SSF_POLL_INTERVAL_MS ?? 5000),
      longPoll: process.env.SSF_LONG_POLL === 'true',
      exclusive: true,
      onError: (err) => log({ event: 'revocations.error', message: err.message }),
    });
    // The first sync fills the list before the first request; if the transmitter is down, the API starts anyway
    // and the receiver keeps retrying (fail open for revocations it has not learnt: see the package README).
    await receiver.start().catch(() => undefined);
  }
  const verifier = createVerifier({ issuer, audience: resource, ...(receiver ? { revocations: receiver } : {}) });
  await verifier.metadata().catch((err: Error) => log({ event: 'discovery.error', message: err.message }));
  const app = createOrdersApi({
    issuer,
    resource,
    verifier,
    log,
    ...(receiver ? { revocationStatus: () => receiver.status() } : {}),
  });
  const server = app.listen(port, host, () =>
    log({ event: 'listening', port, host, revocations: receiver ? receiver.status() : null }),
  );

  const shutdown = () => {
    server.close();
    server.closeAllConnections();
    void (receiver?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
