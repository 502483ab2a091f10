/** The CLI's help text. */
export const USAGE = `Usage: invoicing-service-sdk <command> [options]

Commands:
  mock-server      Run the embedded mock of the invoicing service on a local port, until Ctrl+C.
                   Use it from any language: point your client at the printed base URL and key.
  send-webhook     Sign a sample event with your webhook secret, POST it to your receiver, print its answer.
  ewaybill create  Generate the e-way bills of a JSONL file, writing one result line per document.

Options of mock-server:
  --port <n>      Port to listen on (0 picks a free one).            Default: 4010
  --documents <n> Documents to hold, doc_demo_0001 and on (1-1000). Default: 5
                  Each can get one e-way bill; a second is PORTAL_ERROR_604.
  --host <addr>   Interface to listen on (loopback keeps it local).  Default: 127.0.0.1
  --allowed-host <name>   Another Host name the dashboard answers to, such as a docker-compose
                          service name (repeatable). It always answers localhost, 127.0.0.1, [::1]
                          and the --host address; any other name gets 403 (no DNS rebinding).
  --no-rate-limit Turn off the emulated limit of 1 request per second per key.
  --disconnected  Start with the company not connected to the e-way bill portal (PORTAL_ERROR_111).
  --quiet         Do not log each request.
  --api-key <key> Use this test key instead of a new one, so it stays the same across restarts
                  (JWT-shaped: pass the key an earlier run printed).
  --webhook-url <url>     POST a signed document event there for each e-way bill generated
                          (the spec shows no e-way bill event; this one has the document event's shape).
  --webhook-secret <s>    The secret those events are signed with. Default: $WEBHOOK_SECRET

Options of send-webhook:
  --url <url>     Your webhook receiver (http or https; localhost is fine).
  --secret <s>    The webhook secret.                                  Default: $WEBHOOK_SECRET
  --type <t>      document or inventory: a sample event of that type.
  --data <file>   A JSON file: fields merged into the sample's data, or a whole event
                  ({"event_id", "event_type", "data"}), sent byte for byte.
  Exits 0 when the receiver answers 2xx, 1 otherwise.

Options of ewaybill create (uses SERVICE_API_KEY and SERVICE_BASE_URL):
  --input <file>  JSONL, one document per line: {"docHashId": "...", "model": {...}}
  --output <file> JSONL results, appended as each document settles. Documents already done there
                  are skipped, so running the same command again resumes after a stop or a crash.
  --progress <m>  auto (a bar on a terminal, plain lines otherwise), bar, lines or none. Default: auto
  --preflight <m> The portal's well-known rules: off, warn (recorded on the result line) or strict.
                                                                       Default: warn
  --timeout <s>   Seconds each request may take (1-600). A request cut by a crash or Ctrl+C may still be
                  at the service that long, plus 5 s: the next run waits that out before it sends the
                  document again, so it never makes a second bill.            Default: 30
  Beside the output it keeps <output>.journal (each document recorded before its request leaves, then its
  outcome) and <output>.lock while it runs; keep them with the output.
  Exits 0 when every document has an e-way bill, 1 when some failed or were not sent (a local error such
  as a full disk, or the key refused), 130 when stopped (Ctrl+C).

General:
  -h, --help      Show this help.
  -v, --version   Show the SDK version.

Examples:
  npx invoicing-service-sdk mock-server --port 4010
  npx invoicing-service-sdk mock-server --port 0 --documents 50
  WEBHOOK_SECRET=... npx invoicing-service-sdk send-webhook --url http://localhost:3000/webhooks --type document
  npx invoicing-service-sdk ewaybill create --input bills.jsonl --output results.jsonl
`;
