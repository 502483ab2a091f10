// The loopback service of bench/queue.mjs, in its own process: answers every request 200 `{}` at once and records,
// per path, when it arrived (process.hrtime: CLOCK_MONOTONIC, which every process of this machine shares).
import { createServer } from 'node:http';

const arrivals = [];
const server = createServer((req, res) => {
  arrivals.push([req.url, Number(process.hrtime.bigint()) / 1e6]);
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'ready', port: server.address().port }));
process.on('message', (message) => {
  if (message?.type === 'report') process.send({ type: 'report', arrivals });
  if (message?.type === 'stop') server.close(() => process.exit(0));
});
