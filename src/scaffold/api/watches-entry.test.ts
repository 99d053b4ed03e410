import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWatches } from '../../config/watches.js';
import { addWatchEntry } from './watches-entry.js';

const entry = { group: 'charts.example.com', version: 'v1alpha1', kind: 'Nginx', chart: 'charts/nginx' };
const BLOCK = '- group: charts.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: charts/nginx\n';

const COMMENTED = `# Use the 'create api' subcommand to add watches to this file.
# The memcached kind, reconciled every 30s.
- group: cache.example.com   # the qualified group
  version: v1alpha1
  kind: Memcached
  chart: charts/memcached
  reconcilePeriod: 30s       # faster than the flag
  overrideValues:
    image.repository: "quay.io/x/memcached"   # pinned
# +kubebuilder:scaffold:watch
# trailing comment
`;

describe('when watches.yaml has the scaffold marker', () => {
  it('inserts the entry above it and keeps every other byte, comments included', () => {
    const { text, changed } = addWatchEntry(COMMENTED, entry, { force: false });
    expect(changed).toBe(true);
    const at = COMMENTED.indexOf('# +kubebuilder');
    expect(text).toBe(COMMENTED.slice(0, at) + BLOCK + COMMENTED.slice(at));
  });

  it('works on the file init writes (comments only)', () => {
    const init = "# Use the 'create api' subcommand to add watches to this file.\n# +kubebuilder:scaffold:watch\n";
    expect(addWatchEntry(init, entry, { force: false }).text).toBe(
      `# Use the 'create api' subcommand to add watches to this file.\n${BLOCK}# +kubebuilder:scaffold:watch\n`,
    );
  });
});

describe('when watches.yaml has no marker', () => {
  it('appends the entry at the end, at the indentation of the existing list', () => {
    const indented = '# hand written\n  - group: a.example.com\n    version: v1\n    kind: A\n    chart: charts/a\n';
    const { text } = addWatchEntry(indented, entry, { force: false });
    expect(text).toBe(
      `${indented}  - group: charts.example.com\n    version: v1alpha1\n    kind: Nginx\n    chart: charts/nginx\n`,
    );
    expect(addWatchEntry('', entry, { force: false }).text).toBe(BLOCK);
    expect(addWatchEntry('# x', entry, { force: false }).text).toBe(`# x\n${BLOCK}`);
  });

  it('rewrites a flow-style list through the YAML document', () => {
    const { text } = addWatchEntry('# empty for now\n[]\n', entry, { force: false });
    expect(text).toContain('# empty for now');
    expect(text).toContain('- group: charts.example.com');
  });
});

describe('when the kind is already watched', () => {
  it('changes nothing for the same chart', () => {
    const once = addWatchEntry(COMMENTED, entry, { force: false }).text;
    expect(addWatchEntry(once, entry, { force: false })).toEqual({ text: once, changed: false });
  });

  it('refuses another chart without --force and repoints it with --force, keeping its other keys', () => {
    const other = { ...entry, group: 'cache.example.com', kind: 'Memcached', chart: 'charts/memcached2' };
    expect(() => addWatchEntry(COMMENTED, other, { force: false })).toThrow(
      /watches.yaml already maps Memcached \(cache.example.com\/v1alpha1\) to charts\/memcached: pass --force/,
    );
    const { text } = addWatchEntry(COMMENTED, other, { force: true });
    expect(text).toContain('chart: charts/memcached2');
    expect(text).toContain('reconcilePeriod: 30s # faster than the flag');
    expect(text).toContain('# +kubebuilder:scaffold:watch');
  });
});

describe('the result', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'watches-entry-test-'));
    for (const chart of ['memcached', 'nginx']) {
      await mkdir(join(dir, 'charts', chart), { recursive: true });
      await writeFile(join(dir, 'charts', chart, 'Chart.yaml'), `apiVersion: v2\nname: ${chart}\nversion: 0.1.0\n`);
    }
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads with loadWatches, old entry unchanged and new one added', () => {
    const { text } = addWatchEntry(COMMENTED, entry, { force: false });
    const { watches, warnings } = parseWatches(text, { file: 'watches.yaml', env: {}, cwd: dir });
    expect(warnings).toEqual([]);
    expect(watches.map((w) => [w.group, w.kind, w.chart, w.reconcilePeriodMs])).toEqual([
      ['cache.example.com', 'Memcached', join(dir, 'charts/memcached'), 30_000],
      ['charts.example.com', 'Nginx', join(dir, 'charts/nginx'), undefined],
    ]);
  });

  it('refuses a watches.yaml that is not a list', () => {
    expect(() => addWatchEntry('a: 1\n', entry, { force: false })).toThrow(
      /watches.yaml: the top level must be a list/,
    );
  });
});
