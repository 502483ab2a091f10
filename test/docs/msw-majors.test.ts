// Issue 28.11: the testing samples are right on both msw majors of the peer range (^2 || ^3). msw 3 renamed the
// option that fails a test on a request no handler answers (onUnhandledRequest became onUnhandledFrame), and each
// major ignores the other's name at run time. docs/testing.md and examples/testing/ship-order.test.ts passed msw 3's
// alone: a type error on msw 2 (TS2353), and, cast away, no check at all there. The samples now pass both names.
// Checked here: the samples that use msw type-check against msw 2 and msw 3, and the options they pass make an
// unhandled request fail on both (it never reaches a real loopback server), where without them it would pass.
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from './markdown.js';
import { TYPE_CHECK_TIMEOUT_MS, typeErrors, writeSamples } from './samples.js';

const example = 'examples/testing/ship-order.test.ts';
const usesMsw = (code: string) => /from 'msw(\/node)?'/.test(code);

describe('the msw samples on msw 2 and msw 3', { timeout: TYPE_CHECK_TIMEOUT_MS }, () => {
  const blocks = ['README.md', 'docs/testing.md'].flatMap((file) =>
    codeBlocks(file).filter((block) => block.lang === 'ts' && usesMsw(block.code)),
  );
  const { dir, files } = writeSamples('msw-samples', blocks);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the README, docs/testing.md and the example use msw', () => {
    expect(blocks.map((block) => block.file)).toEqual(expect.arrayContaining(['README.md', 'docs/testing.md']));
    expect(usesMsw(readFileSync(example, 'utf8'))).toBe(true);
  });

  for (const msw of [2, 3]) {
    it(`type-check against msw ${msw}`, () => {
      expect(typeErrors(dir, [...files, `${process.cwd()}/${example}`], { msw })).toEqual([]);
    });
  }

  describe('the options each sample passes to server.listen fail an unhandled request on both majors', () => {
    // The object a sample passes: `server.listen({ … })`, or `server.listen(strict…)` after `const strict = { … }`.
    const optionsOf = (code: string) =>
      /server\.listen\((\{[^}]*\})\)/.exec(code)?.[1] ?? /const strict = (\{[^}]*\}) as const;/.exec(code)?.[1];
    const sources: [string, string][] = [
      ...blocks.map((block): [string, string] => [`${block.file}:${block.line}`, block.code]),
      [example, readFileSync(example, 'utf8')],
    ];
    let server: Server;
    let arrived = 0;
    let url: string;
    beforeAll(async () => {
      server = createServer((request, response) => {
        arrived += 1;
        request.resume();
        response.end('real server');
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/unhandled`;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    /** What a fetch of a URL no handler answers does under msw `major` listening with `options`. */
    async function unhandled(major: number, options: object): Promise<string> {
      // One handler, for another origin, as in a test file.
      const mocked =
        major === 2
          ? (await import('msw2/node')).setupServer(
              (await import('msw2')).http.get('http://handled.test/', () => new Response('mocked')),
            )
          : (await import('msw/node')).setupServer(
              (await import('msw')).http.get('http://handled.test/', () => new Response('mocked')),
            );
      const [error, warn] = [console.error, console.warn];
      [console.error, console.warn] = [() => {}, () => {}];
      mocked.listen(options);
      const before = arrived;
      try {
        const text = await fetch(url).then(
          (response) => response.text(),
          () => 'rejected',
        );
        return arrived === before ? text : `reached the server (${text})`;
      } finally {
        mocked.close();
        [console.error, console.warn] = [error, warn];
      }
    }

    it('every sample passes options to server.listen', () => {
      expect(sources.filter(([, code]) => optionsOf(code) === undefined).map(([where]) => where)).toEqual([]);
    });

    // msw 3 first: once msw 2 has patched and restored fetch in a process, msw 3 no longer intercepts it there (two
    // copies of msw in one process, which a partner does not have).
    for (const major of [3, 2]) {
      it(`msw ${major}: an unhandled request is refused, not sent (without options it would be)`, async () => {
        expect(await unhandled(major, {})).toBe('reached the server (real server)');
        const outcomes = [];
        for (const [where, code] of sources) {
          const options = new Function(`return (${optionsOf(code)});`)() as object;
          outcomes.push(`${where}: ${await unhandled(major, options)}`);
        }
        expect(outcomes).toEqual(sources.map(([where]) => `${where}: rejected`));
      });
    }
  });
});
