import { describe, expect, it } from 'vitest';
import { ChartLoadError } from './chart-load-error.js';
import { helmignoreRules, isIgnored } from './helmignore.js';

/** Entries of a chart (path, is a folder) that each .helmignore below is asked about. */
const ENTRIES: readonly [string, boolean][] = [
  ['Chart.yaml', false],
  ['charts', true],
  ['charts/a.tgz', false],
  ['charts/sub', true],
  ['charts/sub/Chart.yaml', false],
  ['templates', true],
  ['templates/.hidden', false],
  ['templates/x.yaml', false],
  ['templates/sub/.x', false],
  ['.git', true],
  ['.git/config', false],
  ['docs/a.md', false],
  ['docs', true],
  ['a.tmp', false],
  ['dir/a.tmp', false],
  ['values.yaml', false],
  ['x/charts', true],
  ['.helmignore', false],
];

/**
 * A .helmignore, and the entries helm 3.22's ignore package (ignore.Parse, AddDefaults, Rules.Ignore) left out, or
 * 'error' where its Parse failed.
 */
const HELM_ANSWERS: readonly [string, string, readonly string[] | 'error'][] = [
  ['charts dir', 'charts/\n', ['charts', 'templates/.hidden', 'x/charts']],
  ['root slash', '/charts/a.tgz\n/values.yaml\n', ['charts/a.tgz', 'templates/.hidden', 'values.yaml']],
  ['basename glob', '*.tmp\n*.tgz\n', ['charts/a.tgz', 'templates/.hidden', 'a.tmp', 'dir/a.tmp']],
  ['structural', 'docs/*.md\ncharts/*\n', ['charts/a.tgz', 'charts/sub', 'templates/.hidden', 'docs/a.md']],
  [
    'negation',
    '*.tgz\n!charts/\n',
    [
      'Chart.yaml',
      'charts/a.tgz',
      'charts/sub',
      'charts/sub/Chart.yaml',
      'templates',
      'templates/.hidden',
      'templates/x.yaml',
      'templates/sub/.x',
      '.git',
      '.git/config',
      'docs/a.md',
      'docs',
      'a.tmp',
      'dir/a.tmp',
      'values.yaml',
      '.helmignore',
    ],
  ],
  [
    'negation file',
    '!Chart.yaml\n',
    [
      'charts',
      'charts/a.tgz',
      'charts/sub',
      'templates',
      'templates/.hidden',
      'templates/x.yaml',
      'templates/sub/.x',
      '.git',
      '.git/config',
      'docs/a.md',
      'docs',
      'a.tmp',
      'dir/a.tmp',
      'values.yaml',
      'x/charts',
      '.helmignore',
    ],
  ],
  ['comment and blanks', '# charts/\n\n   \n  .git/  \n', ['templates/.hidden', '.git']],
  ['crlf and bom', '\ufeffcharts/\r\nvalues.yaml\r\n', ['charts', 'templates/.hidden', 'values.yaml', 'x/charts']],
  ['dotfiles', '.*\n', ['templates/.hidden', 'templates/sub/.x', '.git', '.helmignore']],
  ['double star', '**/x\n', 'error'],
  ['bad pattern', '[\n', 'error'],
  ['empty', '', ['templates/.hidden']],
  ['escape', '\\*.tmp\nvalues.yam[l]\n', ['templates/.hidden', 'values.yaml']],
];

describe("helmignoreRules and isIgnored, helm's .helmignore", () => {
  it.each(HELM_ANSWERS)('%s: leaves out what helm leaves out', (_, text, want) => {
    if (want === 'error') {
      expect(() => helmignoreRules(text)).toThrow(ChartLoadError);
      return;
    }
    const rules = helmignoreRules(text);
    expect(ENTRIES.filter(([path, dir]) => isIgnored(rules, path, dir)).map(([path]) => path)).toEqual(want);
  });

  it("without a .helmignore, leaves out only the dotfiles of templates/ (helm's default rule)", () => {
    const rules = helmignoreRules(undefined);
    expect(ENTRIES.filter(([path, dir]) => isIgnored(rules, path, dir)).map(([path]) => path)).toEqual([
      'templates/.hidden',
    ]);
  });
});
