import { onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { readConfig } from './config';
import { startTransmitter } from './transmitter';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'signals', level: config.LOG_LEVEL });
  const transmitter = await startTransmitter(config, logger);
  onShutdown(logger, transmitter.stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`signals failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
