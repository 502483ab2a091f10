// `npm run bench [-- name ...]`: the performance measures of issue 13 in one run, printed as one table.
// Each measured process is a fresh child (see bench/workers/); the loopback server always runs in its own process.
// Names: cpu throughput keys bundle import verify leak abort otel journal (default: all but journal, in that order).
// BENCH_QUICK=1 runs a fast smoke with small counts; the BENCH_* variables in each bench/lib/*.mjs set the counts.
// Benchmarks print figures; they are not timed tests. The exit code is 0 even when a goal is missed (✗).
import { printTable, QUICK, row } from './lib/common.mjs';

const BENCHES = ['cpu', 'throughput', 'keys', 'bundle', 'import', 'verify', 'leak', 'abort', 'otel', 'journal'];
/** Run only when named (`npm run bench -- journal`): they measure a subpath, not the client's hot path. */
const ON_REQUEST = ['journal'];

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = asked.filter((name) => !BENCHES.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from: ${BENCHES.join(' ')}`);
  process.exit(1);
}
const selected =
  asked.length > 0 ? BENCHES.filter((name) => asked.includes(name)) : BENCHES.filter((n) => !ON_REQUEST.includes(n));

const started = performance.now();
console.log(
  `invoicing-service-sdk benchmarks: ${selected.join(', ')}${QUICK ? ' (BENCH_QUICK=1: small counts, a smoke run)' : ''}`,
);
console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${new Date().toISOString()}\n`);

const rows = [];
const notes = [];
for (const name of selected) {
  const bench = await import(`./lib/${name}.mjs`);
  const t0 = performance.now();
  process.stderr.write(`· ${name}: ${bench.title} …`);
  try {
    const result = await bench.run({ notes });
    rows.push(...result);
  } catch (error) {
    rows.push(row(`${name}: FAILED`, String(error?.message ?? error).slice(0, 80), undefined, 'runs', false));
    process.exitCode = 1;
  }
  process.stderr.write(` ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

console.log('');
printTable(rows);
if (notes.length > 0) console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
const met = rows.filter((r) => r.pass === true).length;
const missed = rows.filter((r) => r.pass === false).length;
console.log(
  `\ngoals met ${met}, missed ${missed}; total ${((performance.now() - started) / 1000).toFixed(0)} s. ` +
    'Figures are medians with the min–max of the rounds in parentheses.',
);
