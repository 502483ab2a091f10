// Measure 6: verifyWebhook on a 1 KB body, CPU ops/s against bare createHmac + timingSafeEqual + JSON.parse,
// interleaved rounds in one fresh process, the ratio taken per round.
import { envNumber, fixed, row, spread, startWorker, summary } from './common.mjs';

export const title = 'verifyWebhook vs bare HMAC';

export async function run() {
  const ROUNDS = envNumber('BENCH_VERIFY_ROUNDS', 7, 3);
  const ROUND_MS = envNumber('BENCH_VERIFY_ROUND_MS', 300, 150);
  const worker = startWorker('verify.mjs', { env: { ROUNDS, ROUND_MS } });
  await worker.done();
  const rounds = worker.all().map((r) => r.result);
  const ratio = summary(rounds.map((r) => r.verifyWebhook / r.bare));
  const opsText = (s) => spread(s, (n) => Math.round(n).toLocaleString('en-US'));
  const bare = summary(rounds.map((r) => r.bare));
  const sdk = summary(rounds.map((r) => r.verifyWebhook));
  return [
    row(
      `verifyWebhook, 1 KB body, CPU ops/s vs bare createHmac + timingSafeEqual + JSON.parse (${ROUNDS} rounds)`,
      `${spread(ratio, fixed(2), '×')} = ${opsText(sdk)} ops/s`,
      `bare ${opsText(bare)} ops/s`,
      '≥ 0.9×',
      ratio.median >= 0.9,
    ),
  ];
}
