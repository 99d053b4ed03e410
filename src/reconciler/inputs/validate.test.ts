import { describe, expect, it } from 'vitest';
import { MAX_RELEASE_NAME, validateCustomResource } from './validate.js';

describe('validateCustomResource', () => {
  const cr = (name: string, spec?: unknown) => ({
    apiVersion: 'demo.example.com/v1alpha1',
    kind: 'Nginx',
    metadata: { name },
    ...(spec === undefined ? {} : { spec }),
  });

  it('accepts a name Helm accepts and an object spec (an absent spec is empty values)', () => {
    expect(validateCustomResource(cr('x'.repeat(MAX_RELEASE_NAME), { a: 1 }))).toEqual({ ok: true, spec: { a: 1 } });
    expect(validateCustomResource(cr('web'))).toEqual({ ok: true, spec: {} });
  });

  it('rejects a name longer than 53 characters before looking at the spec', () => {
    const v = validateCustomResource(cr('x'.repeat(54), 'not an object'));
    expect(v).toMatchObject({ ok: false, problem: 'name too long for a Helm release' });
  });

  it('rejects a spec that is not an object (null counts as absent)', () => {
    expect(validateCustomResource(cr('web', null))).toEqual({ ok: true, spec: {} });
    for (const spec of [['a'], 'text', 3]) {
      expect(validateCustomResource(cr('web', spec))).toMatchObject({ ok: false, problem: 'spec is not an object' });
    }
  });
});
