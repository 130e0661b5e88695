const MURMUR2_SEED = 0x9747b28c;
const MURMUR2_MULTIPLIER = 0x5bd1e995;
const MURMUR2_SHIFT = 24;

/**
 * Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2), as a signed 32-bit integer.
 * The in-process bus uses it so a key lands on the same partition number as with Kafka.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let hash = (MURMUR2_SEED ^ length) | 0;
  const wholeWords = length >>> 2;
  for (let word = 0; word < wholeWords; word++) {
    const index = word * 4;
    let k =
      (data[index]! & 0xff) |
      ((data[index + 1]! & 0xff) << 8) |
      ((data[index + 2]! & 0xff) << 16) |
      ((data[index + 3]! & 0xff) << 24);
    k = Math.imul(k, MURMUR2_MULTIPLIER);
    k ^= k >>> MURMUR2_SHIFT;
    k = Math.imul(k, MURMUR2_MULTIPLIER);
    hash = Math.imul(hash, MURMUR2_MULTIPLIER);
    hash ^= k;
  }
  const tail = length & ~3;
  const remaining = length & 3;
  if (remaining === 3) hash ^= (data[tail + 2]! & 0xff) << 16;
  if (remaining >= 2) hash ^= (data[tail + 1]! & 0xff) << 8;
  if (remaining >= 1) {
    hash ^= data[tail]! & 0xff;
    hash = Math.imul(hash, MURMUR2_MULTIPLIER);
  }
  hash ^= hash >>> 13;
  hash = Math.imul(hash, MURMUR2_MULTIPLIER);
  hash ^= hash >>> 15;
  return hash | 0;
}

const encoder = new TextEncoder();

/** The partition of a key (text as UTF-8, or bytes) among `partitions`, Kafka's default partitioner's rule. */
export function partitionFor(key: string | Uint8Array, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  }
  const bytes = typeof key === 'string' ? encoder.encode(key) : key;
  return (murmur2(bytes) & 0x7fffffff) % partitions;
}
