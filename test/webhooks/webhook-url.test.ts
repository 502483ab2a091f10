import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isSafeWebhookUrl } from '../../src/webhooks/index.js';

const codes = (url: string) => checkWebhookUrl(url).reasons.map((reason) => reason.code);

describe('checkWebhookUrl', () => {
  it.each([
    'https://example.com/webhooks',
    'https://hooks.partner.co.in:8443/gst/events?tenant=7',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:8.8.8.8]/hook',
    'https://example.com./hook',
  ])('accepts the public HTTPS URL %s', (url) => {
    expect(checkWebhookUrl(url)).toMatchObject({ ok: true, reasons: [] });
    expect(isSafeWebhookUrl(url)).toBe(true);
  });

  it.each(['http://example.com/hook', 'ftp://example.com/hook', 'wss://example.com/hook'])(
    'refuses %s because it is not HTTPS',
    (url) => {
      expect(codes(url)).toEqual(['not_https']);
    },
  );

  it.each(['not a url', '/relative/path', 'https://', 'https://./'])('refuses %j as an invalid URL', (url) => {
    expect(codes(url)).toContain('invalid_url');
  });

  it.each([
    'https://localhost/hook',
    'https://LOCALHOST/hook',
    'https://localhost./hook',
    'https://localhost../hook',
    'https://api.localhost/hook',
    'https://%6c%6f%63%61%6c%68%6f%73%74/hook',
  ])('refuses %s as localhost', (url) => {
    expect(codes(url)).toEqual(['localhost']);
  });

  it.each([
    ['dotted', 'https://127.0.0.1/'],
    ['decimal integer', 'https://2130706433/'],
    ['hex integer', 'https://0x7f000001/'],
    ['hex dotted', 'https://0x7f.0.0.1/'],
    ['octal dotted', 'https://0177.0.0.1/'],
    ['shortened', 'https://127.1/'],
    ['trailing dot', 'https://127.0.0.1./'],
    ['shortened hex with trailing dot', 'https://0x7f.1./'],
    ['shortened with two trailing dots', 'https://127.1../'],
    ['hex with two trailing dots', 'https://0x7f.1../'],
    ['octal with two trailing dots', 'https://0177.0.0.1../'],
    ['full-width digits', 'https://１２７.０.０.１/'],
    ['IPv6', 'https://[::1]/'],
    ['IPv6 written in full', 'https://[0:0:0:0:0:0:0:1]/'],
    ['IPv4-mapped IPv6, dotted', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6, hex', 'https://[::ffff:7f00:1]/'],
    ['IPv4-compatible IPv6', 'https://[::127.0.0.1]/'],
    ['NAT64', 'https://[64:ff9b::7f00:1]/'],
    ['6to4', 'https://[2002:7f00:1::]/'],
  ])('refuses a loopback address written %s', (_, url) => {
    expect(codes(url)).toEqual(['loopback_address']);
  });

  it.each([
    ['https://10.1.2.3/', 'private_address'],
    ['https://172.16.0.1/', 'private_address'],
    ['https://172.31.255.255/', 'private_address'],
    ['https://192.168.1.10/', 'private_address'],
    ['https://3232235786/', 'private_address'],
    ['https://0xc0.0xa8.1.10/', 'private_address'],
    ['https://[::ffff:c0a8:10a]/', 'private_address'],
    ['https://[::ffff:10.0.0.1]/', 'private_address'],
    ['https://169.254.169.254/latest/meta-data', 'link_local_address'],
    ['https://[fe80::1]/', 'link_local_address'],
    ['https://[fd12:3456:789a::1]/', 'unique_local_address'],
    ['https://[fc00::1]/', 'unique_local_address'],
    ['https://0.0.0.0/', 'unspecified_address'],
    ['https://0/', 'unspecified_address'],
    ['https://[::]/', 'unspecified_address'],
    ['https://100.64.0.1/', 'shared_address'],
    ['https://100.127.255.254/', 'shared_address'],
    ['https://224.0.0.1/', 'multicast_address'],
    ['https://[ff02::1]/', 'multicast_address'],
    ['https://255.255.255.255/', 'reserved_address'],
    ['https://192.0.2.1/', 'reserved_address'],
    ['https://[2001:db8::1]/', 'reserved_address'],
    ['https://127.255.255.254/', 'loopback_address'],
    ['https://127.0.0.1:8443/hook', 'loopback_address'],
    ['https://0x7F.0.0.1/', 'loopback_address'],
    ['https://017700000001/', 'loopback_address'],
    ['https://[::ffff:0:7f00:1]/', 'loopback_address'],
    ['https://10.255.255.255/', 'private_address'],
    ['https://167772161/', 'private_address'],
    ['https://012.0.0.1/', 'private_address'],
    ['https://192.168.1/', 'private_address'],
    ['https://172.16.1/', 'private_address'],
    ['https://169.254.0.1/', 'link_local_address'],
    ['https://2852039166/', 'link_local_address'],
    ['https://[::ffff:169.254.169.254]/', 'link_local_address'],
    ['https://[fe80::a:b:c:d]/', 'link_local_address'],
    ['https://[febf::1]/', 'link_local_address'],
  ])('refuses %s as %s', (url, code) => {
    expect(codes(url)).toEqual([code]);
  });

  it.each(['https://172.32.0.1/', 'https://100.128.0.1/', 'https://11.0.0.1/', 'https://169.255.0.1/'])(
    'accepts %s, just outside the non-public ranges',
    (url) => {
      expect(isSafeWebhookUrl(url)).toBe(true);
    },
  );

  it.each([
    ['https://printer.local/', 'local_name'],
    ['https://nas.home.arpa/', 'home_arpa_name'],
    ['https://db.internal/', 'internal_name'],
    ['https://router.lan/', 'lan_name'],
    ['https://nas.home/', 'home_name'],
    ['https://printer.corp/', 'corp_name'],
    ['https://foo.intranet/', 'intranet_name'],
    ['https://foo.private/', 'private_name'],
    ['https://kubernetes.default.svc/', 'svc_name'],
    ['https://kubernetes.default/', 'default_name'],
    ['https://api.default.svc.cluster.local/', 'cluster_local_name'],
    ['https://web.cluster.local./', 'cluster_local_name'],
    ['https://ROUTER.LAN/', 'lan_name'],
    ['https://box.localdomain/', 'localdomain_name'],
    ['https://hooks.test/', 'test_name'],
    ['https://x.invalid/', 'invalid_name'],
    ['https://docs.example/', 'example_name'],
    ['https://abc.onion/', 'onion_name'],
    ['https://x.alt/', 'alt_name'],
    ['https://kubernetes/', 'single_label_name'],
    ['https://router/', 'single_label_name'],
    ['https://intranet./hook', 'intranet_name'],
  ])('refuses %s, a name that is never public, as %s', (url, code) => {
    const result = checkWebhookUrl(url);
    expect(result.reasons.map((reason) => reason.code)).toEqual([code]);
    expect(result.reasons[0]?.message).toMatch(/cannot be reached from the internet/);
  });

  it.each([
    'https://localhost.example.com/',
    'https://home.example.com/',
    'https://lan.party/',
    'https://corp.com/',
    'https://svc.io/',
    'https://local.in/',
  ])('accepts %s: the special words are checked as the last labels only', (url) => {
    expect(isSafeWebhookUrl(url)).toBe(true);
  });

  it('lists every broken rule at once, with a message for the user', () => {
    const result = checkWebhookUrl('http://192.168.0.5:8080/hook');
    expect(result.ok).toBe(false);
    expect(result.reasons.map((reason) => reason.code)).toEqual(['not_https', 'private_address']);
    expect(result.reasons[1]?.message).toContain('192.168.0.0/16');
  });

  it('returns the URL as normalised by the WHATWG parser', () => {
    expect(checkWebhookUrl('https://0x7f.1/a').url?.href).toBe('https://127.0.0.1/a');
  });

  it('checks the URL text only: a public name that resolves to a private address passes (no DNS lookup)', () => {
    expect(isSafeWebhookUrl('https://127.0.0.1.nip.io/hook')).toBe(true);
  });
});
