import { isIP } from 'node:net';

/**
 * The `Host` names the dashboard answers to. A page that an attacker serves under their own name and then resolves
 * to 127.0.0.1 (DNS rebinding) is same-origin with itself, so `Origin` and `Host` agree; only the name itself tells
 * it apart from the machine's own browser. So the dashboard answers a loopback name, the address the mock was told
 * to bind, and the names given with `allowedHosts` (`--allowed-host`), and nothing else.
 */
export interface DashboardHosts {
  /** Whether a request whose `Host` header is `host` may reach the dashboard. */
  allows(host: string | undefined): boolean;
  /** The names allowed beyond the loopback ones, for messages. */
  readonly extra: readonly string[];
}

/** Whether `host` (a name or an address, IPv6 with or without brackets) is `localhost`, in 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  return isLoopback(hostName(host));
}

/** `localhost`, 127.0.0.0/8 and ::1, lower-case, IPv6 without brackets. */
function isLoopback(name: string): boolean {
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** The host name of a `Host` header or an option: lower case, no port, no brackets, no final dot. */
function hostName(value: string): string {
  const text = value.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d*)?$/.exec(text);
  if (bracketed) return bracketed[1] as string;
  if (isIP(text) === 6) return text; // a bare IPv6 address (an option): its colons are not a port
  return text.replace(/:\d*$/, '').replace(/\.$/, '');
}

const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/;

/**
 * Checks an `allowedHosts` entry: a host name or an IP address (IPv6 with or without brackets), without scheme,
 * port or path. @throws {TypeError} naming the entry, when it is not one.
 */
export function checkAllowedHost(value: unknown, where: string): string {
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    if (isIP(bare) !== 0) return bare;
    if (text.length <= 253 && HOST_NAME.test(text)) return text.replace(/\.$/, '');
  }
  throw new TypeError(
    `${where} must be a host name or an IP address, without scheme, port or path (for example 'mock' or '192.168.1.20'); got ${JSON.stringify(value)}`,
  );
}

/** The hosts of a dashboard served on `bindHost`, with `allowedHosts` added (each checked). @throws {TypeError} */
export function dashboardHosts(bindHost: string, allowedHosts: readonly string[] = []): DashboardHosts {
  if (!Array.isArray(allowedHosts)) {
    throw new TypeError(`allowedHosts must be an array of host names; got ${typeof allowedHosts}`);
  }
  const extra = allowedHosts.map((host, i) => checkAllowedHost(host, `allowedHosts[${i}]`));
  const names = new Set([hostName(bindHost), ...extra]);
  return {
    allows(host) {
      if (host === undefined || host === '') return false;
      const name = hostName(host);
      return isLoopback(name) || names.has(name);
    },
    extra,
  };
}
