import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describePortalError } from '../internal/portal-catalogue.js';
import { redactor } from '../internal/redact.js';
import type { DashboardHosts } from './dashboard-host.js';
import { DASHBOARD_HTML } from './dashboard-page.js';
import { createEventStreams } from './dashboard-stream.js';
import { type EmulatorCore, INTERNALS, type MockActivity, type MockEvent } from './emulator.js';
import { buildDocumentEvent, buildInventoryEvent } from './event-fixtures.js';
import { cutText } from './text-cut.js';
import type { MockFault, WebhookTarget } from './types.js';

/** Where the dashboard's JSON and event-stream endpoints live, next to its page at `/`. */
export const DASHBOARD_PREFIX = '/_dashboard';

/** How many requests and webhook deliveries the dashboard keeps (the oldest go first). */
export const DASHBOARD_MAX_REQUESTS = 500;
export const DASHBOARD_MAX_DELIVERIES = 200;

/**
 * The most characters of a request's text (headers and body) or of an answer's that a dashboard row keeps; the
 * rest is cut, with a line that says so. With {@link DASHBOARD_MAX_REQUESTS} rows this bounds the snapshot.
 */
export const DASHBOARD_MAX_TEXT_CHARS = 16 * 1024;

/** The largest JSON body a dashboard POST may have. */
const MAX_POST_BYTES = 16 * 1024;

/** One request as the dashboard shows it. It never holds an API key: the key is a short hash. */
export interface DashboardRequest {
  readonly seq: number;
  /** Arrival, from the emulator's clock (milliseconds since the epoch by default). */
  readonly at: number;
  /** The first 12 hex digits of the SHA-256 of the credential sent, or `undefined` when none was sent. */
  readonly keyHash: string | undefined;
  /** The public id of the key that authenticated (`key_1`), when it is a key of the mock. */
  readonly keyId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly docHashId: string | undefined;
  /** The answered status; `undefined` when the connection was dropped or cut. */
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  /** The portal's code of a `PORTAL_ERROR_{n}` answer. */
  readonly portalCode: number | undefined;
  /** What the portal's published list says the code means. */
  readonly portalMeaning: string | undefined;
  readonly durationMs: number;
  /** The scripted fault that shaped the answer, as JSON, when there was one. */
  readonly fault: string | undefined;
  /** The request headers and body as text, the key redacted, cut to its first {@link DASHBOARD_MAX_TEXT_CHARS} characters. */
  readonly request: string;
  /** The answer as text (or what happened to it), the key redacted, cut likewise. */
  readonly answer: string;
}

/** One webhook delivery as the dashboard shows it. */
export interface DashboardDelivery {
  readonly id: number;
  readonly at: number;
  readonly eventId: string;
  readonly eventType: string;
  /** The receiver's origin and path (its query, which could hold a token, is left out). */
  readonly receiver: string;
  /** The receiver's HTTP status, or `undefined` when it could not be reached. */
  readonly status: number | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  /** The raw body sent, cut to its first {@link DASHBOARD_MAX_TEXT_CHARS} characters. */
  readonly body: string;
}

/** What the answer of every request is when the faults switches are on. */
export type DashboardAnswerFault = 'normal' | 'serverError' | 'loseAnswer' | 'drop';

/** The state of the Faults switches. */
export interface DashboardFaults {
  readonly portalDisconnected: boolean;
  /** Delay of every answer, in milliseconds; 0 for none. */
  readonly slowMs: number;
  readonly answer: DashboardAnswerFault;
  /** Faults queued with `failNext`, still waiting for a request. */
  readonly pendingFaults: number;
}

/** Everything the page shows; the first message of the event stream. */
export interface DashboardSnapshot {
  readonly baseUrl: string;
  /** The default webhook receiver (origin and path), or `undefined` when the mock has none. */
  readonly webhookReceiver: string | undefined;
  readonly requests: readonly DashboardRequest[];
  readonly deliveries: readonly DashboardDelivery[];
  readonly documents: readonly { hashId: string; companyId: string; ewayBillNumber: string | undefined }[];
  readonly faults: DashboardFaults;
}

/** The dashboard of one served emulator. */
export interface Dashboard {
  /** Answers `req` when it is the dashboard's (`GET /` or under `/_dashboard`); returns false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** The current snapshot. */
  snapshot(): DashboardSnapshot;
  /** Ends the event streams and stops observing the emulator. */
  close(): void;
}

