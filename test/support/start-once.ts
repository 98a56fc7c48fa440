/**
 * A child process for the start-up clean-up tests: loads the config from its environment and
 * starts the gateway once. A start that fails prints its error and returns, without
 * process.exit, so the process ends by itself only if the failed start left nothing open; a
 * gateway that started is stopped at once, and the same holds.
 *
 * Reads the environment (as src/main.ts does); prints one line on stdout.
 */
import { loadConfig } from '../../src/config/config';
import { startGateway } from '../../src/gateway';
import { createLogger } from '../../src/logging/logger';

async function startOnce(): Promise<void> {
  const config = loadConfig();
  try {
    const gateway = await startGateway(config, createLogger('silent'));
    process.stdout.write('started\n');
    await gateway.stop({ lameDuckMs: 0, drainTimeoutMs: 0 });
  } catch (err) {
    process.stdout.write(`start failed: ${(err as Error).message}\n`);
    process.exitCode = 3;
  }
  // Should anything still hold the process, this names it (unref'd: it keeps nothing alive itself).
  setTimeout(() => process.stdout.write(`still open: ${process.getActiveResourcesInfo().join(', ')}\n`), 2000).unref();
}

void startOnce();
