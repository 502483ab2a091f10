import { describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENTS, DEFAULT_PORT, MAX_DOCUMENTS, parseCommandLine } from '../../src/cli/args.js';

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
