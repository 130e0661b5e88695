import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { integrationEnvelopeJsonSchema } from './index.js';

describe('integrationEnvelopeJsonSchema', () => {
  it('is the envelope contract as JSON Schema draft 7, the draft a schema registry reads', () => {
    const schema = integrationEnvelopeJsonSchema() as {
      $schema: string;
      type: string;
      properties: Record<string, unknown>;
      required: string[];
    };
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.equal(schema.type, 'object');
    for (const field of ['eventId', 'type', 'version', 'occurredAt', 'correlationId', 'data'])
      assert.ok(field in schema.properties, field);
    for (const field of ['eventId', 'type', 'occurredAt', 'data'])
      assert.ok(schema.required.includes(field), `${field} is required`);
  });
});
