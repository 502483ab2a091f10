import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureRedisServer, freePort, spawnRedis } from './redis-server.js';

/** A Redis Cluster of this test: three masters on loopback ports, without persistence, every slot assigned. */
export interface TestCluster {
  readonly ports: readonly number[];
  stop(): Promise<void>;
}

/** Starts one redis-server in cluster mode and resolves once it accepts connections. */
function startNode(dir: string, port: number, busPort: number): Promise<ChildProcess> {
  return spawnRedis([
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-port',
    String(busPort),
    '--cluster-config-file',
    `nodes-${port}.conf`,
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
}

/**
 * Starts three masters with `--cluster-enabled yes` and joins them with `redis-cli --cluster create`; resolves once
 * every node reports `cluster_state:ok` (checked a bounded number of times).
 */
export async function startCluster(): Promise<TestCluster> {
  ensureRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'sdk-redis-cluster-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      children.push(await startNode(dir, port, busPort));
      ports.push(port);
    }
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
    for (let check = 0; ; check++) {
      const states = ports.map(
        (port) => spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout,
      );
      if (states.every((info) => info.includes('cluster_state:ok'))) break;
      if (check === 300) throw new Error(`the cluster did not reach cluster_state:ok:\n${states.join('\n')}`);
      await sleep(100);
    }
    return { ports, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
