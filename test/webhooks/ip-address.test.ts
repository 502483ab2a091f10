import { describe, expect, it } from 'vitest';
import { classifyIPv6, parseIPv4, parseIPv6 } from '../../src/webhooks/ip-address.js';

describe('IP address parsing', () => {
  it.each([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['[::1]', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['1:2:3:4:5:6:7:8', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['1::8', [1, 0, 0, 0, 0, 0, 0, 8]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['::127.0.0.1', [0, 0, 0, 0, 0, 0, 0x7f00, 1]],
    ['1:2:3:4:5:6:10.0.0.1', [1, 2, 3, 4, 5, 6, 0x0a00, 1]],
    ['FE80::ABCD', [0xfe80, 0, 0, 0, 0, 0, 0, 0xabcd]],
  ])('reads %s', (text, groups) => {
    expect(parseIPv6(text)).toEqual(groups);
  });

  it.each([
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':1:2:3:4:5:6:7',
    '12345::',
    'g::',
    '::1.2.3',
    '127.0.0.1',
    '1:2:3:4:5:6:7:8::',
  ])('refuses %s as IPv6', (text) => {
    expect(parseIPv6(text)).toBeUndefined();
  });

  it.each(['1.2.3', '256.0.0.1', '1.2.3.4.5', '0x7f.0.0.1', ''])('refuses %j as dotted-decimal IPv4', (text) => {
    expect(parseIPv4(text)).toBeUndefined();
  });

  it('treats IPv6 outside 2000::/3 as reserved and inside it as public', () => {
    expect(classifyIPv6(parseIPv6('4000::1') ?? []).kind).toBe('reserved');
    expect(classifyIPv6(parseIPv6('2a00:1450:4001::200e') ?? []).kind).toBe('public');
  });
});
