/**
 * The standalone sandbox core (`npm run sandbox`): the simulated core banking system on its own
 * port, for vendors and for running the gateway against it with CORE_URL.
 *
 * Reads the configuration (config/*.yaml and the environment through loadConfig: port from
 * SANDBOX_PORT, default 8090; seed from sandbox.seed, default 42, settable as
 * GATEWAY__sandbox__seed); logs one line with its URL; stops on SIGTERM or SIGINT.
 */
import { loadConfig } from '../config/config';
import { createLogger } from '../logging/logger';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

const config = loadConfig();
const logger = createLogger(config.log.level);
const { port, host, seed, defaultPageSize, maxPageSize } = config.sandbox;

const app = createSandboxApp({
  data: createSandboxData(seed),
  defaultPageSize,
  maxPageSize,
  onError: (error) => logger.error({ err: error }, 'sandbox core request failed'),
});

const server = app.listen(port, host, (error?: Error) => {
  if (error) {
    logger.fatal({ err: error }, 'sandbox core could not listen');
    process.exitCode = 1;
    return;
  }
  const address = server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  logger.info(`sandbox core listening on http://${host}:${boundPort} (seed ${seed})`);
});

function stop(signal: NodeJS.Signals): void {
  logger.info(`sandbox core stopping on ${signal}`);
  server.close();
  server.closeIdleConnections();
}
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
