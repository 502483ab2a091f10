/** The progress of a run, as the batch reports it. */
export interface RunProgress {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  /** Documents never sent (a stop, a refused key, a local error): not failures, the next run sends them. */
  readonly notSent?: number | undefined;
  /** The run was asked to stop: the documents left settle at once, so no ETA is shown. */
  readonly stopping?: boolean | undefined;
  readonly etaMs: number;
}

/** Where progress is drawn: stderr in the CLI. */
export interface ProgressStream {
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
  write(text: string): unknown;
}

/** Draws a run's progress: a bar redrawn in place on a terminal, or one plain line per document elsewhere. */
export interface ProgressView {
  /** A document settled (`line` says how), then the counts. */
  update(progress: RunProgress, line?: string): void;
  /** A message that must not be overdrawn by the bar. */
  note(text: string): void;
  /** Leaves the bar's last state on screen. */
  end(): void;
}

/** `1m 05s`, `42s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m ${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

function showsEta(progress: RunProgress): boolean {
  return progress.done < progress.total && progress.stopping !== true;
}

/** One line of the bar: `[#######.......] 12/50  1 failed  3 not sent  ETA 38s`. */
export function barLine(progress: RunProgress, width = 24): string {
  const ratio = progress.total === 0 ? 1 : progress.done / progress.total;
  const filled = Math.round(ratio * width);
  const failed = progress.failed > 0 ? `  ${progress.failed} failed` : '';
  const notSent = (progress.notSent ?? 0) > 0 ? `  ${progress.notSent} not sent` : '';
  const eta = showsEta(progress) ? `  ETA ${formatDuration(progress.etaMs)}` : '';
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${progress.done}/${progress.total}${failed}${notSent}${eta}`;
}

/**
 * The view for `mode`: `'auto'` draws a bar when the stream is a terminal and plain lines otherwise (logs, CI, pipes).
 */
export function createProgressView(mode: 'auto' | 'bar' | 'lines' | 'none', stream: ProgressStream): ProgressView {
  const kind = mode === 'auto' ? (stream.isTTY ? 'bar' : 'lines') : mode;
  if (kind === 'none') return { update() {}, note: (text) => stream.write(`${text}\n`), end() {} };
  if (kind === 'lines') {
    return {
      update(progress, line) {
        const eta = showsEta(progress) ? ` (ETA ${formatDuration(progress.etaMs)})` : '';
        if (line !== undefined) stream.write(`${progress.done}/${progress.total} ${line}${eta}\n`);
      },
      note: (text) => stream.write(`${text}\n`),
      end() {},
    };
  }
  let last = '';
  const clear = '\r\x1b[2K';
  return {
    update(progress, line) {
      // A failure stays on screen above the bar; successes only move the bar.
      if (line !== undefined && /FAILED/.test(line)) stream.write(`${clear}${line}\n`);
      last = barLine(progress);
      stream.write(`${clear}${last}`);
    },
    note(text) {
      stream.write(`${clear}${text}\n${last}`);
    },
    end() {
      if (last !== '') stream.write('\n');
    },
  };
}
