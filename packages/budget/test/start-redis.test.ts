// The test servers' own start: a port another test's redis-server took between the check and the
// bind is never mistaken for ours (the amnesia chaos case once "restarted" a server it did not own).
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from './support/start-redis.js';

describe('startRedis', () => {
  const started: TestRedis[] = [];
  afterAll(async () => {
    for (const redis of started) await redis.stop();
  });

  it('refuses a port another redis-server answers on, naming both processes', async () => {
    const other = await startRedis();
    started.push(other);
    await expect(startRedis({ port: other.port })).rejects.toThrow(
      new RegExp(`^port ${other.port} is served by another redis-server \\(pid \\d+\\), not the one started`),
    );
    // The other server is untouched.
    const again = await startRedis();
    started.push(again);
    expect(again.port).not.toBe(other.port);
  });
});
