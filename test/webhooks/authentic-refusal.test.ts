// Issue 28, item 6: an authentic (correctly signed) event whose envelope drifted is still answered 400 (without a
// usable event_id it cannot be de-duplicated), but never in silence: it is reported once through logger.warn with the
// event id as received and the drifted fields, never the body or the secret. A forged request (bad signature) stays a
// silent 401, so unsigned traffic cannot fill the partner's logs. Both handlers, on real loopback servers.
import { afterEach, describe, expect, it } from 'vitest';
import {
  signWebhook,
  verifyWebhook,
  type WebhookHandlerOptions,
  WebhookPayloadError,
} from '../../src/webhooks/index.js';
import { deliverSigned } from './fixtures.js';
import { handlerStarters } from './servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
const handlers = handlerStarters(closers);

const SECRET = 'whsec_refusal_word_lantern_7Q';
const BODY_MARKER = 'Body-Marker-Steel-Rod-Q9';

interface Warning {
  message: string;
  details: {
    status?: number;
    eventId?: string;
    fields?: string[];
    issues?: { field: string; message: string }[];
  };
}

let counter = 0;
const uniqueId = () => `refused-${process.pid}-${++counter}`;
const data = { document_type: 'invoice', serial_number: BODY_MARKER, hash_id: 'h1', message: 'm', timestamp: '' };

// [what, the envelope, the event id expected in the report, the fields expected]
const DRIFTED: readonly [
  string,
  () => Record<string, unknown>,
  (body: Record<string, unknown>) => unknown,
  string[],
][] = [
  [
    'event_id a number',
    () => ({ event_id: 700000 + ++counter, event_type: 'document', data }),
    (b) => String(b.event_id),
    ['event_id'],
  ],
  ['event_id renamed to id', () => ({ id: uniqueId(), event_type: 'document', data }), (b) => b.id, ['event_id']],
  [
    'an event_id of 300 characters',
    () => ({ event_id: `${uniqueId()}-`.padEnd(300, 'x'), event_type: 'document', data }),
    (b) => `${String(b.event_id).slice(0, 64)}…`,
    ['event_id'],
  ],
  ['event_type a number', () => ({ event_id: uniqueId(), event_type: 7, data }), (b) => b.event_id, ['event_type']],
];

describe.each(handlers)('an authentic event with a drifted envelope, through %s', (_, start) => {
  function setup(extra: Partial<WebhookHandlerOptions> = {}) {
    const events: unknown[] = [];
    const warnings: Warning[] = [];
    const options: WebhookHandlerOptions = {
      secret: SECRET,
      onEvent: (event) => {
        events.push(event);
      },
      logger: {
        warn: (message, details) => warnings.push({ message, details: (details ?? {}) as Warning['details'] }),
      },
      ...extra,
    };
    return { events, warnings, options };
  }

  it.each(DRIFTED)(
    '%s: answered 400 and reported once through logger.warn',
    async (_what, make, expectedId, fields) => {
      const { events, warnings, options } = setup();
      const url = await start(options);
      const body = make();
      const first = await deliverSigned(url, body, SECRET);
      expect(first.status).toBe(400);
      expect(events).toEqual([]);
      expect(warnings).toHaveLength(1);
      const [warning] = warnings as [Warning];
      expect(warning.details.status).toBe(400);
      expect(warning.details.eventId).toBe(expectedId(body));
      expect(warning.details.fields).toEqual(fields);
      expect(warning.details.issues?.map((issue) => issue.field)).toEqual(fields);
      expect(warning.message).toContain(String(expectedId(body)));
      for (const field of fields) expect(warning.message).toContain(field);
      // Never the body, the signature or the secret.
      const logged = JSON.stringify(warning);
      expect(logged).not.toContain(SECRET);
      expect(logged).not.toContain(BODY_MARKER);
      expect(logged).not.toContain(first.signature);
      expect(logged).not.toContain(first.body);

      // A redelivery of the same signed body is refused again, and not reported a second time.
      expect((await deliverSigned(url, body, SECRET)).status).toBe(400);
      expect(warnings).toHaveLength(1);
    },
  );

  it('a forged request with the same drifted envelope stays a silent 401', async () => {
    const { warnings, options } = setup();
    const url = await start(options);
    for (const [, make] of DRIFTED) {
      expect((await deliverSigned(url, make(), 'whsec_an_attacker_guess')).status).toBe(401);
    }
    const unsigned = await fetch(url, { method: 'POST', body: JSON.stringify({ event_id: 5, event_type: 1 }) });
    expect(unsigned.status).toBe(401);
    expect(warnings).toEqual([]);
  });

  it('an id with line breaks and control characters is logged on one line', async () => {
    const { warnings, options } = setup();
    const url = await start(options);
    const body = { id: `forged\nWARN admin logged in\u001b[2J`, event_type: 'document', data };
    expect((await deliverSigned(url, body, SECRET)).status).toBe(400);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings as [Warning];
    for (const control of ['\n', '\r', '\u001b']) {
      expect(warning.message).not.toContain(control);
      expect(warning.details.eventId).not.toContain(control);
    }
    expect(warning.details.eventId).toContain('forged');
  });

  it('a signed body that is not a JSON object is reported too, with no event id', async () => {
    const { warnings, options } = setup();
    const url = await start(options);
    const sent = await deliverSigned(url, `{"event_id": "${BODY_MARKER}", cut here`, SECRET);
    expect(sent.status).toBe(400);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings as [Warning];
    expect(warning.details.eventId).toBeUndefined();
    expect(warning.details.fields).toEqual(['(root)']);
    expect(JSON.stringify(warning)).not.toContain(BODY_MARKER);
  });

  it('a known event refused by strictPayload is reported once too, saying why', async () => {
    const { warnings, options } = setup({ strictPayload: true });
    const url = await start(options);
    const event = { event_id: uniqueId(), event_type: 'document', data: { ...data, timestamp: 'yesterday' } };
    expect((await deliverSigned(url, event, SECRET)).status).toBe(400);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings as [Warning];
    expect(warning.details.eventId).toBe(event.event_id);
    expect(warning.details.fields).toContain('data.timestamp');
    expect(warning.message).toContain('strictPayload');
    expect(JSON.stringify(warning)).not.toContain(BODY_MARKER);
  });

  it('a custom onError still receives the 400, and the warning is given once', async () => {
    const reported: { status: number }[] = [];
    const { warnings, options } = setup({ onError: (_error, info) => void reported.push(info) });
    const url = await start(options);
    expect((await deliverSigned(url, { event_id: 12, event_type: 'document', data }, SECRET)).status).toBe(400);
    expect(reported.map((info) => info.status)).toEqual([400]);
    expect(warnings).toHaveLength(1);
  });
});

describe('verifyWebhook', () => {
  it.each(DRIFTED)('%s: its WebhookPayloadError carries the event id as received', async (_what, make, expectedId) => {
    const body = JSON.stringify(make());
    const refused = await verifyWebhook(body, signWebhook(body, SECRET), SECRET).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebhookPayloadError);
    expect((refused as WebhookPayloadError).receivedEventId).toBe(expectedId(JSON.parse(body)));
    expect((refused as WebhookPayloadError).message).not.toContain(BODY_MARKER);
  });
});
