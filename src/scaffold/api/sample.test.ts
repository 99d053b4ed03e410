import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHelm, SKIP_REASON, scaffoldHelm } from '../../../test/support/scaffold-helm.js';
import { parse } from '../../config/yaml.js';
import { renderSample, sampleFileName } from './sample.js';

const NGINX = join(import.meta.dirname, '..', '..', '..', 'charts', 'nginx');
const helmBin = findHelm();
const sample = (valuesText: string) =>
  renderSample({ apiVersion: 'charts.example.com/v1alpha1', kind: 'Nginx', chartPath: 'charts/nginx', valuesText });

describe('the sample CR', () => {
  it('is named <group>_<version>_<lowercase kind>.yaml', () => {
    expect(sampleFileName('cache', 'v1alpha1', 'MemCached')).toBe('cache_v1alpha1_memcached.yaml');
  });

  it('has apiVersion, kind and the <kind>-sample name', () => {
    expect(parse(sample('a: 1\n').text)).toEqual({
      apiVersion: 'charts.example.com/v1alpha1',
      kind: 'Nginx',
      metadata: { name: 'nginx-sample' },
      spec: { a: 1 },
    });
  });

  it('keeps the comments of values.yaml under spec, after the provenance comment', () => {
    const { text, warnings } = sample('# how many\nreplicas: 2 # inline\n\nimage:\n  # the tag\n  tag: "1.0"\n');
    expect(text).toBe(
      'apiVersion: charts.example.com/v1alpha1\nkind: Nginx\nmetadata:\n  name: nginx-sample\nspec:\n' +
        '  # Default values copied from charts/nginx/values.yaml\n' +
        '  # how many\n  replicas: 2 # inline\n\n  image:\n    # the tag\n    tag: "1.0"\n',
    );
    expect(warnings).toEqual([]);
  });

  it('gives spec: {} for an empty values.yaml or one with only comments', () => {
    expect(sample('').text).toMatch(/\nspec: \{\}\n$/);
    expect(parse(sample('# nothing here\n').text).spec).toEqual({});
  });

  it('keeps block scalars, anchors and flow collections reading the same', () => {
    const values = 'script: |\n  echo hi\n\n  exit 0\nbase: &b {x: 1, y: [1, 2]}\ncopy: *b\nfolded: >-\n  a\n  b\n';
    const out = sample(values);
    expect(out.warnings).toEqual([]);
    expect(parse(out.text).spec).toEqual(parse(values));
  });

  it('drops a leading document marker and directive but keeps comments before them', () => {
    const out = sample('# top\n%YAML 1.2\n---\na: 1\n');
    expect(out.text).toContain('  # top\n  a: 1\n');
    expect(parse(out.text).spec).toEqual({ a: 1 });
  });

  it('falls back to plain YAML with a warning when the text cannot be indented as it is', () => {
    const out = sample('a: 1\n...\n');
    expect(parse(out.text).spec).toEqual({ a: 1 });
    expect(out.warnings[0]).toMatch(/could not be copied with its comments/);
  });

  it('refuses a values.yaml that is not a mapping', () => {
    expect(() => sample('- a\n')).toThrow(/charts\/nginx\/values.yaml must be a mapping/);
  });
});

describe('with real charts', () => {
  it('parses to the values of the repository nginx chart', async () => {
    const values = await readFile(join(NGINX, 'values.yaml'), 'utf8');
    const out = sample(values);
    expect(out.warnings).toEqual([]);
    expect(parse(out.text).spec).toEqual(parse(values));
    expect(out.text).toContain("  # Defaults; a CR's spec overrides them.");
  });

  describe.skipIf(helmBin === undefined)(`a helm create chart ${helmBin === undefined ? SKIP_REASON : ''}`, () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sample-test-'));
      const helm = await scaffoldHelm(helmBin ?? 'helm', dir);
      await helm.create({ name: 'web', dir, signal: new AbortController().signal });
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('keeps its many comments and parses to its values', async () => {
      const values = await readFile(join(dir, 'web', 'values.yaml'), 'utf8');
      const out = sample(values);
      expect(out.warnings).toEqual([]);
      expect(parse(out.text).spec).toEqual(parse(values));
      const comments = values.split('\n').filter((l) => l.trim().startsWith('#'));
      expect(comments.length).toBeGreaterThan(20);
      for (const c of comments) expect(out.text).toContain(`  ${c}`);
    });
  });
});
