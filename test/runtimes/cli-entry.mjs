// Node, Bun and Deno: run the smoke with the config from SMOKE_CONFIG and print the result as one JSON line.
import * as root from '../../dist/index.js';
import * as webhooks from '../../dist/webhooks.js';
import { smoke } from './smoke.mjs';

// Since 0.2.0 the webhook names live in their own entry only.
const sdk = { ...root, ...webhooks };

const config = JSON.parse(globalThis.process?.env?.SMOKE_CONFIG ?? globalThis.Deno?.env.get('SMOKE_CONFIG') ?? '{}');
console.log(JSON.stringify(await smoke(sdk, config)));
