import type { ServerResponse } from 'node:http';

/**
 * How many bytes an event-stream client may have waiting (sent by the dashboard, not yet taken by its socket)
 * before it counts as not reading. Such a client misses the events that follow and gets one fresh snapshot when it
 * has taken what was waiting, instead of a copy of every event (a page that stopped reading held them all).
 */
export const DASHBOARD_STREAM_MAX_BUFFER = 1024 * 1024;

/** How often a comment line keeps proxies and idle timers from closing a stream. */
export const DASHBOARD_STREAM_KEEP_ALIVE_MS = 15_000;

/**
 * How many keep-alive periods a client may stay behind before it is closed (the page's EventSource reconnects a
 * second later and starts again from a snapshot). What it holds until then is bounded by
 * {@link DASHBOARD_STREAM_MAX_BUFFER} and one snapshot.
 */
const MAX_BEHIND_PERIODS = 2;

/** The dashboard's event streams. */
export interface EventStreams {
  /** Starts a stream on `res` with the current snapshot. */
  open(res: ServerResponse): void;
  /** Sends one event to every client that keeps up; the snapshot sent from now on is made again. */
  broadcast(event: string, data: unknown): void;
  /** Ends every stream and stops the keep-alive timer. */
  close(): void;
}

interface Client {
  /** Whether it missed events, waiting for its socket to drain. */
  behind: boolean;
  /** The keep-alive period in which it fell behind. */
  since: number;
}

// JSON.stringify never writes a raw line break, so one `data:` line carries the whole message. A Buffer, because a
// socket queues a Buffer by reference and a string as a copy of its own: clients that wait share one message.
const message = (event: string, data: unknown) => Buffer.from(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
const KEEP_ALIVE = Buffer.from(': keep-alive\n\n');

/** The event streams of a dashboard whose current state is `snapshot()`. */
export function createEventStreams(snapshot: () => unknown): EventStreams {
  const clients = new Map<ServerResponse, Client>();
  // One message for every client that opens (or catches up) before the next change.
  let snapshotMessage: Buffer | undefined;
  let periods = 0;
  const currentSnapshot = () => {
    snapshotMessage ??= message('snapshot', snapshot());
    return snapshotMessage;
  };

  function send(res: ServerResponse, client: Client, text: Buffer): void {
    if (client.behind) return;
    if (res.writableLength > DASHBOARD_STREAM_MAX_BUFFER) {
      client.behind = true;
      client.since = periods;
      res.once('drain', () => {
        client.behind = false;
        res.write(currentSnapshot()); // everything it missed, in one message
      });
      return;
    }
    res.write(text);
  }

  const keepAlive = setInterval(() => {
    periods++;
    for (const [res, client] of clients) {
      if (client.behind && periods - client.since >= MAX_BEHIND_PERIODS) res.destroy();
      else send(res, client, KEEP_ALIVE);
    }
  }, DASHBOARD_STREAM_KEEP_ALIVE_MS);
  keepAlive.unref?.();

  return {
    open(res) {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      res.write('retry: 1000\n\n');
      res.write(currentSnapshot());
      clients.set(res, { behind: false, since: 0 });
      res.on('close', () => clients.delete(res));
    },
    broadcast(event, data) {
      snapshotMessage = undefined;
      const text = message(event, data);
      for (const [res, client] of clients) send(res, client, text);
    },
    close() {
      clearInterval(keepAlive);
      for (const res of clients.keys()) res.end();
      clients.clear();
    },
  };
}
