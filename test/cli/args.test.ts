import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT, parseCommandLine } from '../../src/cli/args.js';

describe('reading the command line', () => {
  it('reads mock-server with its defaults', () => {
    expect(parseCommandLine(['mock-server'])).toEqual({
      kind: 'mock-server',
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      rateLimit: true,
      portalConnected: true,
      quiet: false,
    });
  });

  it('reads every mock-server option', () => {
    expect(
      parseCommandLine(['mock-server', '--port', '0', '--host', '::1', '--no-rate-limit', '--disconnected', '-q']),
    ).toEqual({ kind: 'mock-server', port: 0, host: '::1', rateLimit: false, portalConnected: false, quiet: true });
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
