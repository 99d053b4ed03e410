// How values.schema.json objects become structural schemas: JSON Schema accepts undeclared keys unless
// additionalProperties is false, so the CRD preserves them (or types them with an additionalProperties schema).
import { describe, expect, it } from 'vitest';
import { structuralSchema } from './values-schema.js';

const PRESERVE_KEY = 'x-kubernetes-preserve-unknown-fields';
const PRESERVE = { [PRESERVE_KEY]: true };
const convert = (schema: unknown, defaults: unknown = {}) => structuralSchema(schema, defaults);

describe('when an object leaves its keys open (JSON Schema allows undeclared keys unless additionalProperties: false)', () => {
  it('preserves unknown fields of an object that declares some properties and says nothing of the others', () => {
    // bitnami redis: image declares registry and repository, values.yaml also sets image.tag.
    const { schema, warnings } = convert({
      type: 'object',
      properties: {
        image: { type: 'object', properties: { registry: { type: 'string' }, repository: { type: 'string' } } },
      },
    });
    expect(warnings).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      ...PRESERVE,
      properties: {
        image: {
          type: 'object',
          properties: { registry: { type: 'string' }, repository: { type: 'string' } },
          ...PRESERVE,
        },
      },
    });
  });

  it('preserves unknown fields for additionalProperties: true, an empty schema and an object without properties', () => {
    const { schema, warnings } = convert({
      type: 'object',
      additionalProperties: false,
      properties: {
        labels: { type: 'object' },
        extra: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
        empty: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: {} },
        titled: { type: 'object', additionalProperties: { title: 'anything' } },
      },
    });
    expect(warnings).toEqual([]);
    const props = schema.properties as Record<string, unknown>;
    expect(props.labels).toEqual({ type: 'object', ...PRESERVE });
    expect(props.extra).toEqual({ type: 'object', properties: { a: { type: 'string' } }, ...PRESERVE });
    expect(props.empty).toEqual({ type: 'object', properties: { a: { type: 'string' } }, ...PRESERVE });
    expect(props.titled).toEqual({ type: 'object', ...PRESERVE });
  });

  it('closes an object only for additionalProperties: false, with or without properties', () => {
    const { schema } = convert({
      type: 'object',
      properties: {
        strict: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        nothing: { type: 'object', additionalProperties: false },
      },
    });
    const props = schema.properties as Record<string, unknown>;
    expect(props.strict).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(props.nothing).toEqual({ type: 'object' });
    expect(schema[PRESERVE_KEY]).toBe(true); // the root itself says nothing: open
  });

  it('keeps keys that patternProperties allows even under additionalProperties: false, with a warning', () => {
    const { schema, warnings } = convert({
      type: 'object',
      additionalProperties: false,
      patternProperties: { '^x-': { type: 'string' } },
      properties: { a: { type: 'string' } },
    });
    expect(schema).toEqual({ type: 'object', properties: { a: { type: 'string' } }, ...PRESERVE });
    expect(warnings).toEqual([expect.stringMatching(/^spec: "patternProperties" has no structural equivalent/)]);
  });

  it('maps an additionalProperties schema without properties to additionalProperties', () => {
    const { schema } = convert({
      type: 'object',
      properties: { annotations: { type: 'object', additionalProperties: { type: 'string' } } },
    });
    expect((schema.properties as Record<string, unknown>).annotations).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
  });

  it('cannot combine properties with an additionalProperties schema: keeps the properties, preserves the rest, warns', () => {
    const { schema, warnings } = convert({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: { type: 'integer' },
    });
    expect(schema).toEqual({ type: 'object', properties: { a: { type: 'string' } }, ...PRESERVE });
    expect(warnings).toEqual([expect.stringMatching(/^spec: properties together with an additionalProperties schema/)]);
  });

  it('keeps undeclared keys open below $ref and allOf too', () => {
    const { schema } = convert({
      type: 'object',
      additionalProperties: false,
      definitions: { image: { type: 'object', properties: { tag: { type: 'string' } } } },
      properties: {
        image: { $ref: '#/definitions/image' },
        merged: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { required: ['a'] }] },
      },
    });
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.image?.[PRESERVE_KEY]).toBe(true);
    expect(props.merged?.[PRESERVE_KEY]).toBe(true);
  });
});
