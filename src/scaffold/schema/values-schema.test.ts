import { describe, expect, it } from 'vitest';
import { resolvePointer } from './keywords.js';
import { structuralSchema } from './values-schema.js';

const PRESERVE_KEY = 'x-kubernetes-preserve-unknown-fields';
const PRESERVE = { [PRESERVE_KEY]: true };
const convert = (schema: unknown, defaults: unknown = {}) => structuralSchema(schema, defaults);

describe('when values.schema.json describes typed properties', () => {
  it('keeps types, validations, descriptions and scalar defaults, and drops annotations', () => {
    const { schema, warnings } = convert({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'https://example.com/values',
      title: 'Values',
      type: 'object',
      additionalProperties: false,
      properties: {
        replicaCount: { type: 'integer', minimum: 1, maximum: 10, default: 1, description: 'pods', examples: [3] },
        name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z]+$', $comment: 'x' },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        tier: { type: 'string', enum: ['web', 'db'] },
        mode: { const: 'fast' },
        email: { type: 'string', format: 'email' },
        ports: { type: 'array', minItems: 1, items: { type: 'integer' } },
      },
    });
    expect(warnings).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        replicaCount: { type: 'integer', minimum: 1, maximum: 10, default: 1, description: 'pods' },
        name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z]+$' },
        ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
        tier: { type: 'string', enum: ['web', 'db'] },
        mode: PRESERVE, // `const` without a type: open, as any type-less node
        email: { type: 'string', format: 'email' },
        ports: { type: 'array', minItems: 1, items: { type: 'integer' } },
      },
    });
  });

  it('keeps draft-4 boolean exclusive bounds and turns const into a one-value enum', () => {
    const { schema } = convert({
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        s: { type: 'string', const: 'x' },
      },
    });
    expect(schema.properties).toEqual({
      n: { type: 'integer', minimum: 0, exclusiveMinimum: true },
      s: { type: 'string', enum: ['x'] },
    });
  });

  it('requires of CRs only the required properties that values.yaml does not set', () => {
    const { schema } = convert(
      {
        type: 'object',
        required: ['image', 'host', 'tls'],
        properties: {
          image: {
            type: 'object',
            required: ['repository', 'tag'],
            properties: { repository: { type: 'string' }, tag: { type: 'string' } },
          },
          host: { type: 'string' },
          tls: { type: 'boolean' },
        },
      },
      { image: { repository: 'nginx' }, tls: null },
    );
    expect(schema.required).toEqual(['host', 'tls']);
    expect((schema.properties as Record<string, { required?: string[] }>).image?.required).toEqual(['tag']);
  });
});

describe('when types are unions or missing', () => {
  it('turns [x, "null"] into x + nullable and integer|string into int-or-string', () => {
    const { schema } = convert({
      type: 'object',
      properties: {
        tag: { type: ['string', 'null'] },
        port: { type: ['integer', 'string'] },
        anyPort: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
        maybe: { oneOf: [{ type: 'null' }, { type: 'integer', minimum: 1 }] },
      },
    });
    expect(schema.properties).toEqual({
      tag: { type: 'string', nullable: true },
      port: { 'x-kubernetes-int-or-string': true },
      anyPort: { 'x-kubernetes-int-or-string': true },
      maybe: { type: 'integer', minimum: 1, nullable: true },
    });
  });

  it('leaves a type-less node open but infers object from properties', () => {
    const { schema } = convert({
      properties: { anything: { description: 'd' }, nested: { properties: { x: { type: 'boolean' } } } },
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        anything: { description: 'd', ...PRESERVE },
        nested: { type: 'object', properties: { x: { type: 'boolean' } }, ...PRESERVE },
      },
      ...PRESERVE,
    });
  });

  it('falls back to preserve-unknown for other unions and for combinators holding types, with warnings', () => {
    const { schema, warnings } = convert({
      type: 'object',
      properties: {
        a: { type: ['string', 'boolean'] },
        b: { oneOf: [{ type: 'string' }, { type: 'object', properties: { x: { type: 'string' } } }] },
        c: { type: 'string', not: { type: 'integer' } },
      },
    });
    expect(schema.properties).toEqual({ a: PRESERVE, b: PRESERVE, c: PRESERVE });
    expect(warnings).toEqual([
      expect.stringMatching(/^spec\.a: type \["string","boolean"\] .* accepts any value$/),
      expect.stringMatching(/^spec\.b: allOf\/anyOf\/oneOf\/not holding types/),
      expect.stringMatching(/^spec\.c: allOf\/anyOf\/oneOf\/not holding types/),
    ]);
  });

  it('keeps combinators that hold value validations only', () => {
    const { schema, warnings } = convert({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
    });
    expect(warnings).toEqual([]);
    expect(schema.oneOf).toEqual([{ required: ['a'] }, { required: ['b'] }]);
  });
});

