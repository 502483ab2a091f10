// A loopback HTTP server in its own process, as the real service is (its clock and event loop are not the client's).
// Answers every POST with the service's success answer after DELAY_MS ± JITTER_MS (0 by default: at once).
// With INTERVAL_MS set it enforces the service's limit: a request of a key (its Authorization header) that arrives
// less than INTERVAL_MS after the previous arrival of that key is answered 429.
// Prints {"port"} when listening; on the IPC message 'report' prints the arrivals and statuses per key and exits.
import { createServer } from 'node:http';

const DELAY_MS = Number(process.env.DELAY_MS ?? 0);
const JITTER_MS = Number(process.env.JITTER_MS ?? 0);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 0);
const SUCCESS = JSON.stringify({ success: true, message: 'E-way bill generated' });
const LIMITED = JSON.stringify({ success: false, message: 'Too many requests' });

/** Per key: arrival times (ms, this process's monotonic clock) and the status each got. */
const keys = new Map();
let requests = 0;

const server = createServer((req, res) => {
  const arrival = performance.now();
  requests++;
  const key = req.headers.authorization ?? '';
  if (!keys.has(key)) keys.set(key, { arrivals: [], statuses: [] });
  const state = keys.get(key);
  const previous = state.arrivals.at(-1);
  state.arrivals.push(arrival);
  const limited = INTERVAL_MS > 0 && previous !== undefined && arrival - previous < INTERVAL_MS;
  state.statuses.push(limited ? 429 : 200);
  req.resume();
  req.on('end', () => {
    const answer = () => {
      const body = limited ? LIMITED : SUCCESS;
      res.writeHead(limited ? 429 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    const delay = limited || DELAY_MS === 0 ? 0 : DELAY_MS + (Math.random() * 2 - 1) * JITTER_MS;
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('message', (message) => {
  if (message !== 'report') return;
  const perKey = [...keys.values()];
  process.stdout.write(`${JSON.stringify({ requests, keys: perKey })}\n`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
