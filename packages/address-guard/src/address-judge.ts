import ipaddr from 'ipaddr.js';
import { embeddingOf } from './embedded-ipv4.js';
import { inNetwork, parseIpAddress, parseNetwork, type Network } from './ip-address.js';

/** IANA's global unicast space; the rest of IPv6 is special-purpose or unassigned. */
const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

/**
 * Judges one IP address: may a connection for a caller go there? Public unicast only, so loopback,
 * private, link-local (169.254.169.254, the cloud metadata address), unique-local, CGNAT,
 * multicast, reserved and documentation ranges are refused unless an allowed network holds them.
 *
 * IPv6 addresses that carry an IPv4 address (IPv4-compatible, SIIT, NAT64, 6to4, Teredo) are
 * refused unless an allowed network holds the IPv6 address, and then only if each IPv4 address
 * they carry may be reached too. An IPv4-mapped address (::ffff:a.b.c.d) is judged as the IPv4
 * address it carries: that is where the socket goes.
 */
export function createAddressJudge(allowedNetworks: readonly string[]) {
  const allowed: Network[] = allowedNetworks.map(parseNetwork);
  const listed = (address: ipaddr.IPv4 | ipaddr.IPv6) =>
    allowed.some((network) => inNetwork(address, network));
  const ipv4Allowed = (address: ipaddr.IPv4) => address.range() === 'unicast' || listed(address);

  function ipv6Allowed(address: ipaddr.IPv6): boolean {
    const embedding = embeddingOf(address);
    if (embedding?.name === 'IPv4-mapped')
      return embedding.carried(address.parts).every(ipv4Allowed);
    if (embedding) return listed(address) && embedding.carried(address.parts).every(ipv4Allowed);
    const global = address.range() === 'unicast' && address.match(GLOBAL_UNICAST, 3);
    return global || listed(address);
  }

  /** True when a connection may go to `text`; false for anything that is not an IP address. */
  return function isAllowedAddress(text: string): boolean {
    const address = parseIpAddress(text);
    if (address === undefined) return false;
    return address.kind() === 'ipv4'
      ? ipv4Allowed(address as ipaddr.IPv4)
      : ipv6Allowed(address as ipaddr.IPv6);
  };
}
