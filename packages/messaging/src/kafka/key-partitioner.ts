import { Partitioners, type ICustomPartitioner } from 'kafkajs';
import { partitionFor } from '../partitioner.js';

/**
 * Kafka's default rule as `Partitioners.DefaultPartitioner` applies it (a message's own partition, else
 * murmur2 of its key over all the topic's partitions, else round robin), the key placed by `partitionFor`
 * (`../partitioner.ts`, in 32-bit integers, as the in-process bus places it): kafkajs's murmur2 takes a
 * BigInt for every step, about a tenth of the CPU of publishing a message (bench/RESULTS.md §5).
 */
export const keyPartitioner: ICustomPartitioner = () => {
  const unkeyed = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    if (message.partition !== undefined && message.partition !== null) return message.partition;
    const { key } = message;
    if (key === undefined || key === null) return unkeyed(args);
    return partitionFor(key, partitionMetadata.length);
  };
};
