import { inspect } from 'node:util';
import { type Logger, ServiceClient } from 'invoicing-service-sdk';
import { expect, it } from 'vitest';
import { json, raw, refusedBaseUrl, slow, startFaultServer } from '../helpers/fault-server.js';
import { freshKey, validModel } from '../helpers/model.js';

function capturingLogger() {
  const lines: unknown[][] = [];
  const logger: Logger = {
    debug: (...args) => void lines.push(['debug', ...args]),
    warn: (...args) => void lines.push(['warn', ...args]),
  };
  return { logger, lines };
}

it('logs request start, each retry with its reason and delay, and each response with status and duration', async () => {
  const server = await startFaultServer([
    json(429, { success: false, error_code: 'RATE_LIMITED', message: 'slow' }, { 'retry-after': '1' }),
  ]);
  const { logger, lines } = capturingLogger();
  const events: string[] = [];
  try {
    const client = new ServiceClient({
      apiKey: freshKey(),
      baseUrl: server.baseUrl,
      logger,
      hooks: {
        onRequest: (e) => events.push(`request ${e.attempt}`),
        onRetry: (e) => events.push(`retry ${e.reason} ${e.delayMs}`),
        onResponse: (e) =>
          events.push(`response ${e.status} ${e.code ?? 'ok'} ${e.serviceErrorCode ?? '-'} ${typeof e.durationMs}`),
      },
    });
    await client.createEwayBill('doc', validModel());
  } finally {
    await server.close();
  }
  expect(events).toEqual([
    'request 1',
    'response 429 RATE_LIMITED RATE_LIMITED number',
    'retry RATE_LIMITED 1000',
    'request 2',
    'response 200 ok - number',
  ]);
  const logged = lines.map((line) => `${line[0]} ${line[1]}`);
  // The retry's attempt may have to wait a few milliseconds for its key's slot (Retry-After: 1 s; the limiter spaces
  // starts 1 s plus a margin apart): then a 'queued' debug line comes before its request line (issue 30), else none.
  const queued = logged.indexOf('debug invoicing-service-sdk: queued');
  if (queued !== -1) expect(queued).toBe(3);
  expect(logged.filter((line) => line !== 'debug invoicing-service-sdk: queued')).toEqual([
    'debug invoicing-service-sdk: request',
    'debug invoicing-service-sdk: response',
    'warn invoicing-service-sdk: retrying request',
    'debug invoicing-service-sdk: request',
    'debug invoicing-service-sdk: response',
  ]);
  expect(logged.filter((line) => line.endsWith('queued')).length).toBeLessThanOrEqual(1);
  expect(lines[2]?.[2]).toMatchObject({ reason: 'RATE_LIMITED', delayMs: 1000, attempt: 1, method: 'POST' });
});

it('a hook or logger that throws does not change the outcome', async () => {
  const server = await startFaultServer([]);
  try {
    const explode = () => {
      throw new Error('observer bug');
    };
    const client = new ServiceClient({
      apiKey: freshKey(),
      baseUrl: server.baseUrl,
      logger: { debug: explode, warn: explode },
      hooks: { onRequest: explode, onResponse: explode },
    });
    await expect(client.createEwayBill('doc', validModel())).resolves.toMatchObject({ success: true });
  } finally {
    await server.close();
  }
});

it('never lets the API key into any log line, hook event, error or inspection output', async () => {
  const key = freshKey('needle');
  const server = await startFaultServer(
    [
      json(401, { success: false, error_code: 'UNAUTHORIZED', message: 'bad key', errors: {} }),
      raw(500, '<html>oops</html>', 'text/html'),
      slow(3000),
      json(429, { success: false, error_code: 'RATE_LIMITED', message: 'slow' }, { 'retry-after': '1' }),
    ],
    undefined,
  );
  const { logger, lines } = capturingLogger();
  const events: unknown[] = [];
  const outputs: string[] = [];
  const hooks = {
    onRequest: (e: unknown) => events.push(e),
    onRetry: (e: unknown) => events.push(e),
    onResponse: (e: unknown) => events.push(e),
  };
  try {
    // The default timeout for the answers that must arrive (a loaded machine may take more than 300 ms to deliver a
    // 401 or a 429); only the call the server holds (slow 3000) has a short one, for its TimeoutError.
    const client = new ServiceClient({ apiKey: key, baseUrl: server.baseUrl, logger, hooks });
    const refused = new ServiceClient({ apiKey: key, baseUrl: await refusedBaseUrl(), logger, hooks, maxRetries: 0 });
    const errors = [
      await client.createEwayBill('doc', validModel()).catch((e: unknown) => e),
      await client.createEwayBill('doc', validModel()).catch((e: unknown) => e),
      await client.createEwayBill('doc', validModel(), { timeout: 300 }).catch((e: unknown) => e),
      await client.createEwayBill('doc', { ...validModel(), transport_mode: 'road' } as never).catch((e: unknown) => e),
      await refused.createEwayBill('doc', validModel()).catch((e: unknown) => e),
    ];
    expect((errors[2] as Error).name).toBe('TimeoutError'); // the held call's timeout is in the outputs checked
    await client.createEwayBill('doc', validModel()); // 429, then retried
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      outputs.push(
        String(error),
        (error as Error).stack ?? '',
        JSON.stringify(error),
        inspect(error, { depth: 20, showHidden: true }),
      );
    }
    outputs.push(inspect(client, { depth: 20, showHidden: true }), JSON.stringify(client), String(client));
  } finally {
    await server.close();
  }
  outputs.push(inspect(lines, { depth: 20 }), JSON.stringify(lines), inspect(events, { depth: 20 }));
  expect(lines.length).toBeGreaterThan(5);
  for (const output of outputs) expect(output).not.toContain(key);
});
