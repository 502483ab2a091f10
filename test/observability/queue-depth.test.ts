// The OpenTelemetry gauge invoicing_service.rate_limit.queue_depth (issue 30): the calls waiting per budget and
// priority, read from the limiter when the metrics are collected. The real OTel SDK and a fake fetch whose first
// answer the test holds: with waitForAnswer the queue stays still while it collects, however slow the machine.
import { createHash } from 'node:crypto';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { createProcessRateLimiter, ServiceClient } from 'invoicing-service-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingFetch } from '../helpers/fake-fetch.js';
import { freshKey, validModel } from '../helpers/model.js';
import { type InstalledOtel, installOtel } from '../helpers/otel.js';

let installed: InstalledOtel;
beforeEach(() => {
  installed = installOtel();
});
afterEach(() => installed.uninstall());

async function depth(): Promise<Record<string, number>> {
  const { resourceMetrics, errors } = await installed.reader.collect();
  expect(errors).toEqual([]);
  const gauge = (resourceMetrics as ResourceMetrics).scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === 'invoicing_service.rate_limit.queue_depth');
  const points: Record<string, number> = {};
  for (const point of gauge?.dataPoints ?? []) {
    const attributes = point.attributes as Record<string, string>;
    points[`${attributes['invoicing_service.budget']}/${attributes.priority}`] = point.value as number;
  }
  return points;
}

describe('the queue-depth gauge', () => {
  it('reports the waiting calls per budget hash and priority, then 0 once they started', async () => {
    const apiKey = freshKey('queue-depth');
    const budget = createHash('sha256').update(apiKey).digest('hex').slice(0, 8);
    let answer: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const { fetch, calls } = recordingFetch(async () => {
      await held;
      return Response.json({ success: true, message: 'E-way bill generated' });
    });
    const rateLimiter = createProcessRateLimiter({ interval: 50, waitForAnswer: true, answerWaitLimit: 60_000 });
    const client = new ServiceClient({ apiKey, baseUrl: 'https://service.test/api', fetch, rateLimiter });
    const first = client.createEwayBill('first', validModel());
    for (let i = 0; i < 1000 && calls.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const waiting = [
      client.createEwayBill('l1', validModel(), { priority: 'low' }),
      client.createEwayBill('l2', validModel(), { priority: 'low' }),
      client.createEwayBill('h1', validModel(), { priority: 'high' }),
    ];
    // Wait (bounded) until the gauge sees all three: their telemetry starts on a later turn.
    let seen: Record<string, number> = {};
    for (let i = 0; i < 200 && seen[`${budget}/low`] !== 2; i++) seen = await depth();
    expect(seen).toEqual({ [`${budget}/high`]: 1, [`${budget}/normal`]: 0, [`${budget}/low`]: 2 });
    answer?.();
    await Promise.all([first, ...waiting]);
    expect(await depth()).toEqual({ [`${budget}/high`]: 0, [`${budget}/normal`]: 0, [`${budget}/low`]: 0 });
    expect(JSON.stringify(seen)).not.toContain(apiKey);
  });
});
