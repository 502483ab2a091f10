import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rateLimitKeyId } from '../../src/throttle/rate-limiter.js';

afterEach(() => vi.unstubAllGlobals());

describe('the rate-limit key id', () => {
  const key = 'sk_live_ünïcode_key_0123456789';
  const expected = createHash('sha256').update(key, 'utf8').digest('hex');

  it('is the hex SHA-256 of the key, through node:crypto on Node', async () => {
    expect(await rateLimitKeyId(key)).toBe(expected);
  });

  it('is the same through Web Crypto where node:crypto is absent (edge runtimes)', async () => {
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined });
    const subtle = vi.spyOn(globalThis.crypto.subtle, 'digest');
    expect(await rateLimitKeyId(key)).toBe(expected);
    expect(subtle).toHaveBeenCalledTimes(1);
    subtle.mockRestore();
  });

  it('reaches the limiter within the same turn on Node: no thread-pool hop that could reorder calls', async () => {
    let settled = false;
    const id = rateLimitKeyId(key).then(() => {
      settled = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
    await id;
  });
});
