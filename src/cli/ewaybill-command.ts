import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { createEwayBills } from '../client/batch.js';
import type { EwayBillBatchItem, EwayBillBatchResult } from '../client/batch-types.js';
import { DEFAULT_RESEND_DELAY_MS, type EwayBillCreator, JOURNALED } from '../client/once.js';
import { ServiceClient } from '../client/service-client.js';
import { JournalError } from '../errors/journal-error.js';
import type { PreflightFinding } from '../gst/preflight.js';
import { abortableDelay } from '../internal/abort.js';
import { redactor } from '../internal/redact.js';
import { createFileJournal, type FileJournal } from '../journal/file-journal.js';
import type { EwayBillModel } from '../model/schemas.js';
import type { CliCommand } from './args.js';
import { withEarlierSends } from './earlier-sends.js';
import { type InputLine, readEarlierResults, readInput } from './jsonl.js';
import { type CliOutput, stderrLogger } from './output.js';
import { createProgressView, type ProgressStream } from './progress.js';
import { appendSynced, takeLock, writeFully } from './run-files.js';
import { journalScopes } from './run-journal.js';
import { type OldLedger, readOldLedger, scopeName } from './sent-ledger.js';

/** Options of {@link runEwaybillCreate}: what the command line asked for. */
export type EwaybillCreateOptions = Omit<Extract<CliCommand, { kind: 'ewaybill-create' }>, 'kind'>;

/** What the command needs from its process: environment, the stream progress is drawn on, and Ctrl+C. */
export interface EwaybillCreateContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly progressStream: ProgressStream;
  /** Aborts when the user asks to stop (SIGINT, SIGTERM in the CLI). */
  readonly stop: AbortSignal;
}

/** The result line of a settled document. It never holds the API key: the SDK's errors never carry it. */
function resultLine(line: number, result: EwayBillBatchResult, warnings: readonly PreflightFinding[] | undefined) {
  const at = new Date().toISOString();
  const warned = warnings?.length ? { warnings: warnings.map(({ field, message }) => ({ field, message })) } : {};
  if (result.status === 'fulfilled') {
    const { outcome, message, recovered, bodyChanged } = result.value;
    // bodyChanged: the bill was made from the body an earlier run sent, before the document was edited (the journal
    // resolved that request first): it does not match the document as it is now.
    return { line, docHashId: result.docHashId, ok: true, outcome, recovered, bodyChanged, message, ...warned, at };
  }
  const error = result.error as Error & { code?: string; errorCode?: string; status?: number; issues?: unknown };
  // ABORTED: stopped before the request left (no line is written for those); ABORTED_AFTER_SEND: it may have left.
  const issues = Array.isArray(error.issues)
    ? error.issues.map(({ field, message }: { field: string; message: string }) => ({ field, message }))
    : undefined;
  return {
    line,
    docHashId: result.docHashId,
    ok: false,
    code: error.name === 'AbortError' ? 'ABORTED' : (error.code ?? error.name),

    errorCode: error.errorCode,
    status: error.status,
    error: error.message,
    issues,
    mayHaveSucceeded: result.mayHaveSucceeded,
    ...warned,
    at,
  };
}

/** The live line of a settled document: how it ended, in the summary's words (generated, failed, not sent). */
function describe(result: EwayBillBatchResult, sent: boolean): string {
  if (result.status === 'fulfilled') {
    const { outcome, recovered, bodyChanged } = result.value;
    const earlier = bodyChanged ? ' from the body an earlier run sent, before the document was edited' : '';
    return `${result.docHashId} ${outcome}${recovered ? ' (recovered)' : ''}${earlier}`;
  }
  const error = result.error as Error & { code?: unknown };
  const code = typeof error.code === 'string' ? error.code : error.name;
  const first = error.message.split('\n')[0] as string;
  // A system error's message starts with its code already (`EFBIG: file too large, write`).
  const said = first.startsWith(`${code}:`) ? first : `${code}: ${first}`;
  if (!sent) return `${result.docHashId} not sent (${error.name === 'AbortError' ? 'stopped' : said})`;
  return `${result.docHashId} FAILED ${said}`;
}

