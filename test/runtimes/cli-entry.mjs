// Node, Bun and Deno: run the smoke with the config from SMOKE_CONFIG and print the result as one JSON line. With
// `config.otel`, the application has registered OpenTelemetry first (test/runtimes/otel-setup.mjs).
import * as root from '../../dist/index.js';
import * as webhooks from '../../dist/webhooks.js';
import { registerOtel } from './otel-setup.mjs';
import { smoke } from './smoke.mjs';

// Since 0.2.0 the webhook names live in their own entry only.
const sdk = { ...root, ...webhooks };

const config = JSON.parse(globalThis.process?.env?.SMOKE_CONFIG ?? globalThis.Deno?.env.get('SMOKE_CONFIG') ?? '{}');
const spans = config.otel ? registerOtel() : undefined;
const result = await smoke(sdk, config);
if (spans) result.spans = spans();
console.log(JSON.stringify(result));
