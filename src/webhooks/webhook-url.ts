import { type AddressKind, classifyIPv4, classifyIPv6, parseIPv4, parseIPv6 } from './ip-address.js';

/** Why a webhook URL breaks the spec's delivery rules. */
export type WebhookUrlReasonCode =
  | 'invalid_url'
  | 'not_https'
  | 'localhost'
  | 'single_label_name'
  | NameSpaceCode<NameSpace>
  | `${Exclude<AddressKind, 'public'>}_address`;

/** One rule a webhook URL breaks, with a sentence for the user. */
export interface WebhookUrlReason {
  readonly code: WebhookUrlReasonCode;
  readonly message: string;
}

/** The result of {@link checkWebhookUrl}. */
export interface WebhookUrlCheck {
  /** True when the URL breaks none of the rules. */
  readonly ok: boolean;
  /** Every rule broken; empty when `ok`. */
  readonly reasons: readonly WebhookUrlReason[];
  /** The URL as the WHATWG parser normalised it (for example `https://0x7f.1/` becomes `https://127.0.0.1/`). */
  readonly url: URL | undefined;
}

/**
 * Name spaces that are never public, most specific first, each with why. Special-use names (RFC 6761, RFC 6762,
 * RFC 8375, RFC 9476), ICANN's private-use `.internal`, names ICANN will not delegate because routers and company
 * networks use them (`.home`, `.corp`, `.lan`, ...), and Kubernetes' cluster DNS (`svc`, `cluster.local`, and
 * `<service>.default`, the default namespace).
 */
const NON_PUBLIC_NAME_SPACES = [
  ['cluster.local', 'Kubernetes cluster DNS'],
  ['home.arpa', 'home networks (RFC 8375)'],
  ['local', 'multicast DNS on the local link (RFC 6762)'],
  ['localdomain', 'local resolver configurations'],
  ['internal', 'private networks (reserved by ICANN for private use)'],
  ['intranet', 'company networks'],
  ['private', 'private networks'],
  ['corp', 'company networks (never delegated by ICANN)'],
  ['home', 'home routers (never delegated by ICANN)'],
  ['lan', 'home and office routers'],
  ['svc', 'Kubernetes services'],
  ['default', "Kubernetes' default namespace"],
  ['test', 'testing (RFC 6761)'],
  ['invalid', 'names that must not resolve (RFC 6761)'],
  ['example', 'documentation (RFC 6761)'],
  ['onion', 'Tor onion services (RFC 7686)'],
  ['alt', 'non-DNS name systems (RFC 9476)'],
] as const;

type NameSpace = (typeof NON_PUBLIC_NAME_SPACES)[number][0];
/** The reason code of a name space: `.cluster.local` gives `cluster_local_name`. */
type NameSpaceCode<S extends string> = S extends `${infer A}.${infer B}` ? NameSpaceCode<`${A}_${B}`> : `${S}_name`;

const KIND_WORDS: Record<Exclude<AddressKind, 'public'>, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  unique_local: 'a unique-local address',
  shared: 'a shared (carrier-grade NAT) address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

function hostReasons(hostname: string): WebhookUrlReason[] {
  // A trailing dot names the same host ("localhost." is localhost); the URL parser keeps it on names. Parsing the
  // host again without it turns the IPv4 notations it hid ("127.1..", "0x7f.1..") into dotted quads.
  let host = hostname.replace(/\.+$/, '');
  try {
    host = new URL(`https://${host}/`).hostname;
  } catch {
    // Not a host the URL parser takes alone: classify the text as it is.
  }
  const ip = host.startsWith('[') ? parseIPv6(host) : undefined;
  const v4 = ip === undefined ? parseIPv4(host) : undefined;
  const found = ip !== undefined ? classifyIPv6(ip) : v4 !== undefined ? classifyIPv4(v4) : undefined;
  if (found !== undefined) {
    if (found.kind === 'public') return [];
    const message = `The host ${host} is ${KIND_WORDS[found.kind]} (${found.range}); the service delivers only to public addresses.`;
    return [{ code: `${found.kind}_address`, message }];
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return [{ code: 'localhost', message: `The host ${host} is localhost; the service cannot reach your machine.` }];
  }
  const space = NON_PUBLIC_NAME_SPACES.find(([suffix]) => host === suffix || host.endsWith(`.${suffix}`));
  if (space !== undefined) {
    const [suffix, use] = space;
    const code = `${suffix.replaceAll('.', '_')}_name` as NameSpaceCode<NameSpace>;
    const message = `The host ${host} cannot be reached from the internet: .${suffix} names are for ${use}.`;
    return [{ code, message }];
  }
  if (!host.includes('.')) {
    const message = `The host ${host} cannot be reached from the internet: a name without a dot is resolved only inside a network.`;
    return [{ code: 'single_label_name', message }];
  }
  return [];
}

/**
 * Checks a webhook URL against the spec's delivery rules, for a configuration screen: HTTPS only; no localhost;
 * no private, loopback, link-local, unique-local, unspecified, carrier-grade NAT, multicast or reserved address,
 * IPv4 or IPv6, in any notation (decimal `2130706433`, hex `0x7f.0.0.1`, octal `0177.0.0.1`, short `127.1`,
 * IPv4-mapped `::ffff:7f00:1`, trailing dots); no name of a space that is never public (`.local`, `.home.arpa`,
 * `.internal`, `.lan`, `.home`, `.corp`, `.intranet`, `.private`, Kubernetes' `.svc`, `.cluster.local` and
 * `<service>.default`, and the RFC 6761 names), and no single-label host such as `router`. The URL text only is checked: no DNS lookup is made, so a public
 * name that resolves to a private address passes; the service's own checks still apply.
 *
 * @param url - The URL the user typed.
 * @returns `{ ok, reasons, url }`; `reasons` lists every rule broken, each with a code and a message.
 * @example
 * checkWebhookUrl('https://2130706433/hook').reasons[0]?.code // 'loopback_address'
 * checkWebhookUrl('https://router.lan/hook').reasons[0]?.code   // 'lan_name'
 * checkWebhookUrl('https://example.com/hooks/invoices').ok     // true
 */
export function checkWebhookUrl(url: string | URL): WebhookUrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(String(url).trim());
  } catch {
    const reason: WebhookUrlReason = { code: 'invalid_url', message: 'This is not a valid absolute URL.' };
    return { ok: false, reasons: [reason], url: undefined };
  }
  const reasons: WebhookUrlReason[] = [];
  if (parsed.protocol !== 'https:') {
    reasons.push({ code: 'not_https', message: `The URL must use https://, not ${parsed.protocol}//.` });
  }
  if (parsed.hostname.replace(/\.+$/, '') === '') {
    reasons.push({ code: 'invalid_url', message: 'The URL has no host.' });
  } else {
    reasons.push(...hostReasons(parsed.hostname.toLowerCase()));
  }
  return { ok: reasons.length === 0, reasons, url: parsed };
}

/**
 * Whether a webhook URL passes {@link checkWebhookUrl}.
 * @example isSafeWebhookUrl('https://[::ffff:127.0.0.1]/') // false
 */
export function isSafeWebhookUrl(url: string | URL): boolean {
  return checkWebhookUrl(url).ok;
}
