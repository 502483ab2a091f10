import http from 'node:http';
import { ServiceClient } from '../dist/index.js';
import { fetch as undiciFetch, Agent } from 'undici';
const variant = process.argv[2];
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.setHeader('content-type','application/json'); res.end('{"success":true,"message":"ok"}'); }); });
await new Promise(r => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const agent = new http.Agent({ keepAlive: true });
const httpFetch = async (input, init) => { const body = await input.text(); return new Promise((resolve, reject) => {
  const req = http.request(input.url, { method: input.method, headers: Object.fromEntries(input.headers), agent }, (res) => {
    const chunks = []; res.on('data', c => chunks.push(c)); res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers: res.headers })));
  });
  req.on('error', reject);
  req.end(body);
}); };
const fetches = { http: httpFetch, undici: async (r, i) => undiciFetch(r.url, { method: r.method, headers: r.headers, body: await r.text(), signal: i?.signal }), wrap: (u, i) => fetch(u, i) };
const opts = { apiKey: 'leaky-key', baseUrl: `http://127.0.0.1:${port}`, fetch: fetches[variant], timeout: false, preflight: 'off', rateLimiter: { acquire: async () => undefined } };
const client = new ServiceClient(opts);
const model = { supply_type: 'Outward', sub_supply_type: 'Supply', transporter_doc_date: '21-11-2026', transport_mode: 'Road', vehicle_number: 'MH12AB1234', dispatch_from: { addr_id: 1, address_line1: 'a', address_line2: '', city: 'Pune', state: 'MAHARASHTRA', country: 'India', pincode: '411001' }, dispatch_to: { addr_id: 2, address_line1: 'b', address_line2: '', city: 'Kolkata', state: 'WEST BENGAL', country: 'India', pincode: '700016' } };
const N = 5000;
async function round() { for (let i = 0; i < N; i++) await client.createEwayBill('doc' + (i % 100), model); }
await round(); gc(); const base = process.memoryUsage().heapUsed;
const out=[];
for (let r = 0; r < 3; r++) { await round(); gc(); await new Promise(r=>setTimeout(r,50)); gc(); out.push(((process.memoryUsage().heapUsed - base) / 1e6).toFixed(1)); }
console.log(variant, out.join(' '), 'MB per', N);
server.close(); agent.destroy();