/**
 * `ewaybill create`: generates the e-way bills of a JSONL file (one `{"docHashId", "model"}` per line) with the key in
 * SERVICE_API_KEY, writing one result line per document to the output file as each settles. Documents already done in
 * the output file are skipped, so running the same command again resumes. Resolves with 0 when every document has a
 * bill, 1 when some failed or were not sent without a stop (a local error such as a journal that cannot be written, a
 * refused key, a results file that cannot be written), 2 for a usage problem, 130 when stopped.
 *
 * Each document's request is recorded in the run's journal, `<output>.journal` (a file journal of
 * `invoicing-service-sdk/journal`), before it leaves, and its outcome after: a document a run may have sent is never
 * sent blindly again (the next run waits out its in-flight window and takes a 604 as its bill), one refused for good
 * is not sent again with the same body, and one known as generated is not sent again.
 * @example await runEwaybillCreate({ input: 'bills.jsonl', output: 'results.jsonl', progress: 'auto', preflight: 'warn', timeoutMs: 30_000 }, io, context)
 */
export async function runEwaybillCreate(
  options: EwaybillCreateOptions,
  io: CliOutput,
  context: EwaybillCreateContext,
): Promise<number> {
  const warnings = new Map<string, PreflightFinding[]>();
  let current: string | undefined;
  for (const [name, what] of [
    ['SERVICE_API_KEY', "the company's API key"],
    ['SERVICE_BASE_URL', "the service's base URL, for example https://host/api/partner"],
  ] as const) {
    if (!context.env[name]?.trim()) {
      io.err(
        `ewaybill create needs ${what} in the ${name} environment variable` +
          (name === 'SERVICE_API_KEY' ? ' (never on the command line, so it stays out of ps and shell history).' : '.'),
      );
      return 2;
    }
  }
  let client: ServiceClient | undefined;
  const key = context.env.SERVICE_API_KEY?.trim() ?? '';
  const keyHash = createHash('sha256').update(key).digest('hex').slice(0, 12);
  const redact = redactor(key);
  // The run's journal (issue 31): each document's intent is recorded (appended, synced) before its request leaves, and
  // its outcome after. Only what may leave is recorded: a document refused by the model checks or the preflight is not.
  // One process at a time: the output's lock is taken first, and the journal holds `<output>.journal.lock`.
  const journal = createFileJournal(`${options.output}.journal`);
  /** Documents an older version's ledger or an uncertain results line names as perhaps sent (filled by `run`). */
  const earlierSends = new Set<string>();
  // Stops the batch: when the results cannot be written, or a journal record cannot (nothing more is sent).
  const halt = new AbortController();
  try {
    client = new ServiceClient({
      apiKey: context.env.SERVICE_API_KEY,
      baseUrl: context.env.SERVICE_BASE_URL,
      // A 604 of a document sent before this journal is its bill, recorded so (earlier-sends.ts).
      journal: withEarlierSends(journal, earlierSends),
      timeout: options.timeoutMs,
      // The client's warnings (the journal's: an outcome it could not record, a bill made from an earlier body; a
      // retry) on stderr, the key masked. Its per-request lines only when SERVICE_LOG asks for them.
      logger: stderrLogger(io, redact),
      logLevel: context.env.SERVICE_LOG?.trim() ? undefined : 'warn',
      preflight: options.preflight,
      onWarning: (finding) => {
        // The preflight runs synchronously as createEwayBill starts, so `current` is the document it is about.
        const id = (finding as { docHashId?: string }).docHashId ?? current;
        if (id === undefined) return;
        const list = warnings.get(id) ?? [];
        if (!list.some((f) => f.rule === finding.rule && f.field === finding.field)) list.push(finding);
        warnings.set(id, list);
      },
    });
  } catch (error) {
    io.err(`ewaybill create: ${(error as Error).message}`);
    return 2;
  }
  const lock = takeLock(options.output);
  if ('refused' in lock) {
    io.err(`ewaybill create: ${lock.refused}`);
    return 2;
  }
  try {
    // Refused here, before anything is sent, when another run holds the journal.
    await journal.open();
    // Read only: what a version before the journal recorded as sent.
    const ledger = readOldLedger(options.output, { baseUrl: client.baseUrl, key: keyHash });
    return await run(options, io, context, {
      client,
      journal,
      earlierSends,
      ledger,
      halt,
      warnings,
      keyHash,
      redact,
      setCurrent: (id) => (current = id),
    });
  } catch (error) {
    io.err(`ewaybill create: ${redact.text((error as Error).message)}`);
    return 2;
  } finally {
    await journal.close().catch((error: unknown) => {
      io.err(`ewaybill create: could not close ${journal.path}: ${redact.text(String(error))}`);
    });
    lock.release();
  }
}

