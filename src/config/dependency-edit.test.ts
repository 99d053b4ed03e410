import { describe, expect, it } from 'vitest';
import { withoutDependencies } from './dependency-edit.js';

const drop = (...names: string[]) => new Set(names);

describe('withoutDependencies, which cuts dependencies out of a Chart.yaml as written', () => {
  const chart = [
    'apiVersion: v2',
    'name: app # the name',
    'version: 0.1.0',
    'appVersion: 1.10',
    'dependencies:',
    '  - name: keystore',
    '    version: 7.2.0',
    '    repository: https://charts.example.invalid',
    '  # the database',
    '  - name: db',
    '    version: ~1.0.0',
    '    tags:',
    '      - storage',
    '  - name: cache',
    '    alias: c1',
    'description: after the list',
    '',
  ].join('\n');

  it('removes the first entry (and the comment lines up to the next) and keeps every other line byte for byte', () => {
    const entry = '  - name: keystore\n    version: 7.2.0\n    repository: https://charts.example.invalid\n';
    expect(withoutDependencies(chart, drop('keystore'))).toBe(chart.replace(`${entry}  # the database\n`, ''));
  });

  it('removes an entry in the middle', () => {
    expect(withoutDependencies(chart, drop('db'))).toBe(
      chart.replace('  - name: db\n    version: ~1.0.0\n    tags:\n      - storage\n', ''),
    );
  });

  it('removes the last entry, leaving what follows the list as it was', () => {
    expect(withoutDependencies(chart, drop('cache'))).toBe(chart.replace('  - name: cache\n    alias: c1\n', ''));
  });

  it('leaves an empty list, not none, when every entry goes (helm then still reads a list)', () => {
    const edited = withoutDependencies(chart, drop('keystore', 'db', 'cache'));
    expect(edited).toBe(
      [
        'apiVersion: v2',
        'name: app # the name',
        'version: 0.1.0',
        'appVersion: 1.10',
        'dependencies:',
        '  []',
        'description: after the list',
        '',
      ].join('\n'),
    );
  });

  it("edits a list at the key's own indentation, and one at the end of a file without a last line break", () => {
    const flat = 'name: app\ndependencies:\n- name: a\n  version: 1.0.0\n- name: b\n  version: 2.0.0';
    expect(withoutDependencies(flat, drop('b'))).toBe('name: app\ndependencies:\n- name: a\n  version: 1.0.0\n');
    expect(withoutDependencies(flat, drop('a'))).toBe('name: app\ndependencies:\n- name: b\n  version: 2.0.0');
  });

  it('edits a flow list', () => {
    const flow = 'name: app\ndependencies: [{name: a, version: 1.0.0}, {name: b}]\nversion: 0.1.0\n';
    expect(withoutDependencies(flow, drop('a'))).toBe('name: app\ndependencies: [{name: b}]\nversion: 0.1.0\n');
    expect(withoutDependencies(flow, drop('a', 'b'))).toBe('name: app\ndependencies: []\nversion: 0.1.0\n');
  });

  it('keeps CRLF line ends and drops a byte order mark (helm drops it too)', () => {
    const crlf = '\uFEFFname: app\r\ndependencies:\r\n  - name: a\r\n  - name: b\r\nversion: 1.0.0\r\n';
    expect(withoutDependencies(crlf, drop('a'))).toBe(
      'name: app\r\ndependencies:\r\n  - name: b\r\nversion: 1.0.0\r\n',
    );
  });

  it('returns the text itself when no entry is named, or there is no list', () => {
    expect(withoutDependencies(chart, drop('other'))).toBe(chart);
    expect(withoutDependencies('name: app\n', drop('a'))).toBe('name: app\n');
  });

  it('refuses what it cannot edit safely: YAML that does not parse, or a document that is not a mapping', () => {
    expect(withoutDependencies('name: [app\n', drop('a'))).toBeUndefined();
    expect(withoutDependencies('- name: a\n', drop('a'))).toBeUndefined();
  });
});
