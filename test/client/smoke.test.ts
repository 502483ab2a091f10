import { HttpResponse, http } from 'msw';
import { ServiceClient } from 'invoicing-service-sdk';
import { expect, it } from 'vitest';
import { freshKey, validModel } from '../helpers/model.js';
import { BASE_URL, useMswServer } from '../helpers/msw.js';

const server = useMswServer();

it('creates an e-way bill', async () => {
  server.use(http.post(`${BASE_URL}/v2/ewaybill/:id`, ({ params }) => HttpResponse.json({ success: true, message: `ok ${params.id}` })));
  const client = new ServiceClient({ apiKey: freshKey(), baseUrl: BASE_URL });
  await expect(client.createEwayBill('abc', validModel())).resolves.toEqual({ success: true, message: 'ok abc' });
});
