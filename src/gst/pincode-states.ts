import { PINCODE_RUNS, PINCODE_STATE_SETS } from './pincode-table.js';

/** The decoded table: each run's first and last PIN code, and its states (GST state codes). */
interface Runs {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly states: readonly (readonly string[])[];
}

let decoded: Runs | undefined;

// Decoded on first use, so importing the SDK costs only the two strings.
function runs(): Runs {
  if (decoded !== undefined) return decoded;
  const sets = PINCODE_STATE_SETS.split('|').map((set) => set.split(' '));
  const tokens = PINCODE_RUNS.split(';');
  const starts = new Int32Array(tokens.length);
  const ends = new Int32Array(tokens.length);
  const states: (readonly string[])[] = [];
  let previous = 0;
  for (const [index, token] of tokens.entries()) {
    const [gap = '', length = '', set = ''] = token.split(',');
    starts[index] = previous + Number.parseInt(gap, 36);
    ends[index] = starts[index] + Number.parseInt(length, 36);
    states.push(sets[Number.parseInt(set, 36)] ?? []);
    previous = ends[index];
  }
  decoded = { starts, ends, states };
  return decoded;
}

/**
 * The GST state codes a PIN code can be in, by India Post's directory (src/gst/pincode-table.ts): the states of its
 * run when the directory has it or a PIN code on both sides of it in the same run; otherwise the states of the runs
 * on either side that share its first three digits. `undefined` when the directory has no PIN code with its first
 * three digits near it (the rule is then silent).
 */
export function pincodeStateCodes(pincode: string): readonly string[] | undefined {
  const pin = Number(pincode);
  const { starts, ends, states } = runs();
  // The last run that starts at or before the PIN code.
  let low = 0;
  let high = starts.length - 1;
  let at = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((starts[middle] ?? 0) <= pin) {
      at = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (at !== -1 && pin <= (ends[at] ?? 0)) return states[at];
  const prefix = Math.trunc(pin / 1000);
  const near = new Set<string>();
  if (at !== -1 && Math.trunc((ends[at] ?? 0) / 1000) === prefix) for (const code of states[at] ?? []) near.add(code);
  const next = at + 1;
  if (next < starts.length && Math.trunc((starts[next] ?? 0) / 1000) === prefix) {
    for (const code of states[next] ?? []) near.add(code);
  }
  return near.size === 0 ? undefined : [...near];
}
