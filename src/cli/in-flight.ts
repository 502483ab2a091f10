import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * A small file next to the results (`results.jsonl.inflight`) naming the documents handed to the client and not yet
 * settled. A run killed outright (`kill -9`, power loss) writes no result line for them; the next run reads this file
 * and treats their 604 "already generated" as done, as it does for a request cut by Ctrl+C.
 */
export function createInFlightJournal(output: string) {
  const path = `${output}.inflight`;
  const ids = new Set<string>();
  const save = () => {
    if (ids.size === 0) return rmSync(path, { force: true });
    // Written aside and renamed, so a crash mid-write never leaves half a list.
    writeFileSync(`${path}.tmp`, JSON.stringify([...ids]));
    renameSync(`${path}.tmp`, path);
  };
  return {
    /**
     * The documents a killed earlier run left in flight (none when there is no file or it cannot be read). They stay
     * in the journal until this run settles them, so a run stopped before reaching them passes them on.
     */
    loadEarlier(): string[] {
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        return [];
      }
      const earlier = Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
      for (const id of earlier) ids.add(id);
      return earlier;
    },
    add(id: string): void {
      if (ids.has(id)) return;
      ids.add(id);
      save();
    },
    delete(id: string): void {
      if (ids.delete(id)) save();
    },
  };
}
