/**
 * A real three-master Redis Cluster on loopback for topology tests: three
 * `redis-server --cluster-enabled yes` processes joined by `redis-cli --cluster create`.
 *
 * Spawns redis-server and redis-cli from PATH; each node's cluster bus gets a free port of its
 * own (`cluster-port`), so no port above the node's needs to be free.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { askRedis, startRedisProcess, type RedisProcess } from './redis-sentinel';

const run = promisify(execFile);

export interface RedisClusterHandle {
  /** What the gateway's `redis.nodes` takes. */
  readonly nodes: Array<{ host: string; port: number }>;
  /** The port of the master that owns `key`'s slot. */
  ownerOf(key: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisClusterHandle> {
  const nodes: RedisProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    for (let i = 0; i < 3; i++) {
      nodes.push(
        await startRedisProcess(async () => [
          'cluster-enabled yes',
          `cluster-port ${await freePort()}`,
          'cluster-config-file nodes.conf',
          'cluster-node-timeout 2000',
        ]),
      );
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    const first = nodes[0] as RedisProcess;
    // Every node must agree before a client loads the slot map from any of them.
    for (const node of nodes) {
      const deadline = Date.now() + 10_000;
      while (!(await askRedis(node.port, (c) => c.cluster('INFO'))).includes('cluster_state:ok')) {
        if (Date.now() > deadline) throw new Error(`cluster node ${node.port} did not reach cluster_state:ok`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return {
      nodes: nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
      async ownerOf(key) {
        const slot = await askRedis(first.port, (c) => c.cluster('KEYSLOT', key));
        const ranges = await askRedis(first.port, (c) => c.cluster('SLOTS'));
        const master = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2];
        if (!master) throw new Error(`no node owns slot ${slot}`);
        return master[1];
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
