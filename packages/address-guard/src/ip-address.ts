import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An IP address read the way a connection would read it: by the WHATWG URL host parser (the one
 * that turns `2130706433`, `0x7f.1` and `0177.0.0.1` into 127.0.0.1, and `::127.0.0.1` into
 * ::7f00:1), then by ipaddr.js from that canonical text only. ipaddr.js alone reads `::a.b.c.d`
 * as IPv4-mapped. A zone id (`fe80::1%eth0`) makes no address: only scoped, never public,
 * addresses carry one. `undefined` when the text is not an address.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  try {
    if (/^[0-9a-f:.]+$/i.test(bare) && bare.includes(':')) {
      const host = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
      return ipaddr.IPv6.parse(host);
    }
    if (!/^[0-9a-fx.]+$/i.test(bare)) return undefined;
    const host = new URL(`http://${bare}/`).hostname;
    return isIPv4(host) ? ipaddr.IPv4.parse(host) : undefined;
  } catch {
    return undefined;
  }
}

/** A network of an allow-list: `10.9.0.0/16`, `fd00::/8`, or one address (`::1`). */
export interface Network {
  address: IpAddress;
  bits: number;
}

/** Reads one allow-list entry; throws naming the entry when it is neither a CIDR nor an address. */
export function parseNetwork(entry: string): Network {
  const [text = '', bitsText, ...rest] = entry.trim().split('/');
  const address = parseIpAddress(text);
  const most = address?.kind() === 'ipv4' ? 32 : 128;
  const bits = bitsText === undefined ? most : Number(bitsText);
  if (
    address === undefined ||
    rest.length > 0 ||
    (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) ||
    bits > most
  )
    throw new Error(`not a network (CIDR or address): ${JSON.stringify(entry)}`);
  return { address, bits };
}

export const inNetwork = (address: IpAddress, network: Network): boolean =>
  address.kind() === network.address.kind() && address.match(network.address, network.bits);
