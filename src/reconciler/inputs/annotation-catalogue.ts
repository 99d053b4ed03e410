// Every CR annotation the operator honours, one entry each: its full name, whose it is (operator-sdk's or ours), its
// default as docs/reference.md's annotation table states it, the docs/user-guide.md section that documents it, and how
// a present value is read (with the warning for an invalid one). Read by annotations.ts, pause.ts, requests.ts and
// values-from.ts; test/unit/catalogues.test.ts checks the docs against it. Pure; never reads a CR itself.

import { VALUES_FROM_ANNOTATION } from '../../config/values-from.js';
import { parseDuration } from '../../core/duration.js';
import { parseHelmTimeout } from '../../helm/timeout.js';

export const ANNOTATION_PREFIX = 'helm.sdk.operatorframework.io/';

/** A present, non-empty value read: the value, or a warning (naming the annotation) when it is invalid. */
export type Read<T> = { readonly value: T } | { readonly warning: string };

export interface AnnotationEntry<T> {
  /** The full annotation name. */
  readonly name: string;
  readonly origin: 'operator-sdk' | 'ours';
  /** The default, exactly as docs/reference.md's annotation table states it. */
  readonly default: string;
  /** The docs/user-guide.md heading (without #) of the section that documents it. */
  readonly readme: string;
  /** Reads a present value (possibly empty); undefined: as if absent (an empty boolean). */
  readonly read: (raw: string) => Read<T> | undefined;
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool; undefined for anything else. */
export function parseGoBool(text: string): boolean | undefined {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  return undefined;
}

const WRITES = 'What it writes';
const VALUES_FROM = 'Values from ConfigMaps and Secrets: the `values-from` annotation';

/** A boolean annotation (Go's ParseBool spellings; empty is absent); an invalid value warns and means `fallback`. */
function bool(suffix: string, fallback: boolean, origin: AnnotationEntry<boolean>['origin']): AnnotationEntry<boolean> {
  const name = `${ANNOTATION_PREFIX}${suffix}`;
  return {
    name,
    origin,
    default: String(fallback),
    readme: WRITES,
    read: (raw) => {
      if (raw === '') return undefined; // as if absent
      const value = parseGoBool(raw);
      if (value !== undefined) return { value };
      const warning = `annotation ${name}=${JSON.stringify(raw)} is not a boolean (use true or false); using ${fallback}`;
      return { warning };
    },
  };
}

/** A value taken as it is (a request token, or a document another module parses with errors of its own). */
function text(name: string, readme: string): AnnotationEntry<string> {
  return { name, origin: 'ours', default: 'none', readme, read: (raw) => ({ value: raw }) };
}

/** A duration annotation: `parse` reads it (throwing when invalid); `rule` says what a valid one is, for the warning. */
function duration(
  suffix: string,
  o: { origin: AnnotationEntry<number>['origin']; default: string; parse: (raw: string) => number; rule: string },
): AnnotationEntry<number> {
  const name = `${ANNOTATION_PREFIX}${suffix}`;
  return {
    name,
    origin: o.origin,
    default: o.default,
    readme: WRITES,
    read: (raw) => {
      try {
        return { value: o.parse(raw) };
      } catch {
        return { warning: `annotation ${name}=${JSON.stringify(raw)} is not ${o.rule}; using the default` };
      }
    },
  };
}

/** A Go duration of zero or more. */
function nonNegativeDuration(raw: string): number {
  const ms = parseDuration(raw);
  if (ms < 0) throw new RangeError('negative');
  return ms;
}

export const ANNOTATIONS = {
  reconcilePeriod: duration('reconcile-period', {
    origin: 'operator-sdk',
    default: "watch's `reconcilePeriod`, then `--reconcile-period`",
    parse: nonNegativeDuration,
    rule: 'a duration (use e.g. "30s" or "5m")',
  }),
  upgradeForce: bool('upgrade-force', false, 'operator-sdk'),
  rollbackForce: bool('rollback-force', true, 'operator-sdk'),
  uninstallWait: bool('uninstall-wait', false, 'operator-sdk'),
  installDisableHooks: bool('install-disable-hooks', false, 'operator-sdk'),
  upgradeDisableHooks: bool('upgrade-disable-hooks', false, 'operator-sdk'),
  uninstallDisableHooks: bool('uninstall-disable-hooks', false, 'operator-sdk'),
  helmTimeout: duration('helm-timeout', {
    origin: 'ours',
    default: "watch's `helmTimeout`, then `5m`",
    parse: parseHelmTimeout,
    rule: 'a duration above zero and at most 24h (use e.g. "90s" or "10m")',
  }),
  valuesFrom: text(VALUES_FROM_ANNOTATION, VALUES_FROM),
  paused: bool('paused', false, 'ours'),
  reconcileRequestedAt: text(`${ANNOTATION_PREFIX}reconcile-requested-at`, WRITES),
  forceUpgradeAt: text(`${ANNOTATION_PREFIX}force-upgrade-at`, WRITES),
} as const satisfies Record<string, AnnotationEntry<unknown>>;

export type AnnotationKey = keyof typeof ANNOTATIONS;

/** The value of annotation `entry` on a CR: a value, a warning, or undefined when absent (or empty, for some). */
export function readAnnotation<T>(
  annotations: Readonly<Record<string, string>> | undefined,
  entry: AnnotationEntry<T>,
): Read<T> | undefined {
  const raw = annotations?.[entry.name];
  return raw === undefined ? undefined : entry.read(raw);
}

/** The catalogue's entries, for the docs check and for listing them. */
export function annotationEntries(): readonly AnnotationEntry<unknown>[] {
  return Object.values(ANNOTATIONS);
}
