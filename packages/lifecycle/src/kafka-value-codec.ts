import type { ServiceConfig } from '@vop/config';
import { integrationEnvelopeJsonSchema } from '@vop/contracts';
import { schemaRegistryCodec, type KafkaBusOptions } from '@vop/messaging';

/**
 * With SCHEMA_REGISTRY_URL set, event values travel in the Confluent wire format, their JSON Schema
 * (generated from the zod contract of the integration envelope) registered per topic; else as JSON text.
 */
export function kafkaValueCodec(config: ServiceConfig): Pick<KafkaBusOptions, 'valueCodec'> {
  if (config.SCHEMA_REGISTRY_URL === undefined || config.SCHEMA_REGISTRY_URL === '') return {};
  const schema = integrationEnvelopeJsonSchema();
  return {
    valueCodec: schemaRegistryCodec({ url: config.SCHEMA_REGISTRY_URL, schemaFor: () => schema }),
  };
}
