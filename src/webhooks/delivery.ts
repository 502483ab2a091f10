import { callUserCallback } from '../internal/callback.js';
import { resolveCryptoPath } from './crypto-backend.js';
import { type DeliveryTrace, startDeliveryTrace } from './delivery-trace.js';
import { reportDrift, reportRefusedEvent } from './drift-report.js';
import { WebhookPayloadError, WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './events.js';
import type { ResolvedHandlerOptions, WebhookErrorInfo } from './handler-options.js';
import { parseWebhookEvent } from './parse-event.js';
import { checkSignature } from './signature.js';

/** The answer to one delivery, independent of the HTTP framework. */
export interface DeliveryAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A small JSON body; it never contains the secret, a digest, the signature or an internal error message. */
  readonly body: string;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A success answer. */
function ok(extra: Record<string, unknown> = {}): DeliveryAnswer {
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ ok: true, ...extra }) };
}

type Reporting = Pick<ResolvedHandlerOptions, 'onError' | 'logger'>;

/**
 * Passes a cause to `onError`. A throwing or rejecting `onError` never changes the answer and never becomes an
 * unhandled rejection: it is reported once through the logger.
 */
export function report(options: Reporting, cause: unknown, info: WebhookErrorInfo): void {
  callUserCallback('webhook onError', options.onError, [cause, info], options.logger);
}

/**
 * A refusal. 4xx answers say what was wrong (safe texts only); 5xx answers say nothing about the cause.
 * The cause goes to `onError`.
 */
export function refuse(
  options: Reporting,
  status: number,
  code: string,
  cause: unknown,
  extra: { eventId?: string; headers?: Record<string, string> } = {},
): DeliveryAnswer {
  report(options, cause, { status, eventId: extra.eventId });
  const message = status < 500 && cause instanceof Error ? cause.message : undefined;
  return {
    status,
    headers: { ...JSON_HEADERS, ...extra.headers },
    body: JSON.stringify({ ok: false, error: status < 500 ? code : 'WEBHOOK_HANDLER_FAILED', message }),
  };
}

async function runOnce(
  options: ResolvedHandlerOptions,
  event: WebhookEvent,
  trace: DeliveryTrace | undefined,
): Promise<DeliveryAnswer> {
  const { dedupe } = options;
  const eventId = event.event_id;
  const onEvent = () => (trace ? trace.run(() => options.onEvent(event)) : options.onEvent(event));
  if (dedupe === undefined) {
    await onEvent();
    return ok();
  }
  // The claim's owner: if this delivery outlives its lease and another one claims the event, this delivery's
  // commit or release must not settle the other's claim.
  const token = globalThis.crypto.randomUUID();
  // A claim that failed may still be taken: one abandoned at its deadline runs once the store wakes up, and would
  // hold the event until the lease ends (every redelivery answered 409). A release with the token, queued behind the
  // claim on the same connection, undoes it; it frees only this delivery's own claim. Not awaited (the store is likely
  // still slow) and best effort: the answer is 500 either way, and the lease ends the claim if the release is lost.
  const releaseFailedClaim = () => {
    Promise.resolve()
      .then(() => dedupe.release(eventId, token))
      .catch(() => {});
  };
  let claim: unknown;
  try {
    claim = await dedupe.claim(eventId, options.processingLeaseMs, token);
  } catch (error) {
    releaseFailedClaim();
    throw error;
  }
  if (claim !== 'claimed' && claim !== 'processed' && claim !== 'processing') {
    releaseFailedClaim();
    // Taking an unknown answer as 'claimed' could run an event twice; 500 makes the service redeliver.
    throw new TypeError(
      `dedupe.claim must resolve to 'claimed', 'processing' or 'processed'; got ${typeof claim === 'string' ? JSON.stringify(claim.slice(0, 40)) : typeof claim}.`,
    );
  }
  trace?.claim(claim);
  if (claim === 'processed') return ok({ duplicate: true });
  if (claim === 'processing') {
    // Not 2xx: if the delivery holding the claim fails, this event must still be redelivered.
    const cause = new Error(`Event ${eventId} is being processed by another delivery; retry later.`);
    return refuse(options, 409, 'WEBHOOK_EVENT_IN_PROGRESS', cause, { eventId, headers: { 'retry-after': '10' } });
  }
  try {
    await onEvent();
  } catch (error) {
    await Promise.resolve()
      .then(() => dedupe.release(eventId, token))
      .catch((releaseError: unknown) => report(options, releaseError, { status: 500, eventId }));
    throw error;
  }
  try {
    await dedupe.commit(eventId, options.dedupeTtlMs, token);
  } catch (error) {
    // The event was handled: answer 2xx. Without the record, a later redelivery may run it again.
    report(options, error, { status: 200, eventId });
  }
  return ok();
}

/**
 * Answers one delivery whose body was read: signature (401), envelope (400), de-duplication, then `onEvent`
 * (2xx only after it resolved, 500 when it throws). Never throws.
 */
export async function answerDelivery(
  options: ResolvedHandlerOptions,
  body: string | Uint8Array,
  signature: unknown,
): Promise<DeliveryAnswer> {
  const trace = startDeliveryTrace();
  const answer = await answerVerified(options, body, signature, trace);
  trace?.end(answer.status, answer.body);
  return answer;
}

async function answerVerified(
  options: ResolvedHandlerOptions,
  body: string | Uint8Array,
  signature: unknown,
  trace: DeliveryTrace | undefined,
): Promise<DeliveryAnswer> {
  let event: WebhookEvent;
  try {
    const pending = checkSignature(body, signature, options.secrets, resolveCryptoPath(options.crypto));
    if (pending !== undefined) await pending;
    event = parseWebhookEvent(body, options);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return refuse(options, 401, error.code, error);
    if (error instanceof WebhookPayloadError) {
      // Only a body whose signature matched gets here: authentic, so never refused in silence.
      reportRefusedEvent(options, error, String(signature));
      return refuse(options, 400, error.code, error);
    }
    return refuse(options, 500, '', error);
  }
  trace?.event(event);
  reportDrift(options, event);
  try {
    return await runOnce(options, event, trace);
  } catch (error) {
    return refuse(options, 500, '', error, { eventId: event.event_id });
  }
}
