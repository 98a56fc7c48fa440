/**
 * A real Prometheus (Debian's `prometheus`, which .ci/run installs) for a test: a temporary
 * config scraping the given targets every second, a temporary storage folder, a loopback port.
 * `stop()` kills it and waits for it to exit.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';
import { testTempDir } from './temp-dir';
import { within } from './within';

export interface PrometheusHandle {
  readonly url: string;
  /** An instant query's vector at `atSeconds`: each series' labels and value. */
  query(promql: string, atSeconds: number): Promise<Array<{ metric: Record<string, string>; value: number }>>;
  stop(): Promise<void>;
}

export const SCRAPE_INTERVAL_SECONDS = 1;

export async function startPrometheus(targets: readonly string[]): Promise<PrometheusHandle> {
  const dir = testTempDir('prometheus-');
  const configFile = path.join(dir, 'prometheus.yml');
  writeFileSync(
    configFile,
    [
      'global:',
      `  scrape_interval: ${SCRAPE_INTERVAL_SECONDS}s`,
      `  scrape_timeout: ${SCRAPE_INTERVAL_SECONDS}s`,
      'scrape_configs:',
      '  - job_name: gateway',
      '    static_configs:',
      `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn(
    '/usr/bin/prometheus',
    [`--config.file=${configFile}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const errors: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await within(30_000, async () => (await fetch(`${url}/-/ready`).catch(() => null))?.ok === true);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`prometheus did not become ready: ${errors.join('')}`, { cause: err });
  }
  const handle: PrometheusHandle = {
    url,
    async query(promql, atSeconds) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}&time=${atSeconds}`);
      const body = (await res.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
  // Ready is not scraping: the first scrape of a target comes some time after. Wait for it, so a
  // test's first requests are seen by a scrape one interval later, not by a late first one.
  try {
    await within(30_000, async () => (await handle.query('up', Date.now() / 1000)).filter((r) => r.value === 1).length === targets.length);
  } catch (err) {
    await handle.stop();
    throw new Error(`prometheus did not scrape every target: ${errors.join('')}`, { cause: err });
  }
  return handle;
}
