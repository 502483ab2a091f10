// Node, Bun and Deno: run the smoke with the config from SMOKE_CONFIG and print the result as one JSON line.
import * as sdk from '../../dist/index.js';
import { smoke } from './smoke.mjs';

const config = JSON.parse(globalThis.process?.env?.SMOKE_CONFIG ?? globalThis.Deno?.env.get('SMOKE_CONFIG') ?? '{}');
console.log(JSON.stringify(await smoke(sdk, config)));
