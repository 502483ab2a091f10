// Measure 5: cold import, CPU over bare node, each probe a fresh process; targets interleaved in each round and the
// difference to bare node taken per round.
import { pathToFileURL } from 'node:url';
import { entryPath, envNumber, fixed, row, runWorker, spread, summary } from './common.mjs';

export const title = 'cold import time (fresh processes)';

const entryUrl = (subpath) => {
  const path = entryPath(subpath);
  return path && pathToFileURL(path).href;
};

export async function run({ notes }) {
  const ROUNDS = envNumber('BENCH_IMPORT_ROUNDS', 7, 3);
  const targets = { bare: '', ky: 'ky', root: entryUrl('.') };
  const webhooks = entryUrl('./webhooks');
  if (webhooks) targets.webhooks = webhooks;
  else notes.push('import: no `invoicing-service-sdk/webhooks` entry in dist yet, so its import row is skipped');
  const names = Object.keys(targets);
  const rounds = [];
  // One spawn of each first, unmeasured: file-system caches are warm for every target alike.
  for (const name of names) await runWorker('import-probe.mjs', { env: { TARGET: targets[name] }, execArgv: [] });
  for (let r = 0; r < ROUNDS; r++) {
    const result = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + r) % names.length];
      result[name] = await runWorker('import-probe.mjs', { env: { TARGET: targets[name] }, execArgv: [] });
    }
    rounds.push(result);
  }
  const over = (name) => summary(rounds.map((r) => (r[name].cpuUs - r.bare.cpuUs) / 1000));
  const ms = (s) => `+${spread(s, fixed(0))} ms`;
  const bare = summary(rounds.map((r) => r.bare.cpuUs / 1000));
  const ky = over('ky');
  const root = over('root');
  const rows = [
    row(
      `cold import, CPU over bare node (${spread(bare, fixed(0))} ms), ${ROUNDS} fresh processes each: the SDK root`,
      ms(root),
      `ky alone ${ms(ky)}`,
      '≤ ky + 30 ms',
      root.median <= ky.median + 30,
    ),
  ];
  if (webhooks) {
    const hooks = over('webhooks');
    rows.push(row('  invoicing-service-sdk/webhooks', ms(hooks), `ky alone ${ms(ky)}`, undefined));
  } else {
    rows.push(row('  invoicing-service-sdk/webhooks', 'skipped: no such entry in dist', undefined, undefined));
  }
  return rows;
}
