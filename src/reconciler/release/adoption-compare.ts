// Whether a deployed release is what this operator would render now, as operator-sdk's dry-run check asks it: the
// deployed manifest against a dry-run upgrade's (helm's plain rendering, no post-renderer), object by object, with
// this operator's own ownership marks (its post-renderer's) set aside. Pure; called by adoption.ts. Never puts
// manifest text (values, data) in what it returns: only an object's kind and name.
import { canonicalJson } from '../../core/canonical-json.js';
import { isRecord } from '../../core/guards.js';
import { ManifestParseError } from '../../helm/errors.js';
import { manifestObjects } from '../../helm/manifest.js';
import { CHART_LABEL, PRIMARY_RESOURCE_ANNOTATION, PRIMARY_RESOURCE_TYPE_ANNOTATION } from '../../ownership/rules.js';

/** The marks this operator's post-renderer gives the objects of one CR's release (ownership/rules.ts). */
export interface OwnMarks {
  /** The chart's name: the CHART_LABEL value. */
  readonly chart: string;
  /** The CR's uid: its controller ownerReference. */
  readonly uid: string;
  /** `<namespace>/<name>` of the CR: the primary-resource annotation. */
  readonly primaryResource: string;
  /** `Kind.group` of the CR: the primary-resource-type annotation. */
  readonly primaryResourceType: string;
}

/** Same: nothing but our marks differ. Otherwise the first object that differs (`Kind/name`, or why). */
export type Comparison = { readonly same: true } | { readonly same: false; readonly first: string };

type Mapping = Record<string, unknown>;

/**
 * Compares the two manifests. Byte-equal text is the same (operator-sdk's own test); otherwise both are read as helm
 * reads them and compared object by object in manifest order, after taking off each object the marks `ours` lists
 * (the chart label with the chart's name, the ownerReference to the CR's uid, the primary-resource annotations
 * naming the CR) and dropping labels, annotations and ownerReferences left empty. So a release that operator-sdk
 * installed (no marks in its stored manifest) and one that this operator's post-renderer rendered (the marks, and
 * YAML written again) both match the plain rendering of the same chart and values. A manifest that cannot be read
 * is a difference.
 */
export function compareRendering(deployed: string, rendered: string, ours: OwnMarks): Comparison {
  if (deployed === rendered) return { same: true };
  let before: Mapping[];
  let after: Mapping[];
  try {
    before = manifestObjects(deployed).map((o) => withoutMarks(o, ours));
    after = manifestObjects(rendered).map((o) => withoutMarks(o, ours));
  } catch (err) {
    if (err instanceof ManifestParseError) return { same: false, first: 'a manifest that cannot be read' };
    throw err;
  }
  const count = Math.max(before.length, after.length);
  for (let i = 0; i < count; i++) {
    const a = before[i];
    const b = after[i];
    if (a === undefined || b === undefined || canonicalJson(a) !== canonicalJson(b))
      return { same: false, first: refOf(b ?? a) };
  }
  return { same: true };
}

/** The object without the marks of `ours`; never mutates it. */
export function withoutMarks(obj: Mapping, ours: OwnMarks): Mapping {
  const metadata = isRecord(obj.metadata) ? obj.metadata : {};
  const out: Mapping = { ...metadata };
  const labels = strip(metadata.labels, (k, v) => k === CHART_LABEL && v === ours.chart);
  const annotations = strip(
    metadata.annotations,
    (k, v) =>
      (k === PRIMARY_RESOURCE_ANNOTATION && v === ours.primaryResource) ||
      (k === PRIMARY_RESOURCE_TYPE_ANNOTATION && v === ours.primaryResourceType),
  );
  const refs = Array.isArray(metadata.ownerReferences)
    ? metadata.ownerReferences.filter((r) => !(isRecord(r) && r.uid === ours.uid))
    : metadata.ownerReferences;
  setOrDrop(out, 'labels', labels);
  setOrDrop(out, 'annotations', annotations);
  setOrDrop(out, 'ownerReferences', refs);
  return { ...obj, metadata: out };
}

/** A mapping without the entries `drop` names; anything else as it is. */
function strip(value: unknown, drop: (key: string, value: unknown) => boolean): unknown {
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k, v]) => !drop(k, v)));
}

/** Sets `key` to `value`, or leaves it out when absent, null, or an empty mapping or list. */
function setOrDrop(out: Mapping, key: string, value: unknown): void {
  const empty =
    value === undefined ||
    value === null ||
    (Array.isArray(value) && value.length === 0) ||
    (isRecord(value) && Object.keys(value).length === 0);
  if (empty) delete out[key];
  else out[key] = value;
}

function refOf(obj: Mapping | undefined): string {
  if (obj === undefined) return 'an object';
  const metadata = isRecord(obj.metadata) ? obj.metadata : {};
  const kind = typeof obj.kind === 'string' ? obj.kind : 'object';
  return `${kind}/${typeof metadata.name === 'string' ? metadata.name : ''}`;
}
