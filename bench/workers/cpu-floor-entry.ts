// The parts of the CPU bench's floor (bench/lib/cpu.mjs bundles this from src): the model check every `createEwayBill`
// makes, as the client makes it (the fast parser once loaded), and the default preflight.
import { checkModel, modelCheckFast } from '../../src/model/check.js';

export { preflightEwayBill } from '../../src/gst/preflight.js';

/** Resolves once the fast parser is in use, as it is on a client's calls after the first. */
export async function loaded(model: unknown): Promise<void> {
  checkModel(model);
  for (let i = 0; i < 1000 && !modelCheckFast(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!modelCheckFast()) throw new Error('the fast model parser did not load');
}

/** The checked copy of a model, as `createEwayBill` makes it; throws if the model is refused. */
export function checked(model: unknown): unknown {
  const result = checkModel(model);
  if (!result.success) throw new Error('the bench model was refused');
  return result.data;
}
