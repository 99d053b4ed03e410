// editManifest (kept apart from manifest.test.ts): only documents that `fn` changes are re-written.
import { describe, expect, it } from 'vitest';
import { editManifest } from './manifest-edit.js';

const KEEP = `---\n# Source: a/keep.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep   # a comment\ndata:\n  mode: "0644"\n\n`;
const EDIT = `---\n# Source: a/edit.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: edit\n# dropped\nstringData:\n  k: v\n`;
const hide = (obj: Record<string, unknown>) => (obj.kind === 'Secret' ? { ...obj, stringData: { k: 'hidden' } } : obj);

describe('editManifest', () => {
  it('keeps unchanged documents byte for byte and re-writes the changed one with its leading comments', () => {
    const out = editManifest(KEEP + EDIT, hide, () => true);
    expect(out).toBe(
      `${KEEP}---\n# Source: a/edit.yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: edit\nstringData:\n  k: hidden\n`,
    );
  });

  it('does not parse a document that mayChange rules out', () => {
    const broken = 'kind: ConfigMap\ndata: {a: b\n';
    expect(editManifest(`${broken}${EDIT}`, hide, (text) => text.includes('Secret'))).toContain('k: hidden');
    expect(editManifest(`${broken}${EDIT}`, hide, (text) => text.includes('Secret')).startsWith(broken)).toBe(true);
    expect(() => editManifest(`${broken}${EDIT}`, hide, () => true)).toThrow(/not valid YAML/);
  });

  it('returns the manifest itself when nothing changes', () => {
    expect(editManifest(KEEP, hide, () => true)).toBe(KEEP);
    expect(editManifest('', hide, () => true)).toBe('');
  });
});
