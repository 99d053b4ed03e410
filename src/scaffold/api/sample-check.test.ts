import { describe, expect, it } from 'vitest';
import { structuralSchema } from '../schema/values-schema.js';
import { checkSample } from './sample-check.js';

const PRESERVE = { 'x-kubernetes-preserve-unknown-fields': true };
/** The problems of values.yaml `values` against the CRD generated from `valuesSchema`. */
const check = (valuesSchema: unknown, values: Record<string, unknown>) =>
  checkSample(values, structuralSchema(valuesSchema, values).schema);

describe('checkSample against the schema generated from values.schema.json', () => {
  it('keeps every field of a chart whose schema declares some properties and leaves the others open', () => {
    // The bitnami redis shape: image declares registry only; values.yaml also sets tag and the whole master block.
    const schema = {
      type: 'object',
      properties: {
        image: { type: 'object', properties: { registry: { type: 'string' } } },
        master: { type: 'object', properties: { count: { type: 'integer', minimum: 1 } } },
      },
    };
    const values = {
      image: { registry: 'docker.io', tag: '7.2', digest: '' },
      master: { count: 1, annotations: { a: 'b' }, resources: { limits: { cpu: '1' } } },
      global: { imageRegistry: '' },
    };
    expect(check(schema, values)).toEqual([]);
  });

  it('names each field a closed object (additionalProperties: false) would prune', () => {
    const problems = check(
      {
        type: 'object',
        additionalProperties: false,
        properties: { image: { type: 'object', additionalProperties: false, properties: { tag: { type: 'string' } } } },
      },
      { image: { tag: 'x', digest: 'y' }, extra: 1 },
    );
    expect(problems).toEqual([
      {
        path: 'spec.image.digest',
        kind: 'pruned',
        why: expect.stringMatching(/^spec\.image keeps only the fields it declares \(.*additionalProperties: false/),
      },
      {
        path: 'spec.extra',
        kind: 'pruned',
        why: expect.stringMatching(/^spec keeps only .* and extra is not one of them$/),
      },
    ]);
  });

  it('rejects wrong types, nulls without nullable and values outside enum, bounds, lengths and patterns', () => {
    const problems = checkSample(
      {
        port: '80',
        tag: null,
        tier: 'gold',
        replicas: 0,
        ratio: 1,
        step: 7,
        name: 'Ab',
        ports: [1, 'x'],
        labels: {},
        either: true,
      },
      {
        type: 'object',
        properties: {
          port: { type: 'integer' },
          tag: { type: 'string' },
          tier: { type: 'string', enum: ['web', 'db'] },
          replicas: { type: 'integer', minimum: 1 },
          ratio: { type: 'number', maximum: 1, exclusiveMaximum: true },
          step: { type: 'integer', multipleOf: 5 },
          name: { type: 'string', minLength: 3, pattern: '^[a-z]+$' },
          ports: { type: 'array', maxItems: 1, items: { type: 'integer' } },
          labels: { type: 'object', minProperties: 1, ...PRESERVE },
          either: { 'x-kubernetes-int-or-string': true },
        },
      },
    );
    expect(problems.map((p) => `${p.path}: ${p.kind}: ${p.why}`)).toEqual([
      'spec.port: rejected: is a string, not an integer (type: integer)',
      'spec.tag: rejected: null is not allowed (type: string without nullable: true)',
      'spec.tier: rejected: is not one of ["web","db"] (enum)',
      'spec.replicas: rejected: is below 1 (minimum)',
      'spec.ratio: rejected: is at or above 1 (maximum, exclusive)',
      'spec.step: rejected: is not a multiple of 5 (multipleOf)',
      'spec.name: rejected: is shorter than 3 (minLength)',
      'spec.name: rejected: does not match ^[a-z]+$ (pattern)',
      'spec.ports[1]: rejected: is a string, not an integer (type: integer)',
      'spec.ports: rejected: has more than 1 items (maxItems)',
      'spec.labels: rejected: has fewer than 1 fields (minProperties)',
      'spec.either: rejected: is a boolean, not an integer or a string (x-kubernetes-int-or-string)',
    ]);
  });

  it('accepts nulls where the schema is nullable or untyped, and says when a default replaces one', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', nullable: true },
        b: PRESERVE,
        c: { type: 'string', default: 'x' },
      },
    };
    expect(checkSample({ a: null, b: null, c: null }, schema)).toEqual([
      { path: 'spec.c', kind: 'replaced', why: expect.stringContaining('default "x" is set instead') },
    ]);
  });

  it('checks required after pruning, and never quotes the values themselves', () => {
    const problems = checkSample(
      { tls: { secret: 'hunter2-password' } },
      {
        type: 'object',
        properties: {
          tls: { type: 'object', required: ['secretName'], properties: { secretName: { type: 'string' } } },
        },
      },
    );
    expect(problems.map((p) => [p.path, p.kind])).toEqual([
      ['spec.tls.secret', 'pruned'],
      ['spec.tls', 'rejected'],
    ]);
    expect(problems[1]?.why).toBe('secretName is missing (required)');
    expect(JSON.stringify(problems)).not.toContain('hunter2');
  });

  it('evaluates value-only allOf, anyOf, oneOf and not against the same value', () => {
    const schema = {
      type: 'object',
      ...PRESERVE,
      properties: {
        any: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] },
        one: { type: 'object', ...PRESERVE, oneOf: [{ required: ['x'] }, { required: ['y'] }] },
        not: { type: 'string', not: { enum: ['root'] } },
        all: { type: 'integer', allOf: [{ minimum: 2 }] },
      },
    };
    expect(checkSample({ any: 'b1', one: { x: 1 }, not: 'me', all: 3 }, schema)).toEqual([]);
    expect(
      checkSample({ any: 'c', one: { x: 1, y: 2 }, not: 'root', all: 1 }, schema).map((p) => `${p.path}: ${p.why}`),
    ).toEqual([
      'spec.any: matches none of the anyOf branches',
      'spec.one: matches 2 oneOf branches, not exactly one',
      'spec.not: matches the schema under not',
      'spec.all: is below 2 (minimum) (in allOf)',
    ]);
  });

  it('validates every value of an additionalProperties map and leaves preserved subtrees alone', () => {
    const schema = {
      type: 'object',
      properties: {
        annotations: { type: 'object', additionalProperties: { type: 'string' } },
        free: PRESERVE,
      },
    };
    expect(checkSample({ annotations: { a: 'x', b: 2 }, free: { deep: [1, { x: null }] } }, schema)).toEqual([
      { path: 'spec.annotations.b', kind: 'rejected', why: 'is an integer, not a string (type: string)' },
    ]);
  });
});
