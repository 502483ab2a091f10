/** A recorded call of {@link recordingFetch}. */
export interface RecordedCall {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: string;
  /** `performance.now()` when fetch was called. */
  readonly at: number;
}

type Answer = Response | ((call: RecordedCall) => Response | Promise<Response>);

/**
 * A fetch stand-in that records every call and answers with the queued answers in order,
 * then with the fallback (a success answer by default).
 */
export function recordingFetch(...answers: Answer[]) {
  const calls: RecordedCall[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const at = performance.now(); // before any await: the moment fetch was called
    const request = new Request(input, init);
    const call: RecordedCall = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      at,
    };
    calls.push(call);
    const answer = answers.shift() ?? Response.json({ success: true, message: 'E-way bill generated' });
    return typeof answer === 'function' ? answer(call) : answer;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

/** The gaps in milliseconds between consecutive calls. */
export function gaps(calls: readonly RecordedCall[]): number[] {
  return calls.slice(1).map((call, index) => call.at - (calls[index] as RecordedCall).at);
}
