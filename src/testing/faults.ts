import { errorAnswer, htmlAnswer, jsonAnswer, MOCK_ERROR_CODES, type Outcome } from './outcome.js';
import type { MockFault } from './types.js';

const KINDS = ['portalError', 'html', 'drop', 'truncate', 'emptyBody', 'loseAnswer'] as const;

function problem(message: string): never {
  throw new TypeError(`Invalid fault for failNext: ${message}`);
}

/**
 * Checks a scripted fault and returns a frozen copy of it.
 * @throws {TypeError} naming what is wrong, for example two kinds of fault in one.
 */
export function checkFault(fault: MockFault): Readonly<MockFault> {
  if (typeof fault !== 'object' || fault === null) problem('expected an object such as { portalError: 238 }');
  const kinds = KINDS.filter((kind) => fault[kind] !== undefined && fault[kind] !== false);
  if (kinds.length > 1) problem(`give only one of ${KINDS.join(', ')}; got ${kinds.join(' and ')}`);
  const { portalError, status, delayMs } = fault;
  if (portalError !== undefined && (!Number.isInteger(portalError) || portalError < 1)) {
    problem(`portalError must be a positive integer portal code such as 238; got ${String(portalError)}`);
  }
  if (status !== undefined && (!Number.isInteger(status) || status < 200 || status > 599)) {
    problem(`status must be an integer HTTP status from 200 to 599; got ${String(status)}`);
  }
  if (status !== undefined && (portalError !== undefined || fault.drop || fault.truncate || fault.loseAnswer)) {
    problem('status can be combined only with html or emptyBody');
  }
  if (fault.errorCode !== undefined && status === undefined) problem('errorCode needs a status');
  if (delayMs !== undefined && (!Number.isFinite(delayMs) || delayMs < 0)) {
    problem(`delayMs must be a number of milliseconds >= 0; got ${String(delayMs)}`);
  }
  if (kinds.length === 0 && status === undefined && delayMs === undefined) {
    problem('it does nothing: give portalError, status, html, drop, truncate, emptyBody, loseAnswer or delayMs');
  }
  return Object.freeze({ ...fault });
}

/**
 * The answer a fault imposes before the request is looked at (as a failing proxy or server would),
 * or `undefined` when the request goes on to be handled (a delay alone, or a portal error that comes later).
 */
export function transportFaultOutcome(fault: Readonly<MockFault>): Outcome | undefined {
  if (fault.drop) return { kind: 'drop' };
  if (fault.html) return htmlAnswer(fault.status ?? 502);
  if (fault.emptyBody) return { kind: 'answer', status: fault.status ?? 200, headers: {}, body: '' };
  if (fault.truncate) {
    const body = { success: true, message: 'E-way bill generated (this answer is cut off halfway)' };
    const answer = jsonAnswer(200, body);
    return answer.kind === 'answer' ? { ...answer, cut: true } : answer;
  }
  if (fault.status !== undefined) {
    const server = fault.status >= 500;
    return errorAnswer(
      fault.status,
      fault.errorCode ?? (server ? MOCK_ERROR_CODES.serverError : 'SCRIPTED_FAULT'),
      fault.message ?? (server ? 'Internal server error (scripted fault)' : `HTTP ${fault.status} (scripted fault)`),
    );
  }
  return undefined;
}

/**
 * The outcome of a request under its scripted fault, if any. `handle` is the service acting on the request (it may
 * generate an e-way bill); `wait` is a delay that rejects when cut short. `loseAnswer` acts first, then waits, then
 * drops: the answer is lost after the work is done. Every other fault waits first, then answers as the fault says.
 */
export async function faultedOutcome(
  fault: Readonly<MockFault> | undefined,
  handle: () => Outcome,
  wait: (ms: number) => Promise<void>,
): Promise<Outcome> {
  if (fault?.loseAnswer) {
    handle(); // its answer is discarded: only the state it changed remains
    if (fault.delayMs) await wait(fault.delayMs);
    return { kind: 'drop' };
  }
  if (fault?.delayMs) await wait(fault.delayMs);
  return (fault && transportFaultOutcome(fault)) ?? handle();
}
