// The lanes per key of a batch (createEwayBills, ./batch.ts): which items wait together, go one at a time, and are
// checked for repeats together.
import { budgetsOf } from './budget.js';

/** The items of the clients that share a rate-limit budget (one API key, or one `rateLimitKey`), whichever client names them. */
export interface Lane {
  /** The indexes of the items read for this lane and not started yet, in input order. */
  readonly queue: number[];
  /** The items read for this lane and not settled yet. */
  unsettled: number;
  /** The items of an array input that are this lane's and not read yet (counted up front, for the estimate). */
  unread: number;
  /** When the first and the last of the items the key answered settled, and how many it answered: its pace. */
  firstAt: number;
  lastAt: number;
  answered: number;
  /** Workers sending this lane's items now. */
  running: number;
  /** The key's refusal (`UNAUTHORIZED`, `FORBIDDEN`): the lane's other items settle with it, unsent. */
  refused: Error | undefined;
}

/**
 * The lanes per key: the clients whose budgets (their key, their rateLimitKey) connect, directly or through other
 * clients, share one lane, where their items wait and go one (or `concurrencyPerClient`) at a time; and per lane, the
 * documents seen, so a document listed twice for one key is refused. The groups are found before anything is read,
 * over every client of the batch (union-find), so they never depend on the order of the items: clients A (key K1,
 * rateLimitKey R), B (K2), C (K2, R) and D (K1) are one lane.
 */
export class BatchLanes {
  /** Each budget's group: one budget that stands for the connected group it is in. */
  readonly #groupOf = new Map<unknown, unknown>();
  readonly #byGroup = new Map<unknown, Lane>();
  readonly #seen = new Map<Lane, Map<string, number>>();

  constructor(clients: Iterable<object>) {
    const parent = new Map<unknown, unknown>();
    const find = (budget: unknown): unknown => {
      let root = budget;
      while (parent.get(root) !== root) root = parent.get(root);
      for (let at = budget; at !== root; ) {
        const up = parent.get(at);
        parent.set(at, root);
        at = up;
      }
      return root;
    };
    for (const client of clients) {
      const budgets = budgetsOf(client);
      for (const budget of budgets) if (!parent.has(budget)) parent.set(budget, budget);
      for (const budget of budgets.slice(1)) parent.set(find(budget), find(budgets[0]));
    }
    for (const budget of parent.keys()) this.#groupOf.set(budget, find(budget));
  }

  /** How many lanes have items. */
  get size(): number {
    return this.#byGroup.size;
  }

  all(): Iterable<Lane> {
    return this.#byGroup.values();
  }

  /** The lane of a client's group, made on first use; `undefined` is the lane of malformed items. */
  of(client: object | undefined): Lane {
    const budget = client === undefined ? undefined : budgetsOf(client)[0];
    const group = this.#groupOf.get(budget) ?? budget;
    let lane = this.#byGroup.get(group);
    if (!lane) {
      lane = { queue: [], unsettled: 0, unread: 0, firstAt: 0, lastAt: 0, answered: 0, running: 0, refused: undefined };
      this.#byGroup.set(group, lane);
    }
    return lane;
  }

  /** The index of the item that listed `docHashId` for this lane's key before, or `undefined` (and it is noted). */
  repeated(lane: Lane, docHashId: string, index: number): number | undefined {
    let seen = this.#seen.get(lane);
    if (!seen) {
      seen = new Map();
      this.#seen.set(lane, seen);
    }
    const first = seen.get(docHashId);
    if (first === undefined) seen.set(docHashId, index);
    return first;
  }

  /** Empties every lane's queue (an abort). */
  clear(): void {
    for (const lane of this.#byGroup.values()) lane.queue.length = 0;
  }
}
