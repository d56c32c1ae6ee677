import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '@idp/logger';

export interface Listening {
  server: Server;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish (up to `graceMs`), then resolves. */
  close: (graceMs?: number) => Promise<void>;
}

/** Listens on host:port (port 0 picks a free one) and returns a draining close function. `app`: an express app or any request listener. */
export function listen(app: RequestListener, host: string, port: number, logger: Logger): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = createServer(app);
    server.listen(port, host);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.once('listening', () => {
      const address = server.address();
      const actual = typeof address === 'object' && address ? address.port : port;
      logger.info({ host, port: actual }, 'listening');
      resolve({
        server,
        port: actual,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              server.closeAllConnections();
            }, graceMs);
            timer.unref();
            // server.close() closes the connections idle at that moment only: a keep-alive connection whose request
            // was in flight stays open once answered, and the drain would last the whole grace (a process stopped
            // by an orchestrator with a grace of the same length would then be killed). Close those as they idle.
            const idle = setInterval(() => server.closeIdleConnections(), 50);
            idle.unref();
            server.close(() => {
              clearTimeout(timer);
              clearInterval(idle);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits 0 (or 1 if stopping failed). */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
