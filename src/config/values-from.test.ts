// The values-from annotation: YAML or JSON lists of Flux-style references with Flux's defaults; everything malformed
// is VALUES_FROM_INVALID naming the item and the field; placeString puts a value verbatim at a --set style path.
import { describe, expect, it } from 'vitest';
import { parseValuesFrom, placeString, ValuesFromError } from './values-from.js';
import type { OverrideTree } from './values-tree.js';

function caught(fn: () => unknown): ValuesFromError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValuesFromError) return err;
    throw err;
  }
  throw new Error('expected a ValuesFromError');
}

describe('parseValuesFrom', () => {
  it('reads a YAML list with Flux defaults: valuesKey values.yaml, not optional, no targetPath', () => {
    const text = '- kind: Secret\n  name: db\n- kind: ConfigMap\n  name: base.values\n  valuesKey: app.yaml\n';
    expect(parseValuesFrom(text)).toEqual([
      { kind: 'Secret', name: 'db', valuesKey: 'values.yaml', optional: false },
      { kind: 'ConfigMap', name: 'base.values', valuesKey: 'app.yaml', optional: false },
    ]);
  });

  it('reads a JSON list with targetPath and optional', () => {
    const text = JSON.stringify([
      { kind: 'Secret', name: 'db', valuesKey: 'password', targetPath: 'db.auth[0].password', optional: true },
    ]);
    expect(parseValuesFrom(text)).toEqual([
      { kind: 'Secret', name: 'db', valuesKey: 'password', targetPath: 'db.auth[0].password', optional: true },
    ]);
  });

  it.each([undefined, '', '  \n'])('has no references when the annotation is %j', (text) => {
    expect(parseValuesFrom(text)).toEqual([]);
  });

  it.each([
    ['not YAML', '- kind: [Secret\n', /is not valid YAML or JSON \(line \d+, column \d+\)/],
    ['a map, not a list', 'kind: Secret\nname: db\n', /must be a list of references/],
    ['an item that is no mapping', '- Secret/db\n', /item 1: must be a mapping/],
    [
      'an unknown field',
      '- {kind: Secret, name: db, valueKey: x}\n',
      /item 1: unknown field "valueKey" \(the fields are kind, name, valuesKey, targetPath, optional\)/,
    ],
    ['another kind', '- {kind: Namespace, name: db}\n', /item 1: kind must be ConfigMap or Secret, not "Namespace"/],
    ['a lower-case kind', '- {kind: secret, name: db}\n', /kind must be ConfigMap or Secret, not "secret"/],
    ['no name', '- {kind: Secret}\n', /item 1: name must be the name of a Secret/],
    ['an invalid name', '- {kind: Secret, name: Db_1}\n', /name must be the name of a Secret .* not "Db_1"/],
    [
      'a bad valuesKey',
      '- {kind: Secret, name: db, valuesKey: "a/b"}\n',
      /valuesKey must be a key of the Secret's data/,
    ],
    [
      'a string optional',
      '- {kind: Secret, name: db, optional: "maybe"}\n',
      /optional must be true or false, not "maybe"/,
    ],
    ['a targetPath with "="', '- {kind: Secret, name: db, targetPath: "a=b"}\n', /targetPath must be a dotted path/],
    [
      'a targetPath ending in "."',
      '- {kind: Secret, name: db, targetPath: "a."}\n',
      /targetPath "a\.": key map "a" has no value/,
    ],
    ['a bad index', '- {kind: Secret, name: db, targetPath: "a[x]"}\n', /targetPath must be a dotted path/],
  ])('refuses %s with VALUES_FROM_INVALID, naming the item and saying what to do', (_what, text, message) => {
    const err = caught(() => parseValuesFrom(text));
    expect(err.code).toBe('VALUES_FROM_INVALID');
    expect(err.message).toMatch(message);
    expect(err.message).toContain('helm.sdk.operatorframework.io/values-from');
    expect(err.message).toContain('fix the annotation');
  });

  it('names the failing item of several', () => {
    const err = caught(() => parseValuesFrom('- {kind: Secret, name: a}\n- {kind: Secret, name: ""}\n'));
    expect(err.message).toMatch(/item 2: name must be/);
  });
});

describe('placeString', () => {
  it.each([
    ['a.b', { a: { b: 'v' } }],
    ['a.b[1]', { a: { b: [null, 'v'] } }],
    ['list[0].name', { list: [{ name: 'v' }] }],
    ['a\\.b', { 'a.b': 'v' }],
  ])('places the value at %s with Helm --set key syntax', (path, expected) => {
    const tree: OverrideTree = {};
    placeString(tree, path, 'v');
    expect(tree).toEqual(expected);
  });

  it.each(['a,b=c', '{x,y}', 'back\\slash', 'true', '0123', 'multi\nline: text', ''])(
    'keeps the value %j verbatim, as a string',
    (value) => {
      const tree: OverrideTree = {};
      placeString(tree, 'db.password', value);
      expect(tree).toEqual({ db: { password: value } });
    },
  );

  it('replaces what the path held and keeps its siblings', () => {
    const tree = { db: { host: 'h', password: 'old' } } as unknown as OverrideTree;
    placeString(tree, 'db.password', 'new');
    expect(tree).toEqual({ db: { host: 'h', password: 'new' } });
  });
});
