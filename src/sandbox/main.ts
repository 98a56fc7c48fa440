/**
 * The standalone sandbox core (`npm run sandbox`): the simulated core banking system on its own
 * port, for vendors and for running the gateway against it with CORE_URL.
 *
 * Listens through the gateway's own listener (server/listener.ts), as the in-process sandbox
 * does, and stops the same way on SIGTERM or SIGINT: it stops accepting, closes idle keep-alive
 * connections at once, answers every request in flight with `Connection: close` (so a client
 * that keeps its connection busy is let go after its next answer), cuts what is still open after
 * `shutdown.drainTimeoutMs`, and exits 0. A second signal of the same kind kills it at once.
 *
 * Reads the configuration (config/*.yaml and the environment through loadConfig: port from
 * SANDBOX_PORT, default 8090; seed from sandbox.seed, default 42, settable as
 * GATEWAY__sandbox__seed; the `server` section's Node limits; the drain time from
 * shutdown.drainTimeoutMs, default 20 s); logs one line with its URL and one when it stops.
 */
import { loadConfig } from '../config/config';
import { createLogger } from '../logging/logger';
import { drainListener, openListener } from '../server/listener';
import { createSandboxApp } from './app';
import { createSandboxData } from './data';

const config = loadConfig();
const logger = createLogger(config.log.level);
const { port, host, seed, defaultPageSize, maxPageSize } = config.sandbox;
const { drainTimeoutMs } = config.shutdown;

const app = createSandboxApp({
  data: createSandboxData(seed),
  defaultPageSize,
  maxPageSize,
  onError: (error) => logger.error({ err: error }, 'sandbox core request failed'),
});

openListener(app, port, host, config.server, { logger }).then(
  (server) => {
    const address = server.address();
    const boundPort = typeof address === 'object' && address !== null ? address.port : port;
    logger.info(`sandbox core listening on http://${host}:${boundPort} (seed ${seed})`);

    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      logger.info({ drainTimeoutMs }, `sandbox core stopping on ${signal}: draining the requests in flight`);
      // One turn of the event loop first, as the gateway's stop does: requests whose bytes had
      // already arrived are read, and so answered, rather than closed as idle.
      setImmediate(() => {
        drainListener(server, drainTimeoutMs, logger).then(
          () => {
            logger.info('sandbox core stopped');
            // Exits rather than waits for the event loop: a rehearsed slow answer's timer would hold it 15 s.
            logger.flush(() => process.exit(0));
          },
          (err: unknown) => {
            logger.error({ err }, 'sandbox core could not drain its connections');
            logger.flush(() => process.exit(1));
          },
        );
      });
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  },
  (error: unknown) => {
    logger.fatal({ err: error }, 'sandbox core could not listen');
    process.exitCode = 1;
  },
);
