// The timeouts of attempts in flight (../client/exchange.ts): one runtime timer per timeout length, not one per attempt.
// Attempts of one length end in the order they started, so each length is a line, oldest first, whose timer is armed
// for its oldest entry. An attempt that ends in time leaves its line (two pointers) and the timer is left alone; the
// timer, when it fires, ends the entries that are due and is armed again for the next one. A timer per attempt
// (setTimeout, clearTimeout) cost CPU for every call on loopback, and a Timeout object in flight (issue 29, item 8).

/** A runtime timer: Node's and Bun's can be unreferenced; a browser's, Deno's and workerd's are numbers. */
type Timer = ReturnType<typeof setTimeout>;

/** An attempt's timeout in its line. */
export class Deadline {
  /** Due at this `performance.now()`. */
  readonly at: number;
  fire: (() => void) | undefined;
  previous: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  readonly #line: Line;

  constructor(line: Line, at: number, fire: () => void) {
    this.#line = line;
    this.at = at;
    this.fire = fire;
  }

  /** Leaves the line: the attempt ended in time (or its timeout fired already: nothing happens). */
  cancel(): void {
    if (this.fire === undefined) return;
    this.fire = undefined;
    this.#line.remove(this);
  }
}

/** Whether a timer can be unreferenced (Node, Bun): then a line keeps its timer when it empties, unreferenced. */
function canUnref(timer: Timer): timer is Timer & { ref(): unknown; unref(): unknown } {
  return typeof timer === 'object' && timer !== null && typeof (timer as { unref?: unknown }).unref === 'function';
}

class Line {
  /**
   * The runtime's `setTimeout` when the line was made: a test that installs fake timers (or removes them) gets a new
   * line, so no attempt waits for a timer of a clock that is no longer the runtime's.
   */
  readonly clock: typeof setTimeout = setTimeout;
  readonly #ms: number;
  #first: Deadline | undefined = undefined;
  #last: Deadline | undefined = undefined;
  #timer: Timer | undefined = undefined;
  /** When the timer fires (`performance.now()`); `undefined` with no timer. */
  #timerAt: number | undefined = undefined;
  /** Whether the timer is referenced: it keeps the process alive only while the line holds an attempt, as a timer per attempt did. */
  #referenced = false;

  constructor(ms: number) {
    this.#ms = ms;
  }

  add(fire: () => void): Deadline {
    const entry = new Deadline(this, performance.now() + this.#ms, fire);
    const last = this.#last;
    if (last) {
      last.next = entry;
      entry.previous = last;
    } else this.#first = entry;
    this.#last = entry;
    // A timer armed for an earlier entry fires first and arms itself for this one; one armed later (none is: entries
    // come in order) or none at all is armed now.
    if (this.#timer === undefined || (this.#timerAt as number) > entry.at) this.#arm(entry.at);
    else if (!this.#referenced && canUnref(this.#timer)) {
      this.#timer.ref();
      this.#referenced = true;
    }
    return entry;
  }

  remove(entry: Deadline): void {
    const { previous, next } = entry;
    if (previous) previous.next = next;
    else this.#first = next;
    if (next) next.previous = previous;
    else this.#last = previous;
    entry.previous = entry.next = undefined;
    if (this.#first === undefined) this.#idle();
  }

  /**
   * The line is empty: its timer no longer keeps the process alive, and stays for the next attempt of this length.
   * Where a timer cannot be unreferenced, or when more lengths are in use than are kept (a caller whose every call
   * has its own timeout), the timer goes and so does the line.
   */
  #idle(): void {
    const timer = this.#timer;
    if (timer !== undefined && canUnref(timer) && lines.size <= KEPT_LINES) {
      if (this.#referenced) timer.unref();
      this.#referenced = false;
      return;
    }
    if (timer !== undefined) clearTimeout(timer);
    this.#timer = this.#timerAt = undefined;
    this.#referenced = false;
    this.#drop();
  }

  /** Leaves the map of lines (a later attempt of this length makes a new line). */
  #drop(): void {
    if (lines.get(this.#ms) === this) lines.delete(this.#ms);
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fired(), Math.max(0, Math.ceil(at - performance.now())));
    this.#referenced = true;
  }

  #fired(): void {
    this.#timer = this.#timerAt = undefined;
    this.#referenced = false;
    const now = performance.now();
    // Each due entry leaves the line before it fires: what it fires (the attempt's end) may start another attempt.
    for (let entry = this.#first; entry !== undefined && entry.at <= now; entry = this.#first) {
      const fire = entry.fire as () => void;
      entry.fire = undefined;
      this.remove(entry);
      try {
        fire();
      } catch (error) {
        // Thrown out of its own turn, as a timer's callback would be; the other due entries still fire.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    if (this.#first !== undefined) {
      if (this.#timer === undefined) this.#arm(this.#first.at);
    } else if (this.#timer === undefined) this.#drop();
  }
}

/** The lines by timeout length. */
const lines = new Map<number, Line>();

/** How many lines there are (tests). */
export function deadlineLines(): number {
  return lines.size;
}
/** How many lines stay when empty (with an unreferenced timer) for the next attempt of their length. */
const KEPT_LINES = 8;

/**
 * Calls `fire` once `ms` milliseconds have passed, unless the returned deadline is cancelled first. While any deadline
 * is pending, the process stays alive, as with `setTimeout`.
 */
export function deadlineAfter(ms: number, fire: () => void): Deadline {
  let line = lines.get(ms);
  if (line === undefined || line.clock !== setTimeout) {
    line = new Line(ms);
    lines.set(ms, line);
  }
  return line.add(fire);
}
