import { closeSync, openSync, writeSync } from 'node:fs';
import { createEwayBills, type EwayBillBatchItem, type EwayBillBatchResult } from '../client/batch.js';
import type { EwayBillCreator } from '../client/once.js';
import { ServiceClient } from '../client/service-client.js';
import type { PreflightFinding } from '../gst/preflight.js';
import type { EwayBillModel } from '../model/schemas.js';
import type { CliCommand } from './args.js';
import { createInFlightJournal } from './in-flight.js';
import { type InputLine, readEarlierResults, readInput } from './jsonl.js';
import type { CliOutput } from './output.js';
import { createProgressView, type ProgressStream } from './progress.js';

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
    const { outcome, message, recovered } = result.value;
    return { line, docHashId: result.docHashId, ok: true, outcome, recovered, message, ...warned, at };
  }
  const error = result.error as Error & { code?: string; errorCode?: string; status?: number; issues?: unknown };
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

function describe(result: EwayBillBatchResult): string {
  if (result.status === 'fulfilled') {
    return `${result.docHashId} ${result.value.outcome}${result.value.recovered ? ' (recovered)' : ''}`;
  }
  const error = result.error as Error & { code?: string };
  return `${result.docHashId} FAILED ${error.code ?? error.name}: ${error.message.split('\n')[0]}`;
}

/**
 * `ewaybill create`: generates the e-way bills of a JSONL file (one `{"docHashId", "model"}` per line) with the key in
 * SERVICE_API_KEY, writing one result line per document to the output file as each settles. Documents already done in
 * the output file are skipped, so running the same command again resumes. Resolves with 0 when every document has a
 * bill, 1 when some failed, 2 for a usage problem, 130 when stopped.
 * @example await runEwaybillCreate({ input: 'bills.jsonl', output: 'results.jsonl', progress: 'auto', preflight: 'warn' }, io, context)
 */
export async function runEwaybillCreate(
  options: EwaybillCreateOptions,
  io: CliOutput,
  context: EwaybillCreateContext,
): Promise<number> {
  const warnings = new Map<string, PreflightFinding[]>();
  let current: string | undefined;
  let client: ServiceClient;
  try {
    client = new ServiceClient({
      apiKey: context.env.SERVICE_API_KEY,
      baseUrl: context.env.SERVICE_BASE_URL,
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
  const journal = createInFlightJournal(options.output);
  const tracked: EwayBillCreator = {
    createEwayBill(docHashId, model, callOptions) {
      journal.add(docHashId);
      current = docHashId;
      try {
        return client.createEwayBill(docHashId, model, callOptions);
      } finally {
        current = undefined;
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
  const killedInFlight = new Set(journal.loadEarlier());
  for (const id of killedInFlight) if (earlier.done.has(id)) journal.delete(id);
  const fd = openSync(options.output, 'a');
  const write = (value: unknown) => writeSync(fd, `${JSON.stringify(value)}\n`);
  try {
    if (earlier.endsMidLine) writeSync(fd, '\n');
    const view = createProgressView(options.progress, context.progressStream);
    const items: (EwayBillBatchItem & { line: number })[] = [];
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
        write({
          line: entry.line,
          docHashId: entry.docHashId,
          ok: false,
          ...problem,
          at: new Date().toISOString(),
        });
        view.note(`line ${entry.line}: ${problem.code}: ${problem.error}`);
        continue;
      }
      const { line, docHashId, model } = entry as Extract<InputLine, { model: unknown }>;
      firstLine.set(docHashId, line);
      const mayAlreadyExist = earlier.uncertain.has(docHashId) || killedInFlight.has(docHashId);
      items.push({ line, docHashId, model: model as EwayBillModel, mayAlreadyExist });
    }
    if (skipped > 0) view.note(`Skipping ${skipped} document(s) already done in ${options.output}.`);

    let generated = 0;
    let recovered = 0;
    let lastLine: string | undefined;
    const results = await createEwayBills(tracked, items, {
      signal: context.stop,
      onResult: (result, index) => {
        lastLine = describe(result);
        if (result.status === 'fulfilled') {
          generated += 1;
          if (result.value.recovered) recovered += 1;
        }
        // A document that was never sent when the run stopped leaves no line: the next run sends it.
        if (result.status === 'rejected' && result.error.name === 'AbortError' && !result.mayHaveSucceeded) return;
        write(resultLine((items[index] as { line: number }).line, result, warnings.get(result.docHashId)));
        // Only once its line is written: a run killed in between still knows the document may exist.
        journal.delete(result.docHashId);
      },
      // onResult runs just before: the view shows that document with the counts.
      onProgress: (progress) => {
        view.update(progress, lastLine);
        lastLine = undefined;
      },
      logger: { warn: (message) => io.err(message) },
    });
    view.end();
    const failed = results.filter((r) => r.status === 'rejected').length + badLines;
    const stopped = context.stop.aborted;
    io.out(
      `${stopped ? 'Stopped' : 'Done'}: ${generated} generated${recovered ? ` (${recovered} recovered after a lost answer)` : ''}, ` +
        `${failed} failed, ${skipped} skipped as already done; results in ${options.output}.` +
        (stopped ? ' Run the same command again to continue.' : ''),
    );
    return stopped ? 130 : failed > 0 ? 1 : 0;
  } finally {
    closeSync(fd);
  }
}
