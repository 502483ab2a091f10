// A day-end batch over two companies, with progress, then a report of what failed and what may exist.
// Run it against the local mock of the service, in this repository: `npm run build`, then
//   npx node examples/batch.ts
// (it starts its own mock server with two companies; with real keys, build the clients from your own settings).
import { createEwayBills, type EwayBillModel, ServiceClient } from 'invoicing-service-sdk';
import { formatServiceDate } from 'invoicing-service-sdk/model';
import { buildEwayBillModel, startMockServer } from 'invoicing-service-sdk/testing';

const mock = await startMockServer();
const globex = mock.service.addCompany();
const clients = {
  acme: new ServiceClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl }),
  globex: new ServiceClient({ apiKey: globex.apiKey, baseUrl: mock.baseUrl }),
};

// Your ERP's invoices of the day: which company each belongs to, its document id and its e-way bill details.
const model: EwayBillModel = buildEwayBillModel({ transporter_doc_date: formatServiceDate(new Date()) });
const invoices = [
  ...['A-1', 'A-2', 'A-3'].map((id) => ({ company: 'acme', hashId: mock.service.addDocument(id) })),
  ...['G-1', 'G-2'].map((id) => ({
    company: 'globex',
    hashId: mock.service.addDocument({ hashId: id, companyId: globex.companyId }),
  })),
  { company: 'acme', hashId: 'A-unknown' },
];

try {
  const results = await createEwayBills(
    clients,
    invoices.map((invoice) => ({ client: invoice.company, docHashId: invoice.hashId, model })),
    {
      signal: AbortSignal.timeout(60_000),
      onProgress: ({ done, total, failed, etaMs }) =>
        console.log(`${done}/${total} done, ${failed} failed, about ${Math.ceil(etaMs / 1000)} s left`),
    },
  );
  for (const result of results) {
    if (result.status === 'fulfilled') console.log(`${result.client} ${result.docHashId}: ${result.value.outcome}`);
    else {
      const hint = result.mayHaveSucceeded ? ' (may exist: send again with mayAlreadyExist: true)' : '';
      console.error(`${result.client} ${result.docHashId}: ${result.error.message}${hint}`);
    }
  }
} finally {
  await mock.close();
}
