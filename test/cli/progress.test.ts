import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEarlierResults, readInputLine } from '../../src/cli/jsonl.js';
import { barLine, createProgressView, formatDuration } from '../../src/cli/progress.js';

function stream(isTTY: boolean) {
  let text = '';
  return { isTTY, write: (chunk: string) => (text += chunk), text: () => text };
}

describe('the progress view', () => {
  it('draws a bar in place on a terminal and plain lines elsewhere in auto mode', () => {
    const tty = stream(true);
    const view = createProgressView('auto', tty);
    view.update({ done: 1, total: 4, failed: 0, etaMs: 3000 }, 'doc_1 generated');
    view.update({ done: 2, total: 4, failed: 1, etaMs: 2000 }, 'doc_2 FAILED PORTAL_ERROR: refused');
    view.end();
    expect(tty.text()).toBe(
      '\r\x1b[2K[######..................] 1/4  ETA 3s' +
        '\r\x1b[2Kdoc_2 FAILED PORTAL_ERROR: refused\n\r\x1b[2K[############............] 2/4  1 failed  ETA 2s\n',
    );
    const pipe = stream(false);
    const lines = createProgressView('auto', pipe);
    lines.update({ done: 0, total: 4, failed: 0, etaMs: 4000 });
    lines.update({ done: 1, total: 4, failed: 0, etaMs: 3000 }, 'doc_1 generated');
    lines.update({ done: 4, total: 4, failed: 0, etaMs: 0 }, 'doc_4 generated');
    expect(pipe.text()).toBe('1/4 doc_1 generated (ETA 3s)\n4/4 doc_4 generated\n');
  });

  it('formats durations and a finished bar', () => {
    expect([formatDuration(0), formatDuration(1), formatDuration(59_001), formatDuration(500_000)]).toEqual([
      '0s',
      '1s',
      '1m 00s',
      '8m 20s',
    ]);
    expect(barLine({ done: 0, total: 0, failed: 0, etaMs: 0 }, 4)).toBe('[####] 0/0');
  });

  it('counts documents never sent apart from failures, and shows no ETA once stopping', () => {
    expect(barLine({ done: 25, total: 25, failed: 0, notSent: 13, etaMs: 0 }, 4)).toBe('[####] 25/25  13 not sent');
    expect(barLine({ done: 12, total: 25, failed: 1, notSent: 2, stopping: true, etaMs: 9000 }, 4)).toBe(
      '[##..] 12/25  1 failed  2 not sent',
    );
  });
});

describe('reading JSONL', () => {
  const dir = mkdtempSync(join(process.cwd(), '.tmp', 'jsonl-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['[1,2]', 'INVALID_LINE', /must be a JSON object/],
    ['{"docHashId": ""}', 'INVALID_LINE', /has no docHashId/],
    ['{"docHashId": "d", "model": []}', 'INVALID_LINE', /has no model/],
    ['not json', 'INVALID_JSON', /line 3 is not valid JSON/],
  ])('turns %s into a %s line, never a throw', (text, code, message) => {
    const read = readInputLine(text, 3);
    expect(read).toMatchObject({ line: 3, code });
    expect('error' in read && read.error).toMatch(message);
  });

  it('reads the done and uncertain documents of earlier runs, and a file cut mid-line', async () => {
    const file = join(dir, 'results.jsonl');
    writeFileSync(
      file,
      [
        '{"docHashId":"a","ok":true}',
        '{"docHashId":"b","ok":false,"mayHaveSucceeded":true}',
        '{"docHashId":"b","ok":false,"code":"DUPLICATE"}',
        '{"docHashId":"e","ok":false,"mayHaveSucceeded":true}',
        '{"docHashId":"e","ok":false,"mayHaveSucceeded":false}',
        '{"docHashId":"c","ok":false,"mayHaveSucceeded":true}',
        '{"docHashId":"c","ok":true}',
        'garbage',
        '{"docHashId":"d","ok":fal',
      ].join('\n'),
    );
    const earlier = await readEarlierResults(file);
    expect([...earlier.done]).toEqual(['a', 'c']);
    expect([...earlier.uncertain]).toEqual(['b']);
    expect(earlier.endsMidLine).toBe(true);
    expect(await readEarlierResults(join(dir, 'none.jsonl'))).toEqual({
      done: new Set(),
      uncertain: new Set(),
      endsMidLine: false,
      where: new Set(),
    });
  });
});
