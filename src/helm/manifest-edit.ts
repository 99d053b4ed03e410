// Rewrites the objects of a rendered manifest, as a Helm post-renderer does (ownership/renderer.ts) or to hide a few
// of them (the Secret redaction of reconciler/status/status-manifest.ts). Pure and synchronous; never puts manifest
// text (values, data) in an error; errors thrown by the caller's `fn` pass through.
import { documentChunks, leadingComments } from './manifest-chunks.js';
import { type Mapping, transformDocument } from './manifest-walk.js';
import { dumpDocument, loadChunk } from './manifest-yaml.js';

/**
 * Rewrites every object of a rendered manifest with `fn`, as a Helm post-renderer does. Documents are cut like
 * splitManifest cuts them; `kind: List` / `<Kind>List` items are rewritten one by one (typed-list items without
 * apiVersion and kind are given them). A document that `fn` leaves as it is (no object in it, or each returned as
 * given: empty and comment-only documents, mappings without apiVersion or kind, non-mappings) is kept byte for byte,
 * as Helm rendered it. Each rewritten document comes out as `---`, its leading comment lines
 * (`# Source: ...`) verbatim, then its YAML; comments inside a document are not kept. Strings stay strings for
 * YAML 1.1 and 1.2 readers alike ('yes' and '0755' stay quoted). A plain scalar that YAML 1.1 (Helm's parser) and
 * YAML 1.2 read differently (0644, yes, on, 1_000, 2024-01-01) reaches `fn` as an opaque object whose String() is
 * its text, and is written back as it was, so Helm reads it as it would have without this transform.
 * Throws a ManifestParseError for a document that is not valid YAML; errors thrown by `fn` pass through.
 */
export function transformManifest(
  manifest: string,
  fn: (obj: Record<string, unknown>) => Record<string, unknown>,
): string {
  return rewriteManifest(manifest, fn);
}

/**
 * transformManifest for a few objects: a document is kept byte for byte as rendered (comments included) when
 * `mayChange(text)` is false (it is not even parsed) or when `fn` returns each of its objects as given; the other
 * documents are written as transformManifest writes them. Throws a ManifestParseError like transformManifest.
 */
export function editManifest(
  manifest: string,
  fn: (obj: Record<string, unknown>) => Record<string, unknown>,
  mayChange: (text: string) => boolean,
): string {
  return rewriteManifest(manifest, fn, mayChange);
}

function rewriteManifest(manifest: string, fn: (obj: Mapping) => Mapping, mayChange?: (text: string) => boolean) {
  let out = '';
  for (const chunk of documentChunks(manifest)) {
    if (mayChange && !mayChange(chunk.text)) {
      out += chunk.text;
      continue;
    }
    const docs = loadChunk(chunk, 'transform');
    let changed = false;
    const tracked = (obj: Mapping) => {
      const result = fn(obj);
      changed ||= result !== obj;
      return result;
    };
    const rewritten = docs.filter((d) => d !== null && d !== undefined).map((d) => transformDocument(d, tracked));
    if (!changed) {
      out += chunk.text;
      continue;
    }
    let comments = leadingComments(chunk.text);
    for (const doc of rewritten) {
      out += `---\n${comments}${dumpDocument(doc)}`;
      comments = '';
    }
  }
  return out;
}
