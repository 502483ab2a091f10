/** What kind of address an IP is, for the webhook URL rules: only `public` may receive deliveries. */
export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'shared'
  | 'multicast'
  | 'reserved';

/** The kind of an address and the range that made it so (for messages). */
export interface AddressClass {
  readonly kind: AddressKind;
  readonly range: string;
}

type Range4 = readonly [base: string, prefix: number, kind: AddressKind, label: string];

// IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates), the ranges not globally reachable.
const IPV4_RANGES: readonly Range4[] = [
  ['0.0.0.0', 8, 'unspecified', '0.0.0.0/8, "this network"'],
  ['10.0.0.0', 8, 'private', '10.0.0.0/8'],
  ['100.64.0.0', 10, 'shared', '100.64.0.0/10, carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback', '127.0.0.0/8'],
  ['169.254.0.0', 16, 'link_local', '169.254.0.0/16'],
  ['172.16.0.0', 12, 'private', '172.16.0.0/12'],
  ['192.0.0.0', 24, 'reserved', '192.0.0.0/24, IETF protocol assignments'],
  ['192.0.2.0', 24, 'reserved', '192.0.2.0/24, documentation'],
  ['192.88.99.0', 24, 'reserved', '192.88.99.0/24, 6to4 relay'],
  ['192.168.0.0', 16, 'private', '192.168.0.0/16'],
  ['198.18.0.0', 15, 'reserved', '198.18.0.0/15, benchmarking'],
  ['198.51.100.0', 24, 'reserved', '198.51.100.0/24, documentation'],
  ['203.0.113.0', 24, 'reserved', '203.0.113.0/24, documentation'],
  ['224.0.0.0', 4, 'multicast', '224.0.0.0/4'],
  ['240.0.0.0', 4, 'reserved', '240.0.0.0/4, reserved and broadcast'],
];

const DOTTED_QUAD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** An IPv4 address in dotted-decimal form (the form the URL parser writes every IPv4 notation in) as a 32-bit number. */
export function parseIPv4(text: string): number | undefined {
  const match = DOTTED_QUAD.exec(text);
  if (!match) return undefined;
  const parts = match.slice(1).map(Number);
  if (parts.some((part) => part > 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + part, 0);
}

const RANGES4 = IPV4_RANGES.map(([base, prefix, kind, label]) => ({
  base: parseIPv4(base) ?? 0,
  size: 2 ** (32 - prefix),
  kind,
  label,
}));

/** The kind of a 32-bit IPv4 address. */
export function classifyIPv4(address: number): AddressClass {
  for (const range of RANGES4) {
    if (address >= range.base && address < range.base + range.size) return { kind: range.kind, range: range.label };
  }
  return { kind: 'public', range: 'global unicast' };
}

/** Eight 16-bit groups of an IPv6 address (brackets, `::` and a dotted IPv4 tail allowed), or `undefined`. */
export function parseIPv6(text: string): number[] | undefined {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const lastColon = body.lastIndexOf(':');
  if (lastColon === -1) return undefined;
  const tail: number[] = [];
  if (body.includes('.', lastColon)) {
    const v4 = parseIPv4(body.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail.push(Math.floor(v4 / 65536), v4 % 65536);
    body = body.slice(0, lastColon + 1);
    // Keep a '::' that precedes the IPv4 part; drop a lone separating ':'.
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (part: string | undefined) => (part ? part.split(':') : []);
  const head = toGroups(halves[0]);
  const rest = toGroups(halves[1]);
  const given = head.length + rest.length + tail.length;
  if (given > 8 || (halves.length === 1 && given !== 8) || (halves.length === 2 && given === 8)) return undefined;
  const hex = [...head, ...Array<string>(8 - given).fill('0'), ...rest];
  if (hex.some((group) => !/^[0-9a-fA-F]{1,4}$/.test(group))) return undefined;
  return [...hex.map((group) => Number.parseInt(group, 16)), ...tail].slice(0, 8);
}

function embeddedIPv4(high: number, low: number, label: string, publicKind: AddressKind): AddressClass {
  const inner = classifyIPv4(high * 65536 + low);
  if (inner.kind !== 'public') return { kind: inner.kind, range: `${inner.range}, as ${label}` };
  return { kind: publicKind, range: label };
}

/** The kind of an IPv6 address given as eight groups; an embedded IPv4 address is classified as IPv4. */
export function classifyIPv6(g: readonly number[]): AddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroTo3 = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (zeroTo3 && g4 === 0 && g5 === 0) {
    if (g6 === 0 && g7 === 0) return { kind: 'unspecified', range: '::/128' };
    if (g6 === 0 && g7 === 1) return { kind: 'loopback', range: '::1/128' };
    return embeddedIPv4(g6, g7, 'IPv4-compatible IPv6 (::/96, deprecated)', 'reserved');
  }
  if (zeroTo3 && g4 === 0 && g5 === 0xffff) return embeddedIPv4(g6, g7, 'IPv4-mapped IPv6 (::ffff:0:0/96)', 'public');
  if (zeroTo3 && g4 === 0xffff && g5 === 0)
    return embeddedIPv4(g6, g7, 'IPv4-translated IPv6 (::ffff:0:0:0/96)', 'public');
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return embeddedIPv4(g6, g7, 'NAT64 (64:ff9b::/96)', 'public');
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return { kind: 'private', range: '64:ff9b:1::/48, local NAT64' };
  if (g0 === 0x2002) return embeddedIPv4(g1, g2, '6to4 (2002::/16)', 'public');
  if (g0 === 0x2001 && g1 === 0x0db8) return { kind: 'reserved', range: '2001:db8::/32, documentation' };
  if (g0 === 0x2001 && g1 < 0x0200) return { kind: 'reserved', range: '2001::/23, IETF protocol assignments' };
  if ((g0 & 0xfff0) === 0x3ff0) return { kind: 'reserved', range: '3fff::/20, documentation' };
  if ((g0 & 0xfe00) === 0xfc00) return { kind: 'unique_local', range: 'fc00::/7' };
  if ((g0 & 0xffc0) === 0xfe80) return { kind: 'link_local', range: 'fe80::/10' };
  if ((g0 & 0xffc0) === 0xfec0) return { kind: 'private', range: 'fec0::/10, site-local (deprecated)' };
  if ((g0 & 0xff00) === 0xff00) return { kind: 'multicast', range: 'ff00::/8' };
  if ((g0 & 0xe000) !== 0x2000) return { kind: 'reserved', range: 'outside 2000::/3, the global unicast space' };
  return { kind: 'public', range: 'global unicast' };
}