/** How long a request of a version before the journal could take: the client's default timeout then (30 s). */
const OLD_TIMEOUT_MS = 30_000;

/**
 * Before the batch: says which documents an earlier run may still have in flight at the service (the client waits each
 * out before sending it again, `--timeout` + 5 s after it left), and waits out those only an old version's ledger
 * names: it recorded no times, so its file's last change (a record is written just before its request leaves) plus
 * that version's timeout and the same 5 s is when its last request can no longer be in flight.
 */
async function waitForEarlierRequests(
  parts: RunParts,
  items: readonly EwayBillBatchItem[],
  inOldLedger: number,
  view: ReturnType<typeof createProgressView>,
  signal: AbortSignal,
): Promise<void> {
  const ids = new Set(items.map((item) => item.docHashId));
  const now = Date.now();
  const inFlight = (await parts.journal.pending({ baseUrl: parts.client.baseUrl })).filter(
    (record) => ids.has(record.docHashId) && record.inFlightUntil > now,
  );
  if (inFlight.length > 0) {
    const until = Math.max(...inFlight.map((record) => record.inFlightUntil));
    view.note(
      `${inFlight.length} document(s) an earlier run sent may still be at the service; each is sent again only once ` +
        `that request can no longer be in flight (within ${Math.ceil((until - now) / 1000)} s), and a 604 "already ` +
        'generated" then counts as its bill.',
    );
  }
  const oldUntil = (parts.ledger.writtenAt ?? Number.NEGATIVE_INFINITY) + OLD_TIMEOUT_MS + DEFAULT_RESEND_DELAY_MS;
  if (inOldLedger > 0 && oldUntil > now) {
    view.note(
      `${inOldLedger} document(s) recorded as sent by an older version may still be at the service: waiting ` +
        `${Math.ceil((oldUntil - now) / 1000)} s before sending them again.`,
    );
    await abortableDelay(oldUntil - now, signal);
  }
}

interface RunParts {
  readonly client: ServiceClient;
  readonly journal: FileJournal;
  /** Filled with the documents sent as `mayAlreadyExist`: the client's journal shows them as perhaps sent. */
  readonly earlierSends: Set<string>;
  readonly ledger: OldLedger;
  readonly halt: AbortController;
  readonly warnings: Map<string, PreflightFinding[]>;
  readonly keyHash: string;
  readonly redact: ReturnType<typeof redactor>;
  readonly setCurrent: (id: string | undefined) => void;
}

