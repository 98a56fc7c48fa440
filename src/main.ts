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

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.log.level);
  const gateway = await startGateway(config, logger);
  const adminHost = gateway.adminAddress.includes(':') ? `[${gateway.adminAddress}]` : gateway.adminAddress;
  const adminUi = `${config.admin.tls.certFile ? 'https' : 'http'}://${adminHost}:${gateway.adminPort}/`;
  if (gateway.generatedAdminToken) {
    // Printed to the console once, never to the log: sandbox mode only, for the person trying it.
    process.stdout.write(`Sandbox admin token (ADMIN_TOKEN was unset): ${gateway.generatedAdminToken}\nAdmin web UI: ${adminUi} (sign in with that token)\n`);
  }
  logger.info(
    {
      vendorPort: gateway.vendorPort,
      adminPort: gateway.adminPort,
      adminUi,
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
