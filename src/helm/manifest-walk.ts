// Walks the objects of one parsed manifest document: `kind: List` / `<Kind>List` documents are opened into their
// items (typed-list items without apiVersion and kind are given them), as the API machinery does. Called by
// manifest.ts and manifest-edit.ts. Pure; never mutates a document (a rewritten List is a new object).
import { isRecord } from '../core/guards.js';

export type Mapping = Record<string, unknown>;

export const isMapping = isRecord;

/** `obj[key]` only when it is the object's own property (never an inherited one such as `constructor`). */
export function own(obj: Mapping, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * `doc` with `fn` applied to each object it holds: the document itself when it has apiVersion and kind, each item
 * of a List; mappings without apiVersion or kind and non-mappings come back unchanged.
 */
export function transformDocument(doc: unknown, fn: (obj: Mapping) => Mapping): unknown {
  if (!isMapping(doc)) return doc;
  const apiVersion = nonEmptyString(own(doc, 'apiVersion'));
  const kind = nonEmptyString(own(doc, 'kind'));
  const items = own(doc, 'items');
  if (kind?.endsWith('List') && Array.isArray(items)) {
    const itemKind = kind.slice(0, -'List'.length);
    const rewritten = items.map((item: unknown) => {
      const typed =
        isMapping(item) &&
        own(item, 'apiVersion') === undefined &&
        own(item, 'kind') === undefined &&
        apiVersion !== undefined &&
        itemKind !== '';
      return transformDocument(typed ? { ...item, apiVersion, kind: itemKind } : item, fn);
    });
    return { ...doc, items: rewritten };
  }
  return apiVersion !== undefined && kind !== undefined ? fn(doc) : doc;
}
