import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Why a receiver address is refused; `undefined` when it may be reached. */
export type AddressRefusal = 'HTTPS_REQUIRED' | 'ADDRESS_NOT_ALLOWED' | 'UNRESOLVABLE_HOST';

export interface AddressGuardOptions {
  /** Live deployments reach https:// receivers only. */
  httpsOnly: boolean;
  /** CIDRs or addresses that may be reached although not public (VOP_WEBHOOK_ALLOWED_NETWORKS). */
  allowedNetworks: string[];
}

export class AddressRefusedError extends Error {
  constructor(
    readonly reason: AddressRefusal,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
    this.name = 'AddressRefusedError';
  }
}

function parseNetwork(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (entry.includes('/')) return ipaddr.parseCIDR(entry);
  const address = ipaddr.parse(entry);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries. */
function normalise(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

/**
 * Decides which receiver addresses the dispatcher may connect to: public unicast only (ipaddr.js's
 * `range()` is `unicast`), so loopback, private, link-local (169.254.169.254, the cloud metadata
 * address), unique-local, CGNAT, multicast and reserved ranges are refused unless an allowed network
 * holds them. Checked at registration, and again on every connection through `lookup` (against DNS
 * rebinding: the address actually connected to is the one checked).
 */
export function createAddressGuard(options: AddressGuardOptions) {
  const allowed = options.allowedNetworks.map(parseNetwork);

  function isAllowedAddress(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = normalise(address);
    if (parsed.range() === 'unicast') return true;
    return allowed.some(
      ([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits),
    );
  }

  function schemeRefusal(url: URL): AddressRefusal | undefined {
    if (url.protocol === 'https:') return undefined;
    if (url.protocol === 'http:' && !options.httpsOnly) return undefined;
    return 'HTTPS_REQUIRED';
  }

  /** The host of a URL without IPv6 brackets. */
  const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

  /** Resolves the receiver's host and refuses it if any of its addresses may not be reached. */
  async function checkUrl(url: URL): Promise<AddressRefusal | undefined> {
    const scheme = schemeRefusal(url);
    if (scheme) return scheme;
    const host = hostOf(url);
    if (ipaddr.isValid(host)) return isAllowedAddress(host) ? undefined : 'ADDRESS_NOT_ALLOWED';
    try {
      const addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
      if (addresses.length === 0) return 'UNRESOLVABLE_HOST';
      return addresses.every(({ address }) => isAllowedAddress(address))
        ? undefined
        : 'ADDRESS_NOT_ALLOWED';
    } catch {
      return 'UNRESOLVABLE_HOST';
    }
  }

  /**
   * A `lookup` for net/tls connections: resolves as usual, then fails the connection when the
   * address it would connect to may not be reached. Node skips `lookup` for literal IP hosts, so
   * `checkLiteralHost` covers those before a request starts.
   */
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as unknown as dns.LookupAddress[];
      const refused = list.find(({ address }) => !isAllowedAddress(address));
      if (refused || list.length === 0) {
        const reason = new AddressRefusedError(
          'ADDRESS_NOT_ALLOWED',
          `${hostname} resolved to a refused address`,
        );
        return callback(reason as NodeJS.ErrnoException, '', 4);
      }
      if (lookupOptions.all) return callback(null, list as never);
      const first = list[0] as dns.LookupAddress;
      return callback(null, first.address, first.family);
    });
  };

  /** Before a request: the scheme, and a literal IP host (which `lookup` never sees). */
  function checkBeforeConnect(url: URL): AddressRefusal | undefined {
    const scheme = schemeRefusal(url);
    if (scheme) return scheme;
    const host = hostOf(url);
    return ipaddr.isValid(host) && !isAllowedAddress(host) ? 'ADDRESS_NOT_ALLOWED' : undefined;
  }

  return { isAllowedAddress, checkUrl, checkBeforeConnect, lookup };
}
export type AddressGuard = ReturnType<typeof createAddressGuard>;
