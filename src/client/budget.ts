// The rate-limit budgets a client spends: what makes two clients "the same key" for the batch's lanes and its
// duplicate check.

const budgets = new WeakMap<object, readonly unknown[]>();

/**
 * Records the identities of a client's budgets: its API key (or key function), and its `rateLimitKey` when named.
 * Internal.
 */
export function registerBudget(client: object, identities: readonly unknown[]): void {
  budgets.set(client, identities);
}

/**
 * The identities of the budgets `client` spends, for use as Map keys only (never printed: one can be the API key).
 * Two ServiceClients that share one (the same key, or the same `rateLimitKey`) share a budget; anything else is its
 * own budget.
 */
export function budgetsOf(client: object): readonly unknown[] {
  return budgets.get(client) ?? [client];
}
