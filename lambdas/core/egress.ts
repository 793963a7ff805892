/**
 * Egress policy: which addresses and ports a delivery may reach. Pure: the HTTP adapter
 * calls it on every resolved address at connect time and on IP-literal hosts.
 */

import ipaddr from 'ipaddr.js';

/** Refused IPv4 ranges: "this network", private, CGNAT, loopback, link-local (metadata), reserved, documentation, multicast. */
const REFUSED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

/** Refused IPv6 ranges; IPv4-mapped addresses are unmapped and judged as IPv4 first. */
const REFUSED_V6 = [
  '::/128',
  '::1/128',
  '::/96',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * Every routable IPv6 unicast address is in 2000::/3; anything outside it that the list above
 * misses (IPv4-translated `::ffff:0:a.b.c.d`, unassigned space) is refused too: fail closed.
 */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

const LOOPBACK_V4 = ipaddr.IPv4.parseCIDR('127.0.0.0/8');
const LOOPBACK_V6 = ipaddr.IPv6.parseCIDR('::1/128');

export interface EgressPolicy {
  /** Ports a destination may use. */
  allowedPorts: readonly number[];
  /** Local mode only: loopback destinations are allowed, on any port. */
  allowLoopback: boolean;
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Why an address may not be reached, or undefined when it may.
 * Unparseable input is refused: the policy fails closed.
 */
export function refusalOf(address: string, policy: Pick<EgressPolicy, 'allowLoopback'>): string | undefined {
  const text = stripBrackets(address);
  if (!ipaddr.isValid(text)) return `"${address}" is not an IP address`;
  let ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (ip.kind() === 'ipv4') {
    const v4 = ip as ipaddr.IPv4;
    if (policy.allowLoopback && v4.match(LOOPBACK_V4)) return undefined;
    const hit = REFUSED_V4.find((range) => v4.match(range));
    return hit ? `${v4.toString()} is in the refused range ${hit[0].toString()}/${hit[1]}` : undefined;
  }
  const v6 = ip as ipaddr.IPv6;
  if (policy.allowLoopback && v6.match(LOOPBACK_V6)) return undefined;
  const hit = REFUSED_V6.find((range) => v6.match(range));
  if (hit) return `${v6.toString()} is in the refused range ${hit[0].toString()}/${hit[1]}`;
  return v6.match(GLOBAL_UNICAST_V6)
    ? undefined
    : `${v6.toString()} is outside the global unicast range 2000::/3`;
}

/** `localhost`, `*.localhost`, `127.x.x.x`, `[::1]`: a host that names this machine. */
function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const text = stripBrackets(name);
  if (!ipaddr.isValid(text)) return false;
  let ip = ipaddr.parse(text);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.kind() === 'ipv4'
    ? (ip as ipaddr.IPv4).match(LOOPBACK_V4)
    : (ip as ipaddr.IPv6).match(LOOPBACK_V6);
}

/**
 * Why a port may not be used, or undefined when it may. Local mode (`allowLoopback`) lets a
 * loopback host use any port, so a developer's receiver on a new port needs no restart.
 */
export function portRefusal(
  port: number,
  policy: Pick<EgressPolicy, 'allowedPorts' | 'allowLoopback'>,
  host?: string,
): string | undefined {
  if (policy.allowedPorts.includes(port)) return undefined;
  if (policy.allowLoopback && host !== undefined && isLoopbackHost(host)) return undefined;
  return `port ${port} is not allowed (allowed: ${policy.allowedPorts.join(', ')})`;
}
