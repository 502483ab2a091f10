// The mock server of bench/load.mjs, in its own process (as the real service is): creates the keys,
// sends its URL and keys to the parent, and on request sends back the per-key arrival times and statuses.
import { startMockServer } from '../dist/testing.js';

const server = await startMockServer();
const keys = Array.from({ length: Number(process.env.KEYS ?? 200) }, () => server.service.addApiKey());
const documents = Array.from({ length: keys.length * Number(process.env.CALLS ?? 5) }, () =>
  server.service.addDocument(),
);
process.send({ type: 'ready', url: server.url, keys, documents });
process.on('message', async (message) => {
  if (message?.type !== 'report') return;
  const statuses = {};
  for (const r of server.service.requests) statuses[r.status ?? 'dropped'] = (statuses[r.status ?? 'dropped'] ?? 0) + 1;
  process.send({ type: 'report', statuses, arrivals: keys.map((k) => server.service.arrivalsOf(k)) });
  await server.close();
  process.exit(0);
});
