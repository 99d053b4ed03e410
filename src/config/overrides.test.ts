// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests feed literal ${VAR} references to expandEnv
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { deepMerge, expandEnv, expandOverrideValue } from './overrides.js';
import { parseOverrides } from './strvals.js';
import { yamlScalarToString } from './yaml-scalar.js';

describe('yamlScalarToString', () => {
  it.each<[unknown, string]>([
    ['text', 'text'],
    ['', ''],
    [true, 'true'],
    [false, 'false'],
    [null, ''],
    [undefined, ''],
    [3n, '3'],
    [-42n, '-42'],
    [18446744073709551615n, '18446744073709551615'],
    [1n << 64n, '1.8446744e+19'],
    [1.1, '1.1'],
    [1, '1'],
    [-2.5, '-2.5'],
    [0.1, '0.1'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [123456789.5, '1.2345679e+08'],
    [Number.POSITIVE_INFINITY, '+Inf'],
    [Number.NEGATIVE_INFINITY, '-Inf'],
    [Number.NaN, 'NaN'],
  ])('turns %s into %j, as sigs.k8s.io/yaml does for a Go string', (value, text) => {
    expect(yamlScalarToString(value)).toBe(text);
  });

  it.each([[{}], [[]], [{ a: 1 }]])('returns undefined for the non-scalar %j', (value) => {
    expect(yamlScalarToString(value)).toBeUndefined();
  });
});

describe('expandEnv', () => {
  const env = { A: 'a', A_B: 'ab', '1': 'one', 'A B': 'spaced', EMPTY: '' };

  it.each([
    ['plain', 'plain'],
    ['$A', 'a'],
    ['${A}', 'a'],
    ['x${A}y', 'xay'],
    ['$A_B', 'ab'],
    ['$A-B', 'a-B'],
    ['$A.$A', 'a.a'],
    ['$1', 'one'],
    ['${A B}', 'spaced'],
    ['$UNSET', ''],
    ['${UNSET}', ''],
    ['$EMPTY', ''],
    ['$', '$'],
    ['cost: 5$', 'cost: 5$'],
    ['$%', '$%'],
    ['$$', ''],
    ['${}', ''],
    ['${A', 'A'],
    ['$constructor', ''],
    ['${toString}', ''],
  ])('expands %j to %j like os.ExpandEnv', (value, expanded) => {
    expect(expandEnv(value, env)).toBe(expanded);
  });
});

describe('expandOverrideValue', () => {
  it('expands environment variables', () => {
    expect(expandOverrideValue('image', '$IMAGE:${TAG}', { IMAGE: 'nginx', TAG: '1.27' })).toBe('nginx:1.27');
  });

  describe('when the value holds a Go template', () => {
    it('fails naming the key and saying templates are not supported yet', () => {
      expect(() => expandOverrideValue('image.tag', '{{ ("$IMAGE" | split ":")._1 }}', {})).toThrow(ConfigError);
      expect(() => expandOverrideValue('image.tag', '{{ .x }}', {})).toThrow(
        /overrideValues "image.tag": Go templates .* not supported yet/,
      );
    });

    it('also fails when the template comes from an environment variable', () => {
      expect(() => expandOverrideValue('a', '$T', { T: '{{ now }}' })).toThrow(/not supported yet/);
    });
  });
});

describe('parseOverrides', () => {
  it.each<[Record<string, string>, unknown]>([
    [{ replicaCount: '3' }, { replicaCount: '3' }],
    [{ 'image.tag': '1.2' }, { image: { tag: '1.2' } }],
    [{ 'image.tag': '1', 'image.repository': 'r' }, { image: { tag: '1', repository: 'r' } }],
    [{ 'a.b[0]': 'x' }, { a: { b: ['x'] } }],
    [{ 'list[2]': 'c' }, { list: [null, null, 'c'] }],
    [{ 'list[0]': 'a', 'list[1]': 'b' }, { list: ['a', 'b'] }],
    [{ 'list[0].name': 'n', 'list[0].port': '80' }, { list: [{ name: 'n', port: '80' }] }],
    [{ 'm[0][1]': 'x' }, { m: [[null, 'x']] }],
    [{ tags: '{a,b}' }, { tags: ['a', 'b'] }],
    [{ a: 'x,b=y' }, { a: 'x', b: 'y' }],
    [{ a: 'x,' }, { a: 'x' }],
    [{ a: 'x\\,y' }, { a: 'x,y' }],
    [{ a: 'k=v' }, { a: 'k=v' }],
    [{ 'a\\.b': 'v' }, { 'a.b': 'v' }],
    [{ a: '' }, { a: '' }],
    [{ 'a.b': 'x', 'a.c': 'y' }, { a: { b: 'x', c: 'y' } }],
    [{ '__proto__.polluted': 'yes' }, JSON.parse('{"__proto__":{"polluted":"yes"}}')],
  ])('parses %j like helm --set-string into %j', (overrides, tree) => {
    expect(parseOverrides(overrides)).toEqual(tree);
  });

  it('never pollutes Object.prototype', () => {
    parseOverrides({ '__proto__.polluted': 'yes', 'constructor.prototype.polluted': 'yes' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  describe('when Helm would reject an override', () => {
    it.each<[Record<string, string>, RegExp]>([
      [{ a: 'x,y' }, /key "y" has no value/],
      [{ a: 'x,,b=c' }, /key "" has no value \(cannot end with ,\)/],
      [{ a: '{x,y' }, /list must terminate with '}'/],
      [{ 'a[x]': 'v' }, /"x" is not a number/],
      [{ 'a[-1]': 'v' }, /negative -1 index not allowed/],
      [{ 'a[70000]': 'v' }, /greater than maximum supported index of 65536/],
      [{ 'a[0': 'v' }, /missing "\]"/],
      [{ 'a[0]x': 'v' }, /unexpected data at end of array index: "x"/],
      [{ 'a.': 'v' }, /key map "a" has no value/],
      [{ a: 'x', 'a.b': 'y' }, /"a" already holds a string, so it cannot also be a map/],
      [{ a: 'x', 'a[0]': 'y' }, /"a" already holds a string, so it cannot also be a list/],
      [{ [Array.from({ length: 32 }, (_, i) => `k${i}`).join('.')]: 'v' }, /at most 30 levels/],
    ])('fails for %j, naming the key: %s', (overrides, why) => {
      expect(() => parseOverrides(overrides)).toThrow(ConfigError);
      expect(() => parseOverrides(overrides)).toThrow(why);
      expect(() => parseOverrides(overrides)).toThrow(
        `overrideValues ${JSON.stringify(Object.keys(overrides).at(-1))}`,
      );
    });

    it('does not echo the value, which may hold a secret', () => {
      expect(() => parseOverrides({ password: 's3cret,oops' })).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
      );
    });
  });
});

describe('deepMerge', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['override wins for a scalar', { a: '1', b: '2' }, { a: 'x' }, { a: 'x', b: '2' }],
    [
      'maps merge recursively',
      { image: { repo: 'r', tag: '1' } },
      { image: { tag: '2' } },
      { image: { repo: 'r', tag: '2' } },
    ],
    ['a list replaces a list', { l: ['a', 'b', 'c'] }, { l: ['x'] }, { l: ['x'] }],
    ['a scalar replaces a map', { a: { b: '1' } }, { a: 'x' }, { a: 'x' }],
    ['a map replaces a scalar', { a: 'x' }, { a: { b: '1' } }, { a: { b: '1' } }],
    ['null replaces a value', { a: { b: '1' } }, { a: null }, { a: null }],
    ['keys only in override are added', {}, { a: { b: ['1'] } }, { a: { b: ['1'] } }],
  ])('%s', (_name, base, override, merged) => {
    expect(deepMerge(base, override)).toEqual(merged);
  });

  it('never mutates its inputs and shares no objects with them', () => {
    const base = { image: { repo: 'r', tag: '1' }, list: [{ a: '1' }] };
    const override = { image: { tag: '2' }, extra: { x: ['y'] } };
    const [baseBefore, overrideBefore] = [structuredClone(base), structuredClone(override)];
    const merged = deepMerge(base, override);
    expect(base).toEqual(baseBefore);
    expect(override).toEqual(overrideBefore);
    expect(merged.list).not.toBe(base.list);
    expect(merged.extra).not.toBe(override.extra);
  });
});
