// Issue 19.4: the log switch. SERVICE_LOG (or the logLevel option) turns request logging on with one environment
// variable; debug lines carry the document, attempt, wait and status, never the key or a body. Against a loopback server.
import { createServer } from 'node:http';
import { ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listenOnLoopback } from '../helpers/loopback.js';
import { validModel } from '../helpers/model.js';

const KEY = 'sk_log_switch_word_harbour';
let baseUrl: string;
let close: () => Promise<void>;
let answers: number[];

beforeEach(async () => {
  answers = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) });
      res.end(JSON.stringify(status === 200 ? { success: true, message: 'ok' } : { success: false, message: 'slow' }));
    });
  });
  const started = await listenOnLoopback(server);
  baseUrl = `http://127.0.0.1:${started.port}/api/partner`;
  close = started.close;
});
afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await close();
});

const noWait = { acquire: async () => undefined };
const roadWithoutVehicle = () => {
  const { vehicle_number: _v, vehicle_type: _t, ...model } = validModel() as Record<string, unknown>;
  return model as never;
};

describe('the log switch', () => {
  it('SERVICE_LOG=debug logs each request and response to console, with no logger option', async () => {
    vi.stubEnv('SERVICE_LOG', 'debug');
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    const client = new ServiceClient({ apiKey: KEY, baseUrl, rateLimiter: noWait, preflight: 'off' });
    await client.createEwayBill('doc_log_1', validModel());
    const lines = debug.mock.calls.map(([message, details]) => ({ message, details }));
    expect(lines.map((l) => l.message)).toEqual(['invoicing-service-sdk: request', 'invoicing-service-sdk: response']);
    expect(lines[1]?.details).toMatchObject({ docHashId: 'doc_log_1', attempt: 1, status: 200 });
    expect(lines[0]?.details).toHaveProperty('queuedMs');
    expect(JSON.stringify(debug.mock.calls)).not.toContain(KEY);
    expect(JSON.stringify(debug.mock.calls)).not.toContain('dispatch_from');
  });

  it("logLevel 'warn' keeps retries and drops the debug lines of the logger it is given", async () => {
    const logger = { debug: vi.fn(), warn: vi.fn() };
    answers.push(429, 200);
    const client = new ServiceClient({
      apiKey: KEY,
      baseUrl,
      rateLimiter: noWait,
      preflight: 'off',
      logger,
      logLevel: 'warn',
    });
    await client.createEwayBill('doc_log_2', validModel());
    expect(logger.debug).not.toHaveBeenCalled();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]?.[0]).toBe('invoicing-service-sdk: retrying request');
  });

  it('SERVICE_LOG=off silences everything, preflight warnings included; the option overrides the variable', async () => {
    vi.stubEnv('SERVICE_LOG', 'off');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => {});
    await new ServiceClient({ apiKey: KEY, baseUrl, rateLimiter: noWait }).createEwayBill(
      'doc_log_3',
      roadWithoutVehicle(),
    );
    expect(warn).not.toHaveBeenCalled();
    expect(debug).not.toHaveBeenCalled();
    await new ServiceClient({
      apiKey: KEY,
      baseUrl,
      rateLimiter: noWait,
      preflight: 'off',
      logLevel: 'debug',
    }).createEwayBill('doc_log_4', validModel());
    expect(debug).toHaveBeenCalledTimes(2);
  });

  it('a level that is not one of the five is a TypeError naming where it came from', () => {
    vi.stubEnv('SERVICE_LOG', 'verbose');
    expect(() => new ServiceClient({ apiKey: KEY, baseUrl })).toThrow(/SERVICE_LOG must be one of 'debug', 'info'/);
    expect(() => new ServiceClient({ apiKey: KEY, baseUrl, logLevel: 'loud' as never })).toThrow(
      /logLevel must be one of/,
    );
  });
});
