// Keeps README.md and docs/ navigable: every relative link of README.md and docs/*.md points at a file that exists,
// and every #anchor (in the same file or `file.md#anchor`) at a heading of its target, by GitHub's anchor rules; and
// the README stays a README (at most 300 lines, the rest in docs/). The checker itself (test/support/markdown.ts) is
// tried on broken links here too. Part of `make test`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, brokenLinks, type DocFiles, links, quickstartBlocks, slug } from '../support/markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => `docs/${f}`);
const FILES = ['README.md', ...DOCS];
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The repository as the link check sees it. */
const repository: DocFiles = {
  exists: (path) => existsSync(join(ROOT, path)),
  markdown: (path) => (path.endsWith('.md') && statSync(join(ROOT, path)).isFile() ? read(path) : undefined),
};

/** Lines as `wc -l` counts them. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('README.md and docs/', () => {
  it('keep the README at most 300 lines', () => {
    expect(lineCount(read('README.md'))).toBeLessThanOrEqual(300);
  });

  it('have the four docs, each linked from the README', () => {
    expect(DOCS).toEqual(['docs/contributing.md', 'docs/operations.md', 'docs/reference.md', 'docs/user-guide.md']);
    const targets = links(read('README.md')).map((l) => l.target.split('#')[0]);
    for (const doc of DOCS) expect(targets, doc).toContain(doc);
  });

  it.each(FILES)('%s: every relative link resolves, and every anchor names a heading of its target', (file) => {
    const text = read(file);
    expect(links(text).length).toBeGreaterThan(0);
    expect(brokenLinks(file, text, repository)).toEqual([]);
  });

  it("mark the README's quickstart: scaffold, install, run in the background, apply, delete, stop, uninstall", () => {
    const blocks = quickstartBlocks(read('README.md'));
    expect(blocks.map((b) => b.mode)).toEqual(['run', 'run', 'background', 'run', 'run', 'after-interrupt']);
    const script = blocks.map((b) => b.script).join('');
    for (const step of [
      'helm-operator init',
      'helm-operator create api',
      'make install',
      'make run',
      'kubectl apply -k config/samples',
      'kubectl wait --for=condition=Deployed',
      'kubectl delete -k config/samples',
      'make uninstall',
    ]) {
      expect(script).toContain(step);
    }
  });
});

describe('the link checker', () => {
  /** A repository of in-memory files. */
  const fake = (files: Record<string, string>): DocFiles => ({
    exists: (path) => path in files || Object.keys(files).some((f) => f.startsWith(`${path}/`)),
    markdown: (path) => (path.endsWith('.md') ? files[path] : undefined),
  });
  const guide = '# Guide\n\n## The `helm-operator` commands, and flags\n\n## Usage\n\n### Usage\n\ntext\n';
  const files = fake({ 'docs/guide.md': guide, 'docs/other.md': '# Other\n', 'src/x.ts': '' });

  it('slugs headings as GitHub does', () => {
    expect(slug('The `helm-operator` commands, and flags')).toBe('the-helm-operator-commands-and-flags');
    expect(slug('Values from ConfigMaps and Secrets: the `values-from` annotation')).toBe(
      'values-from-configmaps-and-secrets-the-values-from-annotation',
    );
    expect(slug("The operator's image")).toBe('the-operators-image');
    expect(slug('The test control plane: `hack/testenv.sh`')).toBe('the-test-control-plane-hacktestenvsh');
    expect(slug('Node ≥ 22.19 → [the image](x.md)')).toBe('node--2219--the-image');
    expect([...anchors(guide)]).toEqual(['guide', 'the-helm-operator-commands-and-flags', 'usage', 'usage-1']);
  });

  it('accepts links that resolve, in the same file and in others, and skips URLs and code', () => {
    const text = [
      '[a](#usage-1) [b](guide.md#usage) [c](other.md) [d](../src/x.ts) [e](https://example.com/#nothing)',
      '`[f](missing.md)`',
      '```sh',
      '[g](missing.md)',
      '```',
      '[h]: other.md#other',
    ].join('\n');
    expect(brokenLinks('docs/guide.md', `${guide}${text}\n`, files)).toEqual([]);
  });

  it('reports a missing file, a missing anchor here or there, and an anchor into a file that is not markdown', () => {
    const text =
      '# T\n\n[a](missing.md) and [b](#nowhere)\n[c](other.md#usage)\n\n[d](../src/x.ts#L1) [e](../../up.md)\n';
    expect(brokenLinks('docs/t.md', text, files)).toEqual([
      { file: 'docs/t.md', line: 3, target: 'missing.md', why: 'docs/missing.md does not exist' },
      { file: 'docs/t.md', line: 3, target: '#nowhere', why: 'docs/t.md has no heading whose anchor is #nowhere' },
      {
        file: 'docs/t.md',
        line: 4,
        target: 'other.md#usage',
        why: 'docs/other.md has no heading whose anchor is #usage',
      },
      {
        file: 'docs/t.md',
        line: 6,
        target: '../src/x.ts#L1',
        why: 'src/x.ts is not a markdown file, so it has no #L1',
      },
      { file: 'docs/t.md', line: 6, target: '../../up.md', why: 'points outside the repository' },
    ]);
  });
});
