import ipaddr from 'ipaddr.js';

/** An IPv6 range whose addresses carry an IPv4 address (or may, where its place is not fixed). */
export interface Ipv4Embedding {
  name: string;
  /** The IPv4 addresses an address of the range carries; empty where their place is unknown. */
  carried(parts: number[]): ipaddr.IPv4[];
}

const ipv4 = (high = 0, low = 0) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
const lastWords = (parts: number[]) => [ipv4(parts[6], parts[7])];

const EMBEDDINGS: Array<Ipv4Embedding & { prefix: ipaddr.IPv6; bits: number }> = (
  [
    // RFC 4291 (deprecated): ::a.b.c.d. Holds :: and ::1 too, which embeddingOf leaves out.
    { name: 'IPv4-compatible', prefix: '::', bits: 96, carried: lastWords },
    { name: 'IPv4-mapped', prefix: '::ffff:0:0', bits: 96, carried: lastWords },
    // RFC 6145 (SIIT).
    { name: 'IPv4-translated', prefix: '::ffff:0:0:0', bits: 96, carried: lastWords },
    // RFC 6052, the well-known NAT64 prefix.
    { name: 'NAT64', prefix: '64:ff9b::', bits: 96, carried: lastWords },
    // RFC 8215: the operator picks the prefix length, so the IPv4 may sit anywhere.
    { name: 'NAT64 local-use', prefix: '64:ff9b:1::', bits: 48, carried: () => [] },
    // RFC 3056: 2002:AABB:CCDD::/48 for the IPv4 AA.BB.CC.DD.
    { name: '6to4', prefix: '2002::', bits: 16, carried: (p) => [ipv4(p[1], p[2])] },
    // RFC 4380: the server's IPv4, and the client's, inverted, in the last 32 bits.
    {
      name: 'Teredo',
      prefix: '2001::',
      bits: 32,
      carried: (p) => [ipv4(p[2], p[3]), ipv4((p[6] ?? 0) ^ 0xffff, (p[7] ?? 0) ^ 0xffff)],
    },
  ] satisfies Array<Ipv4Embedding & { prefix: string; bits: number }>
).map((each) => ({ ...each, prefix: ipaddr.IPv6.parse(each.prefix) }));

/**
 * The embedding range an IPv6 address belongs to, if any. :: and ::1 (unspecified, loopback) are
 * not IPv4-compatible addresses (RFC 4291) and are judged as what they are.
 */
export function embeddingOf(address: ipaddr.IPv6): Ipv4Embedding | undefined {
  const range = address.range();
  if (range === 'unspecified' || range === 'loopback') return undefined;
  return EMBEDDINGS.find(({ prefix, bits }) => address.match(prefix, bits));
}
