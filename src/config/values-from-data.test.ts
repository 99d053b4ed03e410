// referencedValues: the references' data merged in order (Flux's semantics), targetPath placing one string,
// optional references skipped, every problem VALUES_FROM_UNRESOLVED naming the reference and never its data, and
// the strings read from Secrets collected for redaction.
import { describe, expect, it } from 'vitest';
import { ValuesFromError, type ValuesReference } from './values-from.js';
import { type FetchedReference, referencedValues } from './values-from-data.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const ref = (r: Partial<ValuesReference> & Pick<ValuesReference, 'kind' | 'name'>): ValuesReference => ({
  valuesKey: 'values.yaml',
  optional: false,
  ...r,
});
const configMap = (data: Record<string, string>) => ({ data });
const secret = (data: Record<string, string>) => ({
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

function caught(fetched: FetchedReference[]): ValuesFromError {
  try {
    referencedValues('apps', fetched);
  } catch (err) {
    if (err instanceof ValuesFromError) return err;
    throw err;
  }
  throw new Error('expected a ValuesFromError');
}

describe('referencedValues', () => {
  it('merges the references in order, later ones winning key by key, deeply', () => {
    const got = referencedValues('apps', [
      {
        ref: ref({ kind: 'ConfigMap', name: 'base' }),
        object: configMap({ 'values.yaml': 'a: 1\nb: {c: 1, d: 1}\n' }),
      },
      { ref: ref({ kind: 'Secret', name: 'over' }), object: secret({ 'values.yaml': 'b: {d: 2}\ne: [x]\n' }) },
    ]);
    expect(got.values).toEqual({ a: 1, b: { c: 1, d: 2 }, e: ['x'] });
  });

  it('reads values as Helm does (YAML 1.1: yes is true, timestamps stay strings)', () => {
    const got = referencedValues('apps', [
      {
        ref: ref({ kind: 'ConfigMap', name: 'c' }),
        object: configMap({ 'values.yaml': 'enabled: yes\nday: 2001-12-14\n' }),
      },
    ]);
    expect(got.values).toEqual({ enabled: true, day: '2001-12-14' });
  });

  it('places a targetPath value as one string over what the references before it set', () => {
    const got = referencedValues('apps', [
      {
        ref: ref({ kind: 'ConfigMap', name: 'c' }),
        object: configMap({ 'values.yaml': 'db: {host: h, port: 5432}\n' }),
      },
      {
        ref: ref({ kind: 'Secret', name: 's', valuesKey: 'port', targetPath: 'db.port' }),
        object: secret({ port: '6432' }),
      },
    ]);
    expect(got.values).toEqual({ db: { host: 'h', port: '6432' } });
  });

  it('takes an empty key as no values', () => {
    const got = referencedValues('apps', [
      { ref: ref({ kind: 'ConfigMap', name: 'c' }), object: configMap({ 'values.yaml': '' }) },
    ]);
    expect(got.values).toEqual({});
  });

  it('skips an optional reference whose object or key is missing', () => {
    const got = referencedValues('apps', [
      { ref: ref({ kind: 'Secret', name: 'gone', optional: true }), object: undefined },
      { ref: ref({ kind: 'ConfigMap', name: 'c', valuesKey: 'other', optional: true }), object: configMap({ a: 'x' }) },
    ]);
    expect(got).toEqual({ values: {}, secrets: [], layers: [] });
  });

  describe('collects what came from Secrets, for redaction', () => {
    it('every string (whatever its length) and numbers of 4 or more characters; no booleans, no ConfigMap data', () => {
      const got = referencedValues('apps', [
        { ref: ref({ kind: 'ConfigMap', name: 'c' }), object: configMap({ 'values.yaml': 'public: visible-text\n' }) },
        {
          ref: ref({ kind: 'Secret', name: 's' }),
          object: secret({ 'values.yaml': 'pw: ab\npin: 123456\nshort: 12\nflag: true\nlist: [tok1]\n' }),
        },
        {
          ref: ref({ kind: 'Secret', name: 't', valuesKey: 'k', targetPath: 'x' }),
          object: secret({ k: 'raw,value' }),
        },
      ]);
      expect([...got.secrets].sort()).toEqual(['123456', 'ab', 'raw,value', 'tok1']);
    });
  });

  describe('fails with VALUES_FROM_UNRESOLVED, naming the reference and what to do', () => {
    it('for a missing object', () => {
      const err = caught([{ ref: ref({ kind: 'Secret', name: 'db' }), object: undefined }]);
      expect(err.code).toBe('VALUES_FROM_UNRESOLVED');
      expect(err.message).toMatch(/Secret apps\/db not found: create it .*or mark the reference optional: true/);
      expect(err.message).toContain('nothing was installed or changed');
    });

    it('for a missing key, listing the keys there are', () => {
      const err = caught([{ ref: ref({ kind: 'ConfigMap', name: 'c' }), object: configMap({ b: '1', a: '2' }) }]);
      expect(err.message).toMatch(
        /ConfigMap apps\/c has no key "values.yaml" \(its keys: a, b\): add it, or set valuesKey/,
      );
    });

    it('for data that is not YAML: where, but never the data', () => {
      const err = caught([
        { ref: ref({ kind: 'Secret', name: 's' }), object: secret({ 'values.yaml': 'pw: [hunter2-secret\n' }) },
      ]);
      expect(err.message).toMatch(/Secret "s" key "values.yaml" in apps is not valid YAML \(line \d+, column \d+\)/);
      expect(err.message).not.toContain('hunter2');
    });

    it.each([
      ['a list', '- a\n- b\n'],
      ['a single string', 'just-text\n'],
    ])('for data that is %s, not a map', (shape, text) => {
      const err = caught([{ ref: ref({ kind: 'Secret', name: 's' }), object: secret({ 'values.yaml': text }) }]);
      expect(err.message).toContain(`holds ${shape}, not a map of values: make it a YAML map, or set targetPath`);
      expect(err.message).not.toContain('just-text');
    });

    it('for a targetPath that conflicts with what the references before it set', () => {
      const err = caught([
        { ref: ref({ kind: 'ConfigMap', name: 'c' }), object: configMap({ 'values.yaml': 'db: text\n' }) },
        {
          ref: ref({ kind: 'Secret', name: 's', valuesKey: 'k', targetPath: 'db.password' }),
          object: secret({ k: 'pw-value' }),
        },
      ]);
      expect(err.message).toMatch(/cannot be placed at targetPath "db.password": "db" already holds a string/);
      expect(err.message).not.toContain('pw-value');
    });
  });
});
