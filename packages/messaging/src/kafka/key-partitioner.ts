import { Partitioners, type ICustomPartitioner } from 'kafkajs';
import { murmur2 } from '../partitioner.js';

const utf8 = new TextEncoder();

/**
 * Kafka's default rule as `Partitioners.DefaultPartitioner` applies it (a message's own partition, else
 * murmur2 of its key over all the topic's partitions, else round robin), with the key's murmur2 in
 * 32-bit integers (`../partitioner.ts`, which the in-process bus uses too): kafkajs computes it with a
 * BigInt for every step, about a tenth of the CPU of publishing a message (bench/RESULTS.md §5).
 */
export const keyPartitioner: ICustomPartitioner = () => {
  const unkeyed = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    if (message.partition !== undefined && message.partition !== null) return message.partition;
    const { key } = message;
    if (key === undefined || key === null) return unkeyed(args);
    const bytes = typeof key === 'string' ? utf8.encode(key) : key;
    return (murmur2(bytes) & 0x7fffffff) % partitionMetadata.length;
  };
};
