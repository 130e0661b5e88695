import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { createAddressJudge } from './address-judge.js';
import { parseIpAddress } from './ip-address.js';

/** Why an address is refused; `undefined` when it may be reached. */
export type AddressRefusal = 'HTTPS_REQUIRED' | 'ADDRESS_NOT_ALLOWED' | 'UNRESOLVABLE_HOST';

export interface AddressGuardOptions {
  /** Only https:// URLs (live webhook receivers, every toolkit target). */
  httpsOnly: boolean;
  /**
   * CIDRs or addresses that may be reached although not public (VOP_WEBHOOK_ALLOWED_NETWORKS,
   * VOP_TEST_TARGET_ALLOWED_NETWORKS). An entry that is neither throws when the guard is made.
   */
  allowedNetworks: readonly string[];
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

/** The host of a URL without IPv6 brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');
/** Node connects to an IP literal without calling `lookup`: the guard judges those itself. */
const isLiteral = (host: string): boolean => isIP(host) !== 0 || parseIpAddress(host) !== undefined;

/**
 * Decides which addresses a service may connect to for a caller (a webhook receiver, a toolkit
 * target): see `createAddressJudge`. Checked on the URL (at registration, before a request), and
 * again on every connection through `lookup`, so the address actually connected to is the one
 * judged (DNS rebinding, names that resolve to loopback or private addresses).
 */
export function createAddressGuard(options: AddressGuardOptions) {
  const isAllowedAddress = createAddressJudge(options.allowedNetworks);

  function schemeRefusal(url: URL): AddressRefusal | undefined {
    if (url.protocol === 'https:') return undefined;
    if (url.protocol === 'http:' && !options.httpsOnly) return undefined;
    return 'HTTPS_REQUIRED';
  }

  /** Resolves the URL's host and refuses it if any of its addresses may not be reached. */
  async function checkUrl(url: URL): Promise<AddressRefusal | undefined> {
    const scheme = schemeRefusal(url);
    if (scheme) return scheme;
    const host = hostOf(url);
    if (isLiteral(host)) return isAllowedAddress(host) ? undefined : 'ADDRESS_NOT_ALLOWED';
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
   * A `lookup` for net/tls connections: resolves as usual, then fails the connection with an
   * `AddressRefusedError` when any address found may not be reached (nothing is sent to it).
   */
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dns.lookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as unknown as dns.LookupAddress[];
      if (list.length === 0 || list.some(({ address }) => !isAllowedAddress(address))) {
        const refusal = new AddressRefusedError(
          'ADDRESS_NOT_ALLOWED',
          `${hostname} resolved to a refused address`,
        );
        return callback(refusal as NodeJS.ErrnoException, '', 4);
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
    return isLiteral(host) && !isAllowedAddress(host) ? 'ADDRESS_NOT_ALLOWED' : undefined;
  }

  return { isAllowedAddress, checkUrl, checkBeforeConnect, lookup };
}
export type AddressGuard = ReturnType<typeof createAddressGuard>;
