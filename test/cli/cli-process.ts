import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'tsup';
import { afterAll, beforeAll } from 'vitest';
import { createFileJournal } from '../../src/journal/file-journal.js';
import type { JournalRecord } from '../../src/journal/journal.js';

/** Builds src/cli/index.ts into a temporary folder under the project's ignored .tmp/ (so `zod` resolves). */
export function buildCli(): Promise<{ file: string; dir: string; remove(): void }> {
  return buildEntry('cli', 'src/cli/index.ts');
}

/**
 * Builds one entry of the SDK (`src/index.ts`, say) into `<name>.mjs` in a temporary folder under the project's
 * ignored .tmp/, so a child process can run it without a build of the package (and `ky`, `zod` resolve).
 */
export async function buildEntry(name: string, entry: string): Promise<{ file: string; dir: string; remove(): void }> {
  mkdirSync(join(process.cwd(), '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(process.cwd(), '.tmp', `${name}-test-`));
  await build({
    config: false,
    entry: { [name]: entry },
    outDir: dir,
    format: 'esm',
    target: 'node22',
    outExtension: () => ({ js: '.mjs' }),
    define: { __SDK_VERSION__: JSON.stringify('0.0.0-cli-test') },
    silent: true,
    dts: false,
    sourcemap: false,
  });
  return { file: join(dir, `${name}.mjs`), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * For a test file: builds the CLI once before its tests and makes a temporary folder under .tmp/ named `<prefix>-…`;
 * both are removed after them. Read `cli` and `dir` inside the tests.
 */
export function useBuiltCli(prefix: string): { readonly cli: { file: string }; readonly dir: string } {
  let built: Awaited<ReturnType<typeof buildCli>> | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    built = await buildCli();
    dir = mkdtempSync(join(process.cwd(), '.tmp', `${prefix}-`));
  }, 60_000);
  afterAll(() => {
    built?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get cli() {
      return built as { file: string };
    },
    get dir() {
      return dir as string;
    },
  };
}

/** A running CLI process with its output so far. */
export interface CliRun {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name); kills the process if it has not exited within `ms`. */
  exit(ms?: number): Promise<number | string>;
  /**
   * Resolves when the complete lines of stdout so far match `pattern`; rejects after `ms`. Only complete lines are
   * matched, so a pattern never sees half a URL or a line whose end is still in the pipe.
   */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** The same as {@link CliRun.waitFor}, on stderr (where `ewaybill create` draws its progress). */
  waitForStderr(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
}

/**
 * Spawns `node <file> ...args` with the Node running the tests (Node 24 under npm), with `env` added to the environment.
 * `fileSizeBlocks` runs it under `ulimit -f <blocks>` (bash's blocks are 1024 bytes): a write past that size fails with
 * EFBIG (Node ignores SIGXFSZ), and a write that crosses it is cut short.
 */
export function runCli(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
  options: { readonly fileSizeBlocks?: number } = {},
): CliRun {
  const command: [string, ...string[]] =
    options.fileSizeBlocks === undefined
      ? [process.execPath, file, ...args]
      : ['bash', '-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, process.execPath, file, ...args];
  const child = spawn(command[0], command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit(ms = 10_000) {
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      return exited.finally(() => clearTimeout(timer));
    },
    waitFor: (pattern, ms) => waitForLines(() => out, pattern, ms),
    waitForStderr: (pattern, ms) => waitForLines(() => err, pattern, ms),
  };

  async function waitForLines(text: () => string, pattern: RegExp, ms = 10_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + ms;
    for (;;) {
      const sofar = text();
      const match = sofar.slice(0, sofar.lastIndexOf('\n') + 1).match(pattern);
      if (match) return match;
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`CLI output did not match ${pattern} within ${ms} ms. stdout: ${out} stderr: ${err}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/**
 * What the run's journal `<output>.journal` holds, read between runs: the records of `ids` at `baseUrl`, and the
 * pending ones. The journal is opened (its lock taken) and closed again before this resolves, so the next run can.
 */
export async function readRunJournal(
  output: string,
  baseUrl: string,
  ids: readonly string[],
): Promise<{ records: Map<string, JournalRecord | undefined>; pending: JournalRecord[] }> {
  const journal = createFileJournal(`${output}.journal`);
  try {
    const records = new Map<string, JournalRecord | undefined>();
    for (const docHashId of ids) records.set(docHashId, await journal.get({ baseUrl, docHashId }));
    return { records, pending: await journal.pending() };
  } finally {
    await journal.close();
  }
}
