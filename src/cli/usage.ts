/** The CLI's help text. */
export const USAGE = `Usage: invoicing-service-sdk <command> [options]

Commands:
  mock-server     Run the embedded mock of the invoicing service on a local port, until Ctrl+C.
                  Use it from any language: point your client at the printed base URL and key.

Options of mock-server:
  --port <n>      Port to listen on (0 picks a free one).            Default: 4010
  --documents <n> Documents to hold, doc_demo_0001 and on (1-1000). Default: 5
                  Each can get one e-way bill; a second is PORTAL_ERROR_604.
  --host <addr>   Interface to listen on (loopback keeps it local).  Default: 127.0.0.1
  --no-rate-limit Turn off the emulated limit of 1 request per second per key.
  --disconnected  Start with the company not connected to the e-way bill portal (PORTAL_ERROR_111).
  --quiet         Do not log each request.

General:
  -h, --help      Show this help.
  -v, --version   Show the SDK version.

Example:
  npx invoicing-service-sdk mock-server --port 4010
  npx invoicing-service-sdk mock-server --port 0 --documents 50
`;
