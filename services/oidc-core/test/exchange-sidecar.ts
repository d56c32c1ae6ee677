/**
 * The nhe-delegation sidecar in process, on a loopback port, for oidc-core tests that need token exchange end to end
 * (pages-app.ts's `forwardTokenExchange`): oidc-core authenticates the client and forwards to it with the shared
 * secret, exactly as in a pod; the sidecar publishes the issuance to a real NATS JetStream and waits for the ack.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import {
  auditSubject,
  ensureAuditStream,
  ensureRefusalStream,
  publishAndAwaitAck,
  refusalSubject,
  type NheTokenIssued,
  type NheTokenRefused,
} from '@idp/events';
import { listen, type Listening } from '@idp/http';
import { createLogger } from '@idp/logger';
import { testNats, type openTestDatabase } from '@idp/testing';
import type { KeyStore } from '@idp/tokens';
import { createApp as createSidecarApp } from '../../nhe-delegation/src/app';
import { cachedKeys } from '../../nhe-delegation/src/domain/key-cache';
import { sidecarForwarder } from '../src/provider/grants/sidecar-forwarder';
import type { TokenExchangeForwarder } from '../src/provider/grants/token-exchange';

const SIDECAR_SECRET = 'sidecar-secret-'.padEnd(48, 'x');

export interface ExchangeSidecar {
  /** For startPagesApp({ forwardTokenExchange }). */
  forwarder: (
    db: Awaited<ReturnType<typeof openTestDatabase>>,
    keyStore: KeyStore,
    baseUrl: () => string,
  ) => Promise<TokenExchangeForwarder>;
  stop: () => Promise<void>;
  /** Issuance events JetStream acknowledged, in order. */
  issued: NheTokenIssued[];
  /** The decision log's refusal events JetStream acknowledged (published fire-and-forget, as main.ts does). */
  refused: NheTokenRefused[];
  /** While true, publishing fails (JetStream unavailable): no token may be issued. */
  failPublish: boolean;
  /** The NATS server the sidecar publishes to (set once the forwarder is made), for a test's own audit consumer. */
  natsUrl?: string;
}

export function exchangeSidecar(): ExchangeSidecar {
  let server: Listening | undefined;
  let nc: NatsConnection | undefined;
  let nats: Awaited<ReturnType<typeof testNats>> | undefined;
  const logger = createLogger({ service: 'test', level: (process.env.TEST_LOG as 'silent' | undefined) ?? 'silent' });
  const self: ExchangeSidecar = {
    issued: [],
    refused: [],
    failPublish: false,
    async forwarder(db, keyStore, baseUrl) {
      nats = await testNats();
      self.natsUrl = nats.url;
      nc = await connect({ servers: nats.url });
      const js = jetstream(nc, { timeout: 2000 });
      await ensureAuditStream(nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
      await ensureRefusalStream(nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
      const { listener } = createSidecarApp({
        logger,
        models: db.models,
        sidecarSecret: SIDECAR_SECRET,
        issuerFor: (t) => `${baseUrl()}/auth/${t}`,
        keysFor: cachedKeys(keyStore, 30_000),
        publishIssued: async (event) => {
          if (self.failPublish) throw new Error('JetStream unavailable (test)');
          await publishAndAwaitAck(js, auditSubject(event.tenantId), event, event.jti, 1500);
          self.issued.push(event);
        },
        publishRefusal: async (event) => {
          await publishAndAwaitAck(js, refusalSubject(event.tenantId), event, event.id, 1500);
          self.refused.push(event);
        },
        readiness: [],
      });
      server = await listen(listener, '127.0.0.1', 0, logger);
      return sidecarForwarder(`http://127.0.0.1:${server.port}`, SIDECAR_SECRET, logger);
    },
    async stop() {
      await server?.close(100);
      await nc?.close();
      await nats?.server?.dispose();
    },
  };
  return self;
}
