// The rate-limit budget a client spends: what makes two clients "the same key" for the batch's duplicate check.

const budgets = new WeakMap<object, unknown>();

/** Records the identity of a client's budget (its `rateLimitKey`, else its API key or key function). Internal. */
export function registerBudget(client: object, identity: unknown): void {
  budgets.set(client, identity);
}

/**
 * The identity of the budget `client` spends, for use as a Map key only (never printed: it can be the API key).
 * Two ServiceClients of one key (or one `rateLimitKey`) give the same value; anything else is its own budget.
 */
export function budgetOf(client: object): unknown {
  return budgets.has(client) ? budgets.get(client) : client;
}