async function run(
  options: EwaybillCreateOptions,
  io: CliOutput,
  context: EwaybillCreateContext,
  parts: RunParts,
): Promise<number> {
  const { client, ledger, halt, warnings, keyHash, redact } = parts;
  /** The documents this run handed to the client: a refusal or an abort of any other was never sent. */
  const handed = new Set<string>();
  const tracked: EwayBillCreator & { readonly [JOURNALED]: true } = {
    // The client waits out an uncertain earlier request by itself: createEwayBillOnce adds no resend delay of its own.
    [JOURNALED]: true,
    createEwayBill(docHashId, model, callOptions) {
      handed.add(docHashId);
      parts.setCurrent(docHashId);
      try {
        return client.createEwayBill(docHashId, model, callOptions);
      } finally {
        parts.setCurrent(undefined);
      }
    },
  };
  let lines: InputLine[];
  let earlier: Awaited<ReturnType<typeof readEarlierResults>>;
  try {
    lines = await readInput(options.input);
    earlier = await readEarlierResults(options.output);
  } catch (error) {
    io.err(`ewaybill create: ${(error as Error).message}`);
    return 2;
  }
  const here = scopeName({ baseUrl: client.baseUrl, key: keyHash });
  // Results, journal or old ledger records of another service or key: resuming would skip documents that have no bill
  // here, or take another party's bill for this run's own (the journal answers a document it knows as generated).
  for (const [file, scopes, what] of [
    [options.output, earlier.where, 'holds results done'],
    [`${options.output}.journal`, journalScopes(`${options.output}.journal`), 'records documents sent'],
    [`${options.output}.sent`, ledger.elsewhere, 'records documents sent'],
  ] as const) {
    const elsewhere = [...scopes].find((where) => where !== here);
    if (elsewhere === undefined) continue;
    const [url, hash] = elsewhere.split(' ');
    io.err(
      `ewaybill create: ${file} ${what} at ${url} with the key ${hash}; this run is at ${client.baseUrl} with the ` +
        `key ${keyHash} (keys are shown as a short hash). Resuming would skip documents that have no bill here, or ` +
        "take another party's bill for this run's: use another --output for this service or key.",
    );
    return 2;
  }
  // Records of a version before 0.3 say no service: they count only when the results file shows this one.
  const unscopedHere = earlier.where.has(here);
  if (ledger.unscoped.size > 0 && !unscopedHere) {
    io.err(
      `ewaybill create: ${ledger.unscoped.size} document(s) in ${options.output}.sent were recorded by an older ` +
        'version that did not record the service or key: they are not taken as sent here, so a 604 "already ' +
        'generated" for one of them is reported as failed. Check such a document in the dashboard.',
    );
  }
  const fd = openSync(options.output, 'a');
  // The user's stop (context.stop) works as before; `halt` stops the batch when the run's own files cannot be written.
  const signal = AbortSignal.any([context.stop, halt.signal]);
  /** Why the output could not be written: from then on nothing more is sent, and no write is tried again. */
  let outputError: Error | undefined;
  // The batch is stopped (halt.abort) before it starts, or in onProgress, just after the onResult whose line failed:
  // an abort inside onResult would settle the unsent documents inside it, and their lines would take its place.
  const outputFailed = (error: unknown) => {
    outputError ??= error instanceof Error ? error : new Error(String(error));
  };
  /**
   * Appends a result line. Once the output cannot be written, the line goes to stdout instead (a bill number is never
   * lost) and later lines follow it there: after a failed write the file may end in a cut line, which must not swallow
   * the next one.
   */
  const write = (value: unknown) => {
    if (outputError === undefined) {
      try {
        appendSynced(fd, value);
        return;
      } catch (error) {
        outputFailed(error);
      }
    }
    io.out(JSON.stringify(value));
  };
  try {
    if (earlier.endsMidLine) {
      try {
        writeFully(fd, '\n');
      } catch (error) {
        outputFailed(error);
      }
    }
    const view = createProgressView(options.progress, context.progressStream);
    const items: (EwayBillBatchItem & { line: number })[] = [];
    /** Documents an old version's ledger names as perhaps sent: its request may still be in flight (see below). */
    let inOldLedger = 0;
    const firstLine = new Map<string, number>();
    let skipped = 0;
    let badLines = 0;
    for (const entry of lines) {
      if (entry.docHashId !== undefined && earlier.done.has(entry.docHashId)) {
        skipped += 1;
        continue;
      }
      const repeated = entry.docHashId === undefined ? undefined : firstLine.get(entry.docHashId);
      const problem =
        'error' in entry
          ? { code: entry.code, error: entry.error }
          : repeated !== undefined
            ? { code: 'DUPLICATE', error: `line ${entry.line} repeats the docHashId of line ${repeated}; not sent` }
            : undefined;
      if (problem) {
        badLines += 1;
        write({ line: entry.line, docHashId: entry.docHashId, ok: false, ...problem, at: new Date().toISOString() });
        view.note(`line ${entry.line}: ${problem.code}: ${problem.error}`);
        continue;
      }
      const { line, docHashId, model } = entry as Extract<InputLine, { model: unknown }>;
      firstLine.set(docHashId, line);
      // A document a run on this output ever sent may have its bill: its 604 is "already generated", done. The journal
      // knows its own (the client recovers them); the results file and an old version's ledger are asked here.
      const old = ledger.has(docHashId) || (unscopedHere && ledger.unscoped.has(docHashId));
      if (old) inOldLedger += 1;
      const mayAlreadyExist = earlier.uncertain.has(docHashId) || old;
      if (mayAlreadyExist) parts.earlierSends.add(docHashId);
      items.push({ line, docHashId, model: model as EwayBillModel, mayAlreadyExist });
    }
    if (skipped > 0) view.note(`Skipping ${skipped} document(s) already done in ${options.output}.`);
    await waitForEarlierRequests(parts, items, inOldLedger, view, signal).catch(() => {
      // Stopped while waiting: nothing was sent; the batch below settles every document as not sent.
    });

    let generated = 0;
    let recovered = 0;
    let failed = badLines;
    let notSent = 0;
    /** The first error that kept a document from being sent, other than a stop or a refused key (a journal write). */
    let localError: Error | undefined;
    /** The journal could not record a document's intent: it was not sent, and nothing more can be recorded. */
    let journalFailed: Error | undefined;
    let refusedKey: string | undefined;
    let lastLine: string | undefined;
    if (outputError) halt.abort();
    await createEwayBills(tracked, items, {
      signal,
      keepResults: false,
      onResult: (result, index) => {
        if (result.status === 'fulfilled') {
          generated += 1;
          if (result.value.recovered) recovered += 1;
        }
        if (result.status === 'rejected') {
          const code = (result.error as { code?: unknown }).code;
          if (code === 'UNAUTHORIZED' || code === 'FORBIDDEN') refusedKey = code;
          // Never sent (stopped before it left, its key refused first, or its journal record could not be written):
          // no line, the next run sends it.
          const notRecorded =
            !result.mayHaveSucceeded && result.error instanceof JournalError ? result.error : undefined;
          if (notRecorded || (!result.mayHaveSucceeded && !handed.has(result.docHashId))) {
            notSent += 1;
            if (notRecorded) {
              journalFailed ??= notRecorded;
              localError ??= notRecorded;
            } else if (result.error.name !== 'AbortError' && code !== 'UNAUTHORIZED' && code !== 'FORBIDDEN') {
              localError ??= result.error;
            }
            lastLine = redact.text(describe(result, false));
            return;
          }
          if (!result.mayHaveSucceeded && result.error.name === 'AbortError') {
            notSent += 1;
            lastLine = redact.text(describe(result, false));
            return;
          }
          failed += 1;
        }
        lastLine = redact.text(describe(result, true));
        const line = resultLine((items[index] as { line: number }).line, result, warnings.get(result.docHashId));
        write({ ...(redact.value(line) as object), baseUrl: client.baseUrl, key: keyHash });
      },
      // onResult runs just before: the view shows that document with the counts.
      onProgress: (progress) => {
        // The view counts as the summary does: bad lines are failures, documents never sent are not.
        view.update({ ...progress, failed, notSent, stopping: signal.aborted }, lastLine);
        lastLine = undefined;
        // Runs right after each onResult, before the next document can start: nothing more is sent.
        if (outputError) halt.abort();
        if (journalFailed) halt.abort(journalFailed);
      },
      logger: stderrLogger(io, redact),
    });
    view.end();
    const stopped = context.stop.aborted || halt.signal.aborted;
    io.out(
      `${stopped ? 'Stopped' : 'Done'}: ${generated} generated${recovered ? ` (${recovered} recovered after a lost answer)` : ''}, ` +
        `${failed} failed, ${notSent} not sent, ${skipped} skipped as already done; results in ${options.output}.` +
        (stopped || notSent > 0 ? ' Run the same command again to continue: done documents are skipped.' : ''),
    );
    if (refusedKey) {
      io.err(
        `The service refused the API key (${refusedKey}); the documents after it were not sent. Set SERVICE_API_KEY ` +
          "to the company's current key (a key regenerated in the dashboard replaces the old one) and run the same " +
          'command again.',
      );
    }
    if (outputError) {
      io.err(
        `ewaybill create: could not write to ${options.output}: ${redact.text(outputError.message)}. Stopped sending; ` +
          'the result lines that could not be written are on stdout. Make room (or raise the file-size limit) and run ' +
          'the same command again: documents sent by this run count their 604 "already generated" as done.',
      );
      return 1;
    }
    if (localError) {
      io.err(
        `ewaybill create: documents were not sent because of a local error: ${redact.text(localError.message)}. ` +
          'Fix it and run the same command again.',
      );
    }
    if (context.stop.aborted) return 130;
    // Documents not sent without a stop (a local error, a refused key) are not done: the run did not succeed.
    return failed > 0 || refusedKey || notSent > 0 ? 1 : 0;
  } finally {
    closeSync(fd);
  }
}
