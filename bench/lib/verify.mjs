// Measure 6: verifyWebhook on a 1 KB body, CPU ops/s against bare createHmac + timingSafeEqual + JSON.parse,
// interleaved rounds in one fresh process, the ratio taken per round. Two more rows without a goal: the signature
// check alone (verifyWebhookSignature) and the Web Crypto path (what edge runtimes use) against their bare work.
import { envNumber, fixed, row, spread, startWorker, summary } from './common.mjs';

export const title = 'verifyWebhook vs bare HMAC';

export async function run() {
  const ROUNDS = envNumber('BENCH_VERIFY_ROUNDS', 7, 3);
  const ROUND_MS = envNumber('BENCH_VERIFY_ROUND_MS', 300, 150);
  // The goal's pair runs alone in its process, as it always has; the other two pairs in a second one, so their
  // promises and Web Crypto's thread pool cannot disturb it. Round r of both processes is merged into one record.
  const goal = startWorker('verify.mjs', { env: { ROUNDS, ROUND_MS } });
  await goal.done();
  const CASES = 'bareSignature,verifyWebhookSignature,bareWebCrypto,verifyWebhookWebCrypto';
  const others = startWorker('verify.mjs', { env: { ROUNDS, ROUND_MS, CASES } });
  await others.done();
  const otherRounds = others.all().map((r) => r.result);
  const rounds = goal.all().map((r, i) => ({ ...r.result, ...otherRounds[i] }));
  const opsText = (s) => spread(s, (n) => Math.round(n).toLocaleString('en-US'));
  const pair = (label, sdkName, bareName, goal) => {
    const ratio = summary(rounds.map((r) => r[sdkName] / r[bareName]));
    return row(
      `${label} (${ROUNDS} rounds)`,
      `${spread(ratio, fixed(2), '×')} = ${opsText(summary(rounds.map((r) => r[sdkName])))} ops/s`,
      `bare ${opsText(summary(rounds.map((r) => r[bareName])))} ops/s`,
      goal === undefined ? '—' : `≥ ${goal}×`,
      goal === undefined ? undefined : ratio.median >= goal,
    );
  };
  return [
    pair(
      'verifyWebhook, 1 KB body, CPU ops/s vs bare createHmac + timingSafeEqual + JSON.parse',
      'verifyWebhook',
      'bare',
      0.9,
    ),
    pair('  verifyWebhookSignature vs bare createHmac + timingSafeEqual', 'verifyWebhookSignature', 'bareSignature'),
    pair(
      "  verifyWebhook { crypto: 'webcrypto' } vs bare subtle.verify + JSON.parse",
      'verifyWebhookWebCrypto',
      'bareWebCrypto',
    ),
  ];
}
