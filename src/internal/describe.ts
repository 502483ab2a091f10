/** The kind of a value, for messages that must not show the value itself (a key, a secret). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * A short rendering of a value for messages: strings quoted, everything capped at `max` characters. Never throws,
 * whatever the value (a BigInt, a cycle, a getter or `toJSON` that throws, a lone surrogate).
 */
export function describeValue(value: unknown, max = 60): string {
  let text: string;
  try {
    if (typeof value === 'string') text = `'${value}'`;
    else if (typeof value === 'bigint') text = `${value}n`;
    // JSON would write NaN and ±Infinity as null.
    else if (typeof value === 'number') text = String(value);
    else if (typeof value === 'symbol' || typeof value === 'function' || value === undefined) text = String(value);
    else text = JSON.stringify(value) ?? String(value);
  } catch {
    text = describeType(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