/** Options of {@link createDashboard}. */
export interface DashboardOptions {
  /** The base URL the mock is served on (shown on the page). */
  readonly baseUrl: string;
  /** Where test events and "send again" go when the emulator has no `webhook` option (the CLI's `--webhook-url`). */
  readonly webhook?: WebhookTarget | undefined;
  /** The `Host` names the dashboard answers to; every other name gets 403. */
  readonly hosts: DashboardHosts;
}

/** The first 12 hex digits of the SHA-256 of a credential, as `ewaybill create` shows keys. */
export function shortKeyHash(credential: string): string {
  return createHash('sha256').update(credential).digest('hex').slice(0, 12);
}

/** The credential of an Authorization header (after its scheme), or the whole value when it has no scheme. */
function credentialOf(authorization: string | null): string | undefined {
  if (authorization === null || authorization.trim() === '') return undefined;
  const match = /^\s*\S+\s+(\S+)\s*$/.exec(authorization);
  return match?.[1] ?? authorization.trim();
}

/**
 * Replaces every occurrence of each secret in `text` by `[redacted]`, in the encoded forms the SDK's own redaction
 * knows too (a key percent-encoded into a query, JSON-escaped in a body: see src/internal/redact.ts).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 4) out = redactor(secret).text(out);
  }
  return out;
}

function receiverOf(target: WebhookTarget): string {
  const url = new URL(target.url);
  return `${url.origin}${url.pathname}`;
}

/** A row's request or answer text, cut to {@link DASHBOARD_MAX_TEXT_CHARS} with a line that says so. */
function clip(text: string, bodyBytes?: number): string {
  if (text.length <= DASHBOARD_MAX_TEXT_CHARS) return text;
  const size = bodyBytes === undefined ? '' : `; the body had ${bodyBytes} bytes`;
  return `${cutText(text, DASHBOARD_MAX_TEXT_CHARS)}\n\n(cut here: the dashboard keeps the first ${DASHBOARD_MAX_TEXT_CHARS} characters of a request or an answer${size})`;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function describeAnswer(activity: Extract<MockActivity, { kind: 'request' }>): string {
  const { outcome } = activity;
  if (outcome.kind === 'drop') return '(no answer: the mock dropped the connection)';
  const headers = Object.entries(outcome.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const cut = outcome.cut ? '\n(the mock sent the first half of this body, then cut the connection)' : '';
  return `HTTP ${outcome.status}\n${headers}\n\n${pretty(outcome.body)}${cut}`;
}

function toRow(activity: Extract<MockActivity, { kind: 'request' }>, defaultKey: string): DashboardRequest {
  const { entry } = activity;
  const credential = credentialOf(activity.authorization);
  const secrets = [credential, defaultKey];
  const portal = entry.errorCode === undefined ? undefined : /^PORTAL_ERROR_(\d+)$/.exec(entry.errorCode)?.[1];
  const portalCode = portal === undefined ? undefined : Number(portal);
  const headers = Object.entries(entry.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  const body =
    entry.bodyKept === 'evicted'
      ? `(a body of ${entry.bodyBytes} bytes, no longer kept)`
      : entry.body === undefined
        ? ''
        : typeof entry.body === 'string'
          ? entry.body
          : pretty(JSON.stringify(entry.body));
  return {
    seq: entry.seq,
    at: entry.receivedAt,
    keyHash: credential === undefined ? undefined : shortKeyHash(credential),
    keyId: entry.keyId,
    method: entry.method,
    path: redactSecrets(entry.path, secrets),
    docHashId: entry.docHashId === undefined ? undefined : redactSecrets(entry.docHashId, secrets),
    status: entry.status,
    errorCode: entry.errorCode,
    portalCode,
    portalMeaning: portalCode === undefined ? undefined : describePortalError(portalCode).description,
    durationMs: Math.max(0, Math.round(activity.answeredAt - entry.receivedAt)),
    fault: entry.fault === undefined ? undefined : JSON.stringify(entry.fault),
    // Cut after redacting, so that a cut never leaves the start of a key.
    request: clip(redactSecrets(`${entry.method} ${entry.path}\n${headers}\n\n${body}`, secrets), entry.bodyBytes),
    answer: clip(redactSecrets(describeAnswer(activity), secrets)),
  };
}

function faultOf(slowMs: number, answer: DashboardAnswerFault): MockFault | undefined {
  const delay = slowMs > 0 ? { delayMs: slowMs } : {};
  if (answer === 'serverError') return { status: 500, ...delay };
  if (answer === 'loseAnswer') return { loseAnswer: true, ...delay };
  if (answer === 'drop') return { drop: true, ...delay };
  return slowMs > 0 ? delay : undefined;
}

function answerOf(fault: Readonly<MockFault> | undefined): DashboardAnswerFault {
  if (fault?.loseAnswer) return 'loseAnswer';
  if (fault?.drop) return 'drop';
  if (fault?.status === 500) return 'serverError';
  return 'normal';
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    'cache-control': 'no-store',
  });
  res.end(bytes);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_POST_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new Error('too large'));
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? {} : (JSON.parse(text) as unknown));
      } catch {
        reject(new Error('not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/**
 * Whether a dashboard POST may act: it must be JSON (a cross-site form cannot send that without a CORS preflight,
 * which the dashboard never allows) and, when the browser names its origin, come from the dashboard's own page.
 * After DNS rebinding `Origin` and `Host` both carry the attacker's name, so this holds only because `handle()` has
 * already refused every `Host` that is not one of the dashboard's.
 */
function sameOriginJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) return false;
  const origin = req.headers.origin;
  return origin === undefined || origin === `http://${req.headers.host ?? ''}`;
}

function isDashboardPath(path: string): boolean {
  return path === DASHBOARD_PREFIX || path.startsWith(`${DASHBOARD_PREFIX}/`);
}

/** The 403 of a request whose `Host` is not one of the dashboard's (a DNS-rebinding page, or a name not allowed). */
function refuseHost(res: ServerResponse, host: string | undefined, hosts: DashboardHosts): void {
  const extra = hosts.extra.length > 0 ? `, ${hosts.extra.join(', ')}` : '';
  sendJson(res, 403, {
    error:
      `The mock's dashboard answers only to localhost, 127.0.0.1, [::1] and the address it listens on${extra}; ` +
      `this request named the host ${JSON.stringify(host ?? '')}. To open it by another name (a docker-compose ` +
      'service, say), start the mock with --allowed-host <name> (allowedHosts in startMockServer).',
  });
}

/**
 * The mock's live dashboard: the page at `/`, a server-sent-event stream at `/_dashboard/events` and small JSON
 * endpoints. It shows requests with the key as a short hash and bodies with the key redacted: no key ever leaves it.
 */
export function createDashboard(core: EmulatorCore, options: DashboardOptions): Dashboard {
  const internals = core[INTERNALS];
  const requests: DashboardRequest[] = [];
  const deliveries: DashboardDelivery[] = [];
  const sent = new Map<number, { event: MockEvent; target: WebhookTarget }>();
  const streams = createEventStreams(snapshot);
  let deliveryCount = 0;
  let slowMs = internals.standingFault?.delayMs ?? 0;
  const target = (): WebhookTarget | undefined => internals.webhook ?? options.webhook;

  function faults(): DashboardFaults {
    return {
      portalDisconnected: !internals.portalConnected(),
      slowMs,
      answer: answerOf(internals.standingFault),
      pendingFaults: core.pendingFaults,
    };
  }

  function documents(): DashboardSnapshot['documents'] {
    return core
      .documents()
      .map((d) => ({ hashId: d.hashId, companyId: d.companyId, ewayBillNumber: d.ewayBill?.number }));
  }

  function snapshot(): DashboardSnapshot {
    const receiver = target();
    return {
      baseUrl: options.baseUrl,
      webhookReceiver: receiver === undefined ? undefined : receiverOf(receiver),
      requests: [...requests],
      deliveries: [...deliveries],
      documents: documents(),
      faults: faults(),
    };
  }

  const broadcast = streams.broadcast;

  function pushState(): void {
    broadcast('state', { documents: documents(), faults: faults() });
  }

  const stopObserving = internals.observe((activity) => {
    if (activity.kind === 'request') {
      const row = toRow(activity, core.apiKey);
      requests.push(row);
      if (requests.length > DASHBOARD_MAX_REQUESTS) requests.shift();
      broadcast('request', row);
      pushState();
    } else if (activity.kind === 'webhook') {
      const id = ++deliveryCount;
      const result = activity.result;
      const delivery: DashboardDelivery = {
        id,
        at: activity.startedAt,
        eventId: activity.event.event_id,
        eventType: activity.event.event_type,
        receiver: receiverOf(activity.target),
        status: 'delivery' in result ? result.delivery.status : undefined,
        error: 'error' in result ? result.error : undefined,
        durationMs: Math.max(0, Math.round(activity.endedAt - activity.startedAt)),
        body: clip(redactSecrets(JSON.stringify(activity.event), [core.apiKey])),
      };
      deliveries.push(delivery);
      sent.set(id, { event: activity.event, target: activity.target });
      if (deliveries.length > DASHBOARD_MAX_DELIVERIES) sent.delete(deliveries.shift()?.id ?? 0);
      broadcast('webhook', delivery);
    } else if (activity.kind === 'reset') {
      requests.length = 0;
      deliveries.length = 0;
      sent.clear();
      slowMs = 0;
      broadcast('snapshot', snapshot());
    } else {
      pushState();
    }
  });

  /** Delivers a copy of `event` (its own object, so the record found is this delivery's) and returns its record. */
  async function deliverRecorded(event: MockEvent, to: WebhookTarget): Promise<DashboardDelivery | undefined> {
    const copy = { ...event };
    await internals.deliver(copy, to).catch(() => {});
    for (const [id, item] of sent) if (item.event === copy) return deliveries.find((d) => d.id === id);
    return undefined;
  }

  async function post(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!sameOriginJson(req)) {
      sendJson(res, 403, { error: 'Dashboard actions take a JSON body from the dashboard page itself' });
      return;
    }
    let body: Record<string, unknown>;
    try {
      const parsed = await readJson(req);
      body = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch (error) {
      sendJson(res, 400, { error: `The body must be a small JSON object (${(error as Error).message})` });
      return;
    }
    if (path === '/faults') {
      const answer = body.answer ?? answerOf(internals.standingFault);
      const slow = body.slowMs ?? slowMs;
      if (!['normal', 'serverError', 'loseAnswer', 'drop'].includes(answer as string)) {
        sendJson(res, 400, { error: 'answer must be normal, serverError, loseAnswer or drop' });
        return;
      }
      if (typeof slow !== 'number' || !Number.isInteger(slow) || slow < 0 || slow > 120_000) {
        sendJson(res, 400, { error: 'slowMs must be an integer from 0 to 120000' });
        return;
      }
      if (body.portalDisconnected !== undefined) {
        if (typeof body.portalDisconnected !== 'boolean') {
          sendJson(res, 400, { error: 'portalDisconnected must be true or false' });
          return;
        }
        core.setPortalConnected(!body.portalDisconnected);
      }
      slowMs = slow;
      internals.setStandingFault(faultOf(slowMs, answer as DashboardAnswerFault));
      sendJson(res, 200, faults());
      return;
    }
    const to = target();
    if (path === '/webhooks/resend') {
      const original = typeof body.id === 'number' ? sent.get(body.id) : undefined;
      if (original === undefined) {
        sendJson(res, 404, { error: 'No such delivery (the dashboard keeps the last 200)' });
        return;
      }
      sendJson(res, 200, await deliverRecorded(original.event, original.target));
      return;
    }
    if (path === '/webhooks/test') {
      if (to === undefined) {
        sendJson(res, 409, { error: 'The mock has no webhook receiver (start it with --webhook-url)' });
        return;
      }
      const type = body.type;
      if (type !== 'document' && type !== 'inventory') {
        sendJson(res, 400, { error: 'type must be document or inventory' });
        return;
      }
      const event: MockEvent =
        type === 'document'
          ? buildDocumentEvent({ data: { message: 'Test event from the mock dashboard' } })
          : buildInventoryEvent();
      sendJson(res, 200, await deliverRecorded(event, to));
      return;
    }
    sendJson(res, 404, { error: `No such dashboard action: POST ${DASHBOARD_PREFIX}${path}` });
  }

  return {
    handle(req, res) {
      const path = new URL(req.url ?? '/', 'http://dashboard.invalid').pathname;
      const method = req.method ?? 'GET';
      const mine = path === '/' ? method === 'GET' || method === 'HEAD' : isDashboardPath(path);
      if (!mine) return false;
      if (!options.hosts.allows(req.headers.host)) {
        refuseHost(res, req.headers.host, options.hosts);
        return true;
      }
      if (path === '/') {
        const bytes = Buffer.from(DASHBOARD_HTML);
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-length': String(bytes.length),
          'cache-control': 'no-store',
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
          'x-content-type-options': 'nosniff',
        });
        res.end(method === 'HEAD' ? undefined : bytes);
        return true;
      }
      const inner = path.slice(DASHBOARD_PREFIX.length);
      if (method === 'GET' && inner === '/events') streams.open(res);
      else if (method === 'GET' && inner === '/state') sendJson(res, 200, snapshot());
      else if (method === 'POST') {
        post(inner, req, res).catch(() => {
          if (!res.headersSent) sendJson(res, 500, { error: 'The dashboard action failed' });
          else res.end();
        });
      } else sendJson(res, 404, { error: `No such dashboard endpoint: ${method} ${path}` });
      return true;
    },
    snapshot,
    close() {
      stopObserving();
      streams.close();
    },
  };
}
