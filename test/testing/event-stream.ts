// Reads a server-sent-event stream over fetch, for the dashboard tests: every wait is bounded.

/** An open event stream: the text so far, and a bounded wait for text matching a pattern. */
export async function openEvents(url: string) {
  const controller = new AbortController();
  // A hang guard on opening the stream only: an `AbortSignal.timeout` on the fetch would also end the open stream that
  // many seconds later, and a loaded machine's later tests then read an aborted stream (a clean-clone run failed so).
  const opening = setTimeout(
    () => controller.abort(new Error(`the event stream ${url} did not open within 60 s`)),
    60_000,
  );
  const response = await fetch(url, { signal: controller.signal }).finally(() => clearTimeout(opening));
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    response,
    get text() {
      return text;
    },
    // The timeout only guards against a hang (generous: the machine may be loaded), it bounds no speed.
    async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (let match = pattern.exec(text); match === null; match = pattern.exec(text)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${pattern} in the event stream within ${timeoutMs} ms:\n${text}`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const chunk = await Promise.race([
          reader.read(),
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), left);
          }),
        ]);
        clearTimeout(timer);
        if (chunk?.done) throw new Error(`the event stream ended before ${pattern}:\n${text}`);
        if (chunk?.value) text += decoder.decode(chunk.value, { stream: true });
      }
      return pattern.exec(text) as RegExpExecArray;
    },
    close() {
      controller.abort();
    },
  };
}
