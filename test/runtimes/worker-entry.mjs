// workerd (through Miniflare): a Worker whose fetch handler runs the smoke with the config POSTed to it.
// scripts/test-runtimes.mjs bundles it with the SDK and its dependencies into one module. With `config.otel`, the
// Worker has registered OpenTelemetry first (test/runtimes/otel-setup.mjs, bundled in).
import * as root from '../../dist/index.js';
import * as webhooks from '../../dist/webhooks.js';
import { registerOtel } from './otel-setup.mjs';
import { smoke } from './smoke.mjs';

// Since 0.2.0 the webhook names live in their own entry only.
const sdk = { ...root, ...webhooks };

export default {
  async fetch(request) {
    try {
      const config = await request.json();
      const spans = config.otel ? registerOtel() : undefined;
      const result = await smoke(sdk, config);
      if (spans) result.spans = spans();
      return Response.json(result);
    } catch (error) {
      return Response.json({ error: String(error?.stack ?? error) }, { status: 500 });
    }
  },
};
