// Shared helpers of the benchmark driver: statistics, formatting, child processes and the request fixture.
import { fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const QUICK = process.env.BENCH_QUICK === '1';
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = new URL('../../dist/', import.meta.url);

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The ESM file of a subpath of the package's `exports` (`'.'`, `'./webhooks'`), or undefined when the map or dist lacks it. */
export function entryPath(subpath) {
  const target = pkg.exports?.[subpath];
  const file = typeof target === 'string' ? target : (target?.import?.default ?? target?.import ?? target?.default);
  if (typeof file !== 'string') return undefined;
  const path = join(ROOT, file);
  return existsSync(path) ? path : undefined;
}

/** A number from the environment, or the quick / full default. */
export function envNumber(name, full, quick = full) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return QUICK ? quick : full;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number; got '${raw}'`);
  return value;
}

/** Median, min and max of a list of numbers. */
export function summary(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).toSorted((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1), n: sorted.length };
}

/** `median (min–max)` of a summary, each number formatted by `fmt`. */
export function spread(s, fmt, unit = '') {
  if (s.n === 0) return 'n/a';
  if (s.n === 1 || s.min === s.max) return `${fmt(s.median)}${unit}`;
  return `${fmt(s.median)}${unit} (${fmt(s.min)}–${fmt(s.max)})`;
}

export const fixed = (digits) => (n) => n.toFixed(digits);
export const MiB = (bytes) => bytes / 1024 / 1024;
export const KiB = (bytes) => bytes / 1024;

/**
 * Runs a worker script in a fresh Node process (with `--expose-gc`) and yields each JSON line it prints on stdout.
 * Other lines go to the driver's stderr. Rejects when the process exits non-zero.
 */
export function startWorker(script, { env = {}, args = [], execArgv = ['--expose-gc'] } = {}) {
  const child = fork(fileURLToPath(new URL(`../workers/${script}`, import.meta.url)), args, {
    env: { ...process.env, ...env },
    execArgv,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const lines = createInterface({ input: child.stdout });
  const messages = [];
  const all = [];
  const waiting = [];
  let ended = false;
  let failure;
  lines.on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`[${script}] ${line}\n`);
      return;
    }
    all.push(message);
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(message);
    else messages.push(message);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  exited.then(({ code, signal }) => {
    ended = true;
    if (code !== 0) failure = new Error(`worker ${script} exited with ${signal ?? `code ${code}`}`);
    for (const w of waiting.splice(0)) w.reject(failure ?? new Error(`worker ${script} ended without output`));
  });
  return {
    child,
    /** The next JSON line the worker prints. */
    next() {
      if (messages.length > 0) return Promise.resolve(messages.shift());
      if (ended) return Promise.reject(failure ?? new Error(`worker ${script} ended without output`));
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    /** Every JSON line printed so far. */
    all: () => all,
    async done() {
      const result = await exited;
      if (result.code !== 0) throw failure;
    },
  };
}

/** Runs a worker to its end and returns the last JSON line it printed. */
export async function runWorker(script, options) {
  const worker = startWorker(script, options);
  await worker.done();
  const last = worker.all().at(-1);
  if (last === undefined) throw new Error(`worker ${script} printed no result`);
  return last;
}

/** A row of the results table. `pass` is true, false, or undefined when the row has no goal. */
export function row(measure, figure, reference, goal, pass) {
  return { measure, figure, reference: reference ?? '—', goal: goal ?? '—', pass };
}

/** Prints rows as a Markdown table (readable in a terminal, pasteable into docs). */
export function printTable(rows) {
  const header = ['measure', 'figure: median (min–max)', 'peers / reference', 'goal', ''];
  const cells = rows.map((r) => [
    r.measure,
    r.figure,
    r.reference,
    r.goal,
    r.pass === undefined ? '' : r.pass ? '✓' : '✗',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (cols) => `| ${cols.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of cells) console.log(line(c));
}
