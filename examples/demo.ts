// `npm run demo`: the SDK end to end against its embedded mock service, with no account and no network.
// Run with Node >= 22.18 (it strips the TypeScript types); the package names resolve to the built dist/.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PortalError, ServiceClient } from 'invoicing-service-sdk';
import { buildEwayBillModel, startMockServer } from 'invoicing-service-sdk/testing';
import { verifyWebhook } from 'invoicing-service-sdk/webhooks';

// Nothing here should take more than a few seconds; never leave a terminal hanging.
const watchdog = setTimeout(() => {
  console.error('demo: did not finish within 30 s; stopping.');
  process.exit(1);
}, 30_000);
watchdog.unref();

const WEBHOOK_SECRET = 'demo-webhook-secret'; // the demo's own value; real secrets are never printed
const ms = (t: number) => `${Math.round(t).toString().padStart(5)} ms`;
const heading = (text: string) => console.log(`\n== ${text}`);

const mock = await startMockServer();
console.log(`Mock service listening at ${mock.baseUrl} (an emulator of the spec, on this machine only)`);

try {
  heading('1. Create an e-way bill through ServiceClient');
  const client = new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl });
  const invoice = mock.service.addDocument('INV-2026-0001');
  const created = await client.createEwayBill(invoice, buildEwayBillModel());
  console.log(`   ${created.message}`);

  heading('2. Three calls with one key: the client spaces them by the service limit (1 request/second/key)');
  const key = mock.service.addApiKey();
  const begin = performance.now();
  const starts: number[] = [];
  const throttled = new ServiceClient({
    apiKey: key,
    baseUrl: mock.baseUrl,
    hooks: {
      onRequest: () => starts.push(performance.now() - begin),
      onRetry: (event) => console.log(`   (retry after ${event.reason}, waiting ${event.delayMs} ms)`),
    },
  });
  const docs = ['INV-2026-0002', 'INV-2026-0003', 'INV-2026-0004'].map((id) => mock.service.addDocument(id));
  const answers = await Promise.all(
    docs.map(async (doc) => {
      await throttled.createEwayBill(doc, buildEwayBillModel());
      return performance.now() - begin;
    }),
  );
  console.log(`   requests sent at: ${starts.map((t) => `+${ms(t)}`).join(', ')}`);
  console.log(`   answers at:       ${answers.map((t) => `+${ms(t)}`).join(', ')}`);
  const arrivals = mock.service.arrivalsOf(key);
  const gaps = arrivals.slice(1).map((t, i) => `${Math.round(t - (arrivals[i] ?? t))} ms`);
  const limited = mock.service.requests.filter((r) => r.keyId === mock.service.keyIdOf(key) && r.status === 429);
  console.log(`   gaps between arrivals at the mock: ${gaps.join(', ')}; answers 429: ${limited.length}`);

  heading('3. A PortalError, with its code and meaning');
  const explain = (error: unknown) => {
    if (!(error instanceof PortalError)) throw error;
    console.log(`   ${error.name} ${error.errorCode}: portal code ${error.portalCode}, category '${error.category}'`);
    console.log(`   meaning: ${error.portalMessage ?? '(not in the portal list)'}`);
    console.log(`   retryable: ${error.retryable}`);
  };
  await client.createEwayBill(invoice, buildEwayBillModel()).then(() => console.log('   unexpected success'), explain);
  const offline = mock.service.addCompany({ portalConnected: false });
  const offlineDoc = mock.service.addDocument('INV-OFFLINE-1', { companyId: offline.companyId });
  const offlineClient = new ServiceClient({ apiKey: offline.apiKey, baseUrl: mock.baseUrl });
  await offlineClient
    .createEwayBill(offlineDoc, buildEwayBillModel())
    .then(() => console.log('   unexpected'), explain);

  heading('4. Receive and verify a signed webhook on a local receiver');
  const receiver = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const event = await verifyWebhook(Buffer.concat(chunks), req.headers['x-signature'] as string, WEBHOOK_SECRET);
      const summary =
        event.known && event.event_type === 'document' ? `document ${event.data.hash_id}` : event.event_type;
      console.log(`   receiver: verified event ${event.event_id} (${summary})`);
      res.writeHead(200).end();
    } catch (error) {
      console.log(`   receiver: rejected (${(error as Error).name}: ${(error as Error).message})`);
      res.writeHead(401).end();
    }
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  const good = await mock.service.sendDocumentEvent(
    { data: { hash_id: invoice, message: 'Document updated' } },
    { url: hookUrl, secret: WEBHOOK_SECRET, timeoutMs: 5000 },
  );
  console.log(`   mock: delivered, receiver answered ${good.status}`);
  const forged = await mock.service.sendDocumentEvent(undefined, {
    url: hookUrl,
    secret: 'a-wrong-secret',
    timeoutMs: 5000,
  });
  console.log(`   mock: a delivery signed with the wrong secret got ${forged.status}`);
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
} finally {
  await mock.close();
}
console.log('\nDone: everything above ran offline against the embedded mock. Run the tests with `npm test`.');
