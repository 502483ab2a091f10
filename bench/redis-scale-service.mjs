// The stand-in service of bench/redis-scale.mjs, in its own process: node:http on loopback, nothing else. It stamps
// the arrival of every request per key (process.hrtime, CLOCK_MONOTONIC, shared by every process of the machine) as
// soon as its headers are parsed, answers 200 after SERVICE_MS, and reports the stamps to the parent on request.
import { createServer } from 'node:http';

const delay = Number(process.env.SERVICE_MS ?? 0);
const keys = Number(process.env.KEYS);
const arrivals = Array.from({ length: keys }, () => []);
let requests = 0;
let unknown = 0;

const server = createServer((req, res) => {
  const at = Number(process.hrtime.bigint()) / 1e6;
  requests++;
  // The path is /k/<key index>.
  const index = Number(req.url.slice(3));
  if (Number.isInteger(index) && index >= 0 && index < keys) arrivals[index].push(at);
  else unknown++;
  req.resume();
  req.on('end', () => {
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', url: `http://127.0.0.1:${server.address().port}` }));

process.on('message', (message) => {
  if (message?.type !== 'report') return;
  // Exits once the report is written to the channel: a large message could otherwise be cut off.
  process.send({ type: 'report', requests, unknown, arrivals }, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
});
