/**
 * One bounded load run against one target, in its own process so the runner can pin it to the
 * load core. Either closed-loop maximum throughput (autocannon, N connections) or open-loop
 * latency at a fixed rate (see open-loop.ts).
 *
 * Reads a JSON LoadSpec from argv[2]; prints one JSON LoadResult line on stdout.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { openLoop } from './open-loop';
import type { LoadResult, LoadSpec, RequestShape } from './spec';

/** Each money movement needs its own reference, or idempotency answers replays instead. */
function bodyFactory(shape: RequestShape): () => string | undefined {
  const template = shape.body;
  if (template === undefined) return () => undefined;
  const run = randomBytes(4).toString('hex');
  let sequence = 0;
  return () => template.replace('{ref}', `B${run}-${++sequence}`);
}

async function throughput(spec: LoadSpec): Promise<LoadResult> {
  const nextBody = bodyFactory(spec.request);
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    requests: [
      {
        method: spec.request.method,
        path: spec.request.path,
        headers: spec.request.headers,
        setupRequest: (request) => {
          const body = nextBody();
          return body === undefined ? request : { ...request, body };
        },
      },
    ],
  });
  const completed = result.requests.total;
  return {
    requestsPerSecond: completed / (result.duration || spec.seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    completed,
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
  const result = spec.kind === 'throughput' ? await throughput(spec) : await openLoop(spec, bodyFactory(spec.request));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
