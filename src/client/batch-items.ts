// Reading a batch's items (createEwayBills, ./batch.ts): the clients by name, and the items, checked, one at a time.
import type { EwayBillBatchClients, EwayBillBatchItem } from './batch-types.js';
import type { EwayBillCreator } from './once.js';

/** A client by the name an item gives (or what is wrong with the name). */
export type ClientLookup = (name: string | undefined) => EwayBillCreator | string;

const isCreator = (value: unknown): value is EwayBillCreator =>
  typeof (value as Partial<EwayBillCreator> | null)?.createEwayBill === 'function';

/**
 * The clients of a batch, checked: how items find theirs, and all of them (for the lanes).
 * @throws {TypeError} when `clients` is not a client, or a non-empty record or Map of them.
 */
export function clientLookup(clients: EwayBillBatchClients): {
  lookup: ClientLookup;
  all: readonly EwayBillCreator[];
} {
  if (isCreator(clients)) {
    const lookup: ClientLookup = (name) =>
      name === undefined ? clients : `client is '${name}', but createEwayBills was given one client`;
    return { lookup, all: [clients] };
  }
  const entries =
    clients instanceof Map
      ? [...clients]
      : typeof clients === 'object' && clients !== null
        ? Object.entries(clients)
        : [];
  if (entries.length === 0) {
    throw new TypeError(
      'createEwayBills: clients must be a ServiceClient, or a non-empty record or Map of them by name',
    );
  }
  const byName = new Map<string, EwayBillCreator>();
  for (const [name, client] of entries) {
    if (!isCreator(client)) throw new TypeError(`createEwayBills: clients['${name}'] is not a ServiceClient`);
    byName.set(String(name), client);
  }
  const names = [...byName.keys()].map((n) => `'${n}'`).join(', ');
  const lookup: ClientLookup = (name) =>
    name === undefined
      ? `client is missing; with several clients each item names one of ${names}`
      : (byName.get(name) ?? `client '${name}' is not one of ${names}`);
  return { lookup, all: [...byName.values()] };
}

/** One item read: its index in the input, and what is wrong with it (as a suffix of `items[i]`), if anything. */
export interface ReadItem {
  readonly index: number;
  readonly item: EwayBillBatchItem;
  readonly problem: string | undefined;
}

/**
 * Reading the items: an array is checked whole before anything is sent; another iterable is read as it goes, at most
 * `readAhead` ahead of what started. Each item read is handed over checked (`problem`) with its index; a failure of
 * the iterable itself ends the reading and is kept (`error`).
 */
export class BatchItems {
  readonly array: readonly EwayBillBatchItem[] | undefined;
  read = 0;
  exhausted = false;
  error: unknown;
  readonly #iterator: Iterator<EwayBillBatchItem>;

  /** @throws {TypeError} when `items` is not iterable, or an array's item is malformed (naming it). */
  constructor(
    items: Iterable<EwayBillBatchItem>,
    readonly lookup: ClientLookup,
  ) {
    if (typeof (items as Partial<Iterable<unknown>> | null)?.[Symbol.iterator] !== 'function') {
      throw new TypeError('createEwayBills: items must be an array (or iterable) of { docHashId, model }');
    }
    this.array = Array.isArray(items) ? (items as readonly EwayBillBatchItem[]) : undefined;
    this.array?.forEach((item, index) => {
      const problem = itemProblem(item, lookup);
      if (problem) throw new TypeError(`createEwayBills: items[${index}]${problem}`);
    });
    this.#iterator = items[Symbol.iterator]();
  }

  /** How many items there are: an array's length, or those read so far. */
  get total(): number {
    return this.array ? this.array.length : this.read;
  }

  /** The items known and not read yet: an array's rest (another iterable's are not known). */
  get unread(): number {
    return this.array ? this.array.length - this.read : 0;
  }

  /** The next item, checked, or `undefined` at the end (or when the iterable failed, kept in `error`). */
  next(): ReadItem | undefined {
    let next: IteratorResult<EwayBillBatchItem>;
    try {
      next = this.#iterator.next();
    } catch (error) {
      this.error = error;
      this.exhausted = true;
      return undefined;
    }
    if (next.done) {
      this.exhausted = true;
      return undefined;
    }
    return { index: this.read++, item: next.value, problem: itemProblem(next.value, this.lookup) };
  }
}

/** What is wrong with a batch item (as a suffix of `items[i]`), or `undefined`. */
function itemProblem(item: unknown, lookup: ClientLookup): string | undefined {
  if (typeof item !== 'object' || item === null) return ' is not an object';
  const { docHashId, client } = item as Partial<EwayBillBatchItem>;
  if (typeof docHashId !== 'string') return `.docHashId must be a string; got ${typeof docHashId}`;
  const found = lookup(client);
  return typeof found === 'string' ? `.${found}` : undefined;
}
