/**
 * Process entry: load and validate the config, start the gateway, stop it gracefully on
 * SIGTERM/SIGINT (readiness 503 at once, then the `shutdown` section's lame-duck and drain
 * times; see RunningGateway.stop). No logic lives here.
 *
 * Reads the environment and config/; exits 2 on any start-up failure (the StartupError family:
 * configuration, files, Redis, ports) with a message naming what to fix, 0 after a graceful
 * stop, 1 when stopping failed or on an unforeseen error.
 */
import { loadConfig } from './config/config';
import { StartupError } from './errors/startup-error';
import { startGateway } from './gateway';
import { createLogger } from './logging/logger';
import { startBanner, startUrls } from './start-banner';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.log.level);
  const gateway = await startGateway(config, logger);
  const urls = startUrls({
    vendorAddress: gateway.vendorAddress,
    vendorPort: gateway.vendorPort,
    vendorTls: Boolean(config.server.tls.certFile),
    publicUrl: config.server.publicUrl,
    adminAddress: gateway.adminAddress,
    adminPort: gateway.adminPort,
    adminTls: Boolean(config.admin.tls.certFile),
  });
  const banner = startBanner(urls, gateway.generatedAdminToken);
  // Printed to the console once, never to the log: sandbox mode only, for the person trying it.
  if (banner) process.stdout.write(banner);
  logger.info(
    {
      vendorPort: gateway.vendorPort,
      adminPort: gateway.adminPort,
      adminUi: urls.adminUi,
      docs: urls.docs,
      openApi: urls.openApi,
      statusPort: gateway.statusPort,
      sandboxPort: gateway.sandboxPort,
      mode: config.core.url ? 'remote core' : 'sandbox core',
    },
    'gateway listening',
  );

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: readiness answers 503 from now');
    gateway
      .stop()
      .then(() => {
        logger.info('stopped');
        logger.flush(() => process.exit(0));
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        logger.flush(() => process.exit(1));
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof StartupError) {
    process.stderr.write(`core-banking-gateway: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`core-banking-gateway: failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
