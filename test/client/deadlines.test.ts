// The attempts' timeouts share one runtime timer per length (src/internal/deadlines.ts): each fires once its time has
// passed, never when cancelled, in the order the attempts started; a line's timer keeps the process alive only while
// an attempt of that length is pending; a test's fake clock gets lines of its own; and a caller whose every call has
// its own timeout does not gather lines.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { deadlineAfter, deadlineLines } from '../../src/internal/deadlines.js';
import { buildEntry, runCli } from '../cli/cli-process.js';
import { useFakeClock } from '../helpers/fake-clock.js';

describe('deadlines on a fake clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires each deadline once its time has passed, in the order they were made, and never a cancelled one', () => {
    useFakeClock();
    const fired: string[] = [];
    deadlineAfter(100, () => fired.push('a'));
    vi.advanceTimersByTime(30);
    const b = deadlineAfter(100, () => fired.push('b'));
    vi.advanceTimersByTime(30);
    deadlineAfter(100, () => fired.push('c'));
    b.cancel();
    vi.advanceTimersByTime(39);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(59);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a', 'c']);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual(['a', 'c']);
  });

  it('fires deadlines of different lengths each at its own time', () => {
    useFakeClock();
    const fired: number[] = [];
    deadlineAfter(300, () => fired.push(300));
    deadlineAfter(50, () => fired.push(50));
    deadlineAfter(200, () => fired.push(200));
    vi.advanceTimersByTime(49);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([50]);
    vi.advanceTimersByTime(150);
    expect(fired).toEqual([50, 200]);
    vi.advanceTimersByTime(100);
    expect(fired).toEqual([50, 200, 300]);
  });

  it('arms the line again for a deadline made after the earlier ones ended in time', () => {
    useFakeClock();
    const fired: string[] = [];
    deadlineAfter(100, () => fired.push('early')).cancel();
    vi.advanceTimersByTime(60);
    deadlineAfter(100, () => fired.push('late'));
    // The line's timer, armed for the cancelled deadline, fires at 100 and finds the new one not yet due.
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['late']);
  });

  it('a cancel after the deadline fired does nothing, and a throwing callback does not stop the others', async () => {
    useFakeClock();
    const fired: string[] = [];
    const thrown: unknown[] = [];
    const first = deadlineAfter(10, () => {
      fired.push('first');
      throw new Error('callback failed');
    });
    deadlineAfter(10, () => fired.push('second'));
    const onError = (error: unknown) => thrown.push(error);
    process.on('uncaughtException', onError);
    try {
      vi.advanceTimersByTime(10);
      expect(fired).toEqual(['first', 'second']);
      first.cancel();
      // The callback's error is thrown out of its own turn, as a timer callback's would be.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(thrown).toHaveLength(1);
    expect((thrown[0] as Error).message).toBe('callback failed');
  });

  it('gives each clock its own lines: after a fake clock is removed, a deadline fires on the real one', async () => {
    // A line made on a fake clock, left with its timer (a fake one, which will never fire once the clock is gone).
    useFakeClock();
    deadlineAfter(40, () => {}).cancel();
    vi.useRealTimers();
    let fired = false;
    deadlineAfter(40, () => {
      fired = true;
    });
    // Bounded: polls real time for up to 10 s (it fires after 40 ms on an idle machine).
    for (let waited = 0; !fired && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(fired).toBe(true);
  });

  it('keeps few lines when every call has its own timeout', () => {
    useFakeClock();
    for (let ms = 1000; ms < 1100; ms++) deadlineAfter(ms, () => {}).cancel();
    expect(deadlineLines()).toBeLessThanOrEqual(9);
    // Pending ones each have their line until they end.
    const pending = Array.from({ length: 20 }, (_, i) => deadlineAfter(2000 + i, () => {}));
    expect(deadlineLines()).toBeGreaterThanOrEqual(20);
    for (const deadline of pending) deadline.cancel();
    expect(deadlineLines()).toBeLessThanOrEqual(9);
  });
});

describe('deadlines and the life of the process', () => {
  let built: Awaited<ReturnType<typeof buildEntry>>;
  beforeAll(async () => {
    built = await buildEntry('deadlines', 'src/internal/deadlines.ts');
  });
  afterAll(() => built?.remove());

  const run = async (body: string) => {
    const file = join(built.dir, `child-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, `import { deadlineAfter } from './deadlines.mjs';\n${body}\n`);
    const child = runCli(file, []);
    // Killed after 15 s: a process held by a line's 60 s timer is not given the time to exit on its own.
    const code = await child.exit(15_000);
    return { code, out: child.stdout() };
  };

  it('a pending deadline keeps the process alive until it fires', async () => {
    const { code, out } = await run(`deadlineAfter(300, () => console.log('fired'));`);
    expect(code).toBe(0);
    expect(out.trim()).toBe('fired');
  });

  it('a process whose deadlines were all cancelled exits at once, not when the line timer would fire', async () => {
    // The line's timer would fire in 60 s: a process that waited for it is killed first (code 'SIGKILL').
    const { code, out } = await run(
      `for (let i = 0; i < 3; i++) deadlineAfter(60_000, () => console.log('fired')).cancel();\nconsole.log('done');`,
    );
    expect(code).toBe(0);
    expect(out.trim()).toBe('done');
  });
});