describe('when the schema uses $ref and allOf', () => {
  it('inlines local refs to definitions and $defs and merges compatible allOf branches', () => {
    const { schema, warnings } = convert({
      type: 'object',
      definitions: { port: { type: 'integer', minimum: 1 } },
      $defs: { named: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      properties: {
        http: { $ref: '#/definitions/port', description: 'http port' },
        owner: { allOf: [{ $ref: '#/$defs/named' }, { properties: { email: { type: 'string' } } }] },
      },
    });
    expect(warnings).toEqual([]);
    expect(schema.properties).toEqual({
      http: { type: 'integer', minimum: 1, description: 'http port' },
      owner: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: 'string' } },
        required: ['name'],
        ...PRESERVE,
      },
    });
  });

  it('stops a recursive ref with preserve-unknown and a warning', () => {
    const { schema, warnings } = convert({
      type: 'object',
      definitions: { node: { type: 'object', properties: { child: { $ref: '#/definitions/node' } } } },
      properties: { tree: { $ref: '#/definitions/node' } },
    });
    expect(schema.properties).toEqual({ tree: { type: 'object', properties: { child: PRESERVE }, ...PRESERVE } });
    expect(warnings).toEqual([expect.stringMatching(/^spec\.tree\.child: \$ref #\/definitions\/node is recursive/)]);
  });

  it('does not follow remote refs', () => {
    const { schema, warnings } = convert({ type: 'object', properties: { x: { $ref: 'https://example.com/s.json' } } });
    expect(schema.properties).toEqual({ x: PRESERVE });
    expect(warnings[0]).toMatch(/not a local/);
  });
});

describe('what Kubernetes forbids', () => {
  it('drops uniqueItems, unknown formats, unsupported keywords and defaults that do not fit, with warnings', () => {
    const { schema, warnings } = convert({
      type: 'object',
      properties: {
        list: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        when: { type: 'string', format: 'iso-week' },
        obj: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x' }, if: { required: ['a'] } },
        tier: { type: 'string', enum: ['a'], default: 'b' },
        tuple: { type: 'array', items: [{ type: 'string' }] },
        noItems: { type: 'array' },
      },
    });
    expect(schema.properties).toEqual({
      list: { type: 'array', items: { type: 'string' } },
      when: { type: 'string' },
      obj: { type: 'object', properties: { a: { type: 'string' } }, ...PRESERVE },
      tier: { type: 'string', enum: ['a'] },
      tuple: { type: 'array', items: PRESERVE },
      noItems: { type: 'array', items: PRESERVE },
    });
    expect(warnings).toHaveLength(6);
    expect(warnings.join('\n')).toMatch(
      /uniqueItems[\s\S]*iso-week[\s\S]*"if"[\s\S]*default[\s\S]*default[\s\S]*tuple/,
    );
  });

  it('replaces a root that is not an object with an open object', () => {
    expect(convert({ type: 'string' }).schema).toEqual({ type: 'object', ...PRESERVE });
  });
});

describe('resolvePointer', () => {
  it('follows JSON pointers with escapes and refuses non-local refs', () => {
    const doc = { definitions: { 'a/b': { x: [1, 2] }, 'c~d': 3 } };
    expect(resolvePointer(doc, '#/definitions/a~1b/x/1')).toBe(2);
    expect(resolvePointer(doc, '#/definitions/c~0d')).toBe(3);
    expect(resolvePointer(doc, '#')).toBe(doc);
    expect(resolvePointer(doc, 'other.json#/definitions')).toBeUndefined();
    expect(resolvePointer(doc, '#/missing')).toBeUndefined();
  });
});
