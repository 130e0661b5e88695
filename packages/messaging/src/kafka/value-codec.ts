import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

/** How message values look on the wire; without one, the bus sends the JSON text as it is. */
export interface ValueCodec {
  encode(topic: string, value: string): Promise<Buffer>;
  /** Gives the JSON text back, or undefined for a value this codec did not write. */
  decode(value: Buffer): Promise<string | undefined>;
}

/** The first byte of a value in the Confluent wire format; JSON text never starts with it. */
const CONFLUENT_MAGIC_BYTE = 0;

/**
 * Values in the Confluent wire format (magic byte, 4-byte schema id, JSON), with the JSON Schema of
 * each topic registered under `<topic>-value` in a Confluent-compatible registry on first use and
 * checked on encode. Decoding looks the writer's schema up by the id the value carries; values that
 * do not start with the magic byte (published before the registry was configured) are left to the
 * caller as plain JSON.
 */
export function schemaRegistryCodec(options: {
  url: string;
  /** The JSON Schema (draft 7) of a topic's values. */
  schemaFor: (topic: string) => Record<string, unknown>;
}): ValueCodec {
  const registry = new SchemaRegistry(
    { host: options.url.replace(/\/$/, '') },
    // The validator knows no string formats (uuid, date-time...); zod writes a pattern beside each.
    { [SchemaType.JSON]: { strict: false, validateFormats: false } },
  );
  const schemaIds = new Map<string, Promise<number>>();
  const schemaIdFor = (topic: string): Promise<number> => {
    let id = schemaIds.get(topic);
    if (id === undefined) {
      id = registry
        .register(
          { type: SchemaType.JSON, schema: JSON.stringify(options.schemaFor(topic)) },
          { subject: `${topic}-value` },
        )
        .then(({ id: registered }) => registered);
      // A failed registration is tried again by the next publish.
      id.catch(() => schemaIds.delete(topic));
      schemaIds.set(topic, id);
    }
    return id;
  };
  return {
    async encode(topic, value) {
      return registry.encode(await schemaIdFor(topic), JSON.parse(value) as unknown);
    },
    async decode(value) {
      if (value[0] !== CONFLUENT_MAGIC_BYTE) return undefined;
      return JSON.stringify(await registry.decode(value));
    },
  };
}
