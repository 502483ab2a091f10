// The mock service of bench/redis-processes.mjs, in its own process (as the real service is): creates the keys and
// documents, sends them to the parent, and on request reports the statuses, per-key arrival times and documents sent.
import { startMockServer } from '../dist/testing.js';

const server = await startMockServer();
const keys = Array.from({ length: Number(process.env.KEYS) }, () => server.service.addApiKey());
const documents = Array.from({ length: keys.length * Number(process.env.CALLS) }, () => server.service.addDocument());
process.send({ type: 'ready', url: server.url, keys, documents });
process.on('message', async (message) => {
  if (message?.type !== 'report') return;
  const statuses = {};
  for (const r of server.service.requests) statuses[r.status ?? 'dropped'] = (statuses[r.status ?? 'dropped'] ?? 0) + 1;
  process.send({
    type: 'report',
    statuses,
    arrivals: keys.map((k) => server.service.arrivalsOf(k)),
    documents: server.service.requests.map((r) => r.docHashId),
  });
  await server.close();
  process.exit(0);
});
