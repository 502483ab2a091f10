/**
 * The first `max` characters of `text`, as a string of its own. A plain `slice` may keep the whole of `text` alive
 * (V8 makes a slice of a long string a view of it), which would defeat a cap meant to bound memory.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return new TextDecoder().decode(new TextEncoder().encode(text.slice(0, max)));
}
