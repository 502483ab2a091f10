// Compaction of the file journal: the live states are written to a temporary file beside it, synced, and renamed over
// it (then the directory is synced, so the rename itself survives a power loss). A crash at any point leaves either the
// old file or the new one, both whole; a temporary file left behind is never read.
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFully } from '../cli/run-files.js';
import { encodeLine, stateLine } from './file-format.js';
import type { DocumentState } from './records.js';

/** Lines are written in chunks of about this many bytes. */
const CHUNK = 1024 * 1024;

/**
 * Syncs a directory so a rename in it survives a power loss. Best effort: some platforms cannot open a directory
 * (Windows), and the rename is done either way, so a failure here only narrows what a power loss could keep.
 */
function syncDirectory(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // See above.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Replaces the file at `path` (open as `oldFd`, closed here once replaced) with one line per state. Returns the new
 * file's descriptor (opened for appending) and size. On failure the old file and descriptor are left as they were.
 */
export function rewriteJournal(
  path: string,
  oldFd: number,
  states: Iterable<DocumentState>,
): { fd: number; bytes: number } {
  const temporary = `${path}.${randomUUID()}.tmp`;
  const fd = openSync(temporary, 'wx');
  let bytes = 0;
  try {
    let chunk = encodeLine({ t: 'h', v: 1 });
    for (const state of states) {
      chunk += stateLine(state.record.baseUrl, state.record.docHashId, state);
      if (chunk.length >= CHUNK) {
        writeFully(fd, chunk);
        bytes += Buffer.byteLength(chunk);
        chunk = '';
      }
    }
    writeFully(fd, chunk);
    bytes += Buffer.byteLength(chunk);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  // From here on the new file is the journal: appends must go to it, so nothing below may fail the compaction.
  const next = openSync(path, 'a');
  closeSync(oldFd);
  syncDirectory(dirname(path));
  return { fd: next, bytes };
}
