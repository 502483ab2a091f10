// workerd (through Miniflare): a Worker whose fetch handler runs the smoke with the config POSTed to it.
// scripts/test-runtimes.mjs bundles it with the SDK and its dependencies into one module.
import * as root from '../../dist/index.js';
import * as webhooks from '../../dist/webhooks.js';
import { smoke } from './smoke.mjs';

// Since 0.2.0 the webhook names live in their own entry only.
const sdk = { ...root, ...webhooks };

export default {
  async fetch(request) {
    try {
      return Response.json(await smoke(sdk, await request.json()));
    } catch (error) {
      return Response.json({ error: String(error?.stack ?? error) }, { status: 500 });
    }
  },
};
