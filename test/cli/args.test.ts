import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CLI_TIMEOUT_S,
  DEFAULT_DOCUMENTS,
  DEFAULT_PORT,
  MAX_CLI_TIMEOUT_S,
  MAX_DOCUMENTS,
  parseCommandLine,
} from '../../src/cli/args.js';

describe('reading the command line', () => {
  it('reads mock-server with its defaults', () => {
    expect(parseCommandLine(['mock-server'])).toEqual({
      kind: 'mock-server',
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      rateLimit: true,
      portalConnected: true,
      quiet: false,
      documents: DEFAULT_DOCUMENTS,
      allowedHosts: [],
    });
    expect(DEFAULT_DOCUMENTS).toBe(5);
  });

  it('reads every mock-server option', () => {
    expect(
      parseCommandLine([
        'mock-server',
        '--port',
        '0',
        '--host',
        '::1',
        '--no-rate-limit',
        '--disconnected',
        '-q',
        '--documents',
        '12',
        '--allowed-host',
        'Mock',
        '--allowed-host',
        '[fd00::20]',
      ]),
    ).toEqual({
      kind: 'mock-server',
      port: 0,
      host: '::1',
      rateLimit: false,
      portalConnected: false,
      quiet: true,
      documents: 12,
      allowedHosts: ['mock', 'fd00::20'],
    });
  });

  it.each([['http://mock'], ['mock:4010'], ['mock/x'], ['']])(
    'refuses --allowed-host %j, saying what it takes',
    (value) => {
      expect(parseCommandLine(['mock-server', '--allowed-host', value])).toEqual({
        kind: 'usage-error',
        message: expect.stringMatching(
          /^--allowed-host must be a host name or an IP address, without scheme, port or path/,
        ),
      });
    },
  );

  it.each([['1'], [String(MAX_DOCUMENTS)], ['--documents=7']])('accepts --documents %s', (value) => {
    const args = value.startsWith('--') ? ['mock-server', value] : ['mock-server', '--documents', value];
    const command = parseCommandLine(args);
    expect(command.kind).toBe('mock-server');
    expect(command.kind === 'mock-server' && command.documents).toBe(Number(value.replace('--documents=', '')));
  });

  it.each([['0'], [String(MAX_DOCUMENTS + 1)], ['-1'], ['1.5'], ['abc'], [''], ['5x']])(
    'refuses --documents %j as a usage error saying the allowed range',
    (value) => {
      const command = parseCommandLine(['mock-server', `--documents=${value}`]);
      expect(command).toEqual({
        kind: 'usage-error',
        message: `--documents must be an integer from 1 to ${MAX_DOCUMENTS}; got '${value}'.`,
      });
    },
  );

  it('refuses --documents without a value as a usage error', () => {
    expect(parseCommandLine(['mock-server', '--documents']).kind).toBe('usage-error');
  });

  it.each([['--help'], ['-h'], ['help'], ['mock-server', '--help']])('reads %s as help', (...args) => {
    expect(parseCommandLine(args).kind).toBe('help');
  });

  it.each([[['mock-server', '--port', '70000']], [['mock-server', '--port', '-1']], [['mock-server', 'extra']]])(
    'refuses %j as a usage error',
    (args) => {
      expect(parseCommandLine(args).kind).toBe('usage-error');
    },
  );
});

describe('ewaybill create --timeout', () => {
  const create = (...extra: string[]) =>
    parseCommandLine(['ewaybill', 'create', '--input', 'in.jsonl', '--output', 'out.jsonl', ...extra]);

  it('is 30 seconds by default, as the client', () => {
    expect(create()).toMatchObject({ kind: 'ewaybill-create', timeoutMs: DEFAULT_CLI_TIMEOUT_S * 1000 });
    expect(DEFAULT_CLI_TIMEOUT_S).toBe(30);
  });

  it.each([
    ['1', 1000],
    ['2.5', 2500],
    [String(MAX_CLI_TIMEOUT_S), MAX_CLI_TIMEOUT_S * 1000],
  ])('reads --timeout %s as %i ms', (value, ms) => {
    expect(create('--timeout', value)).toMatchObject({ kind: 'ewaybill-create', timeoutMs: ms });
  });

  it.each([['0'], ['0.5'], [String(MAX_CLI_TIMEOUT_S + 1)], ['-1'], ['abc'], [''], ['5s'], ['1e3'], ['Infinity']])(
    'refuses --timeout %j as a usage error saying the allowed range',
    (value) => {
      expect(create(`--timeout=${value}`)).toEqual({
        kind: 'usage-error',
        message: `--timeout must be a number of seconds from 1 to ${MAX_CLI_TIMEOUT_S}; got '${value}'.`,
      });
    },
  );

  it('belongs to ewaybill create only', () => {
    expect(parseCommandLine(['mock-server', '--timeout', '5'])).toEqual({
      kind: 'usage-error',
      message: "The option '--timeout' does not apply to mock-server.",
    });
  });
});
