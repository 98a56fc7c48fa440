/**
 * The node flags the Docker image runs the gateway with (its `NODE_OPTIONS`), read from the
 * Dockerfile so that the benchmarks measure the gateway as it ships, from one place.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export function imageNodeOptions(): string[] {
  const dockerfile = readFileSync(path.join(__dirname, '..', '..', 'Dockerfile'), 'utf8');
  const value = /NODE_OPTIONS=(?:"([^"]*)"|(\S+))/.exec(dockerfile);
  return (value?.[1] ?? value?.[2] ?? '').split(/\s+/).filter(Boolean);
}
