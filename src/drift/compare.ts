// Decides whether a live Kubernetes object still carries everything the Helm chart rendered for it, and where not.
// Called by the drift repairer before it re-applies the desired object with a server-side apply.
// A subset check in SSA's spirit: it must never report fields others added (labels, env vars, list elements) or
// values the server leaves out (null, zero values, empty maps and lists: see zero.ts) as drift, and it never does
// I/O. Quantities and Secret stringData are compared as the API server stores them.
import { isRecord } from '../core/guards.js';
import { sameQuantity } from './quantity.js';
import { coveredAsAbsent, isUnset, type Trail } from './zero.js';

/** One place where the live object does not carry the desired value. */
export interface DriftDiff {
  readonly path: string;
  /** The same place as keys and indices into the desired object (valueAt finds it in another form of it). */
  readonly trail: Trail;
  readonly want: unknown;
  readonly got: unknown;
}

/** Stands in for Secret values in diffs, so that a logged diff never carries secret material. */
export const REDACTED = '(redacted)';

const DEFAULT_LIMIT = 20;
/** Top-level fields that are the server's or the caller's business, not the chart's. */
const IGNORED_TOP = new Set(['apiVersion', 'kind', 'status']);
const IGNORED_METADATA = new Set([
  'resourceVersion',
  'uid',
  'generation',
  'creationTimestamp',
  'managedFields',
  'namespace',
]);
/** Merge keys of associative lists, tried in this order; a key is used only if every desired element has a unique one. */
const MERGE_KEYS = ['name', 'containerPort', 'port', 'mountPath', 'ip', 'type', 'key', 'devicePath', 'topologyKey'];
/**
 * Lists whose SSA merge key is not `name`, tried before MERGE_KEYS. `ports` is keyed by port number (Service) or
 * containerPort (Pod), not by name: SSA keys them by (port, protocol), and when a number repeats (53/TCP and
 * 53/UDP) the number is not unique and the ports fall back to `name`, which Kubernetes then requires.
 */
const PREFERRED_KEYS: ReadonlyMap<string, readonly string[]> = new Map([
  ['ports', ['port', 'containerPort']],
  ['volumeMounts', ['mountPath']],
  ['volumeDevices', ['devicePath']],
]);
/** Maps whose values are quantities: resources.limits/requests, ResourceQuota hard, PV capacity, Pod overhead. */
const QUANTITY_MAPS = new Set(['limits', 'requests', 'hard', 'capacity', 'overhead']);
/** Maps of quantities inside each element of a LimitRange's spec.limits list. */
const LIMIT_RANGE_MAPS = new Set(['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']);

const SIMPLE_KEY = /^[A-Za-z_][\w-]*$/;
const SIMPLE_ID = /^[\w./:-]+$/;

type Obj = Record<string, unknown>;

class Diffs {
  readonly list: DriftDiff[] = [];
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  get full(): boolean {
    return this.list.length >= this.limit;
  }
  add(path: string, trail: Trail, want: unknown, got: unknown): void {
    if (!this.full) this.list.push({ path, trail, want, got });
  }
}

function keyPath(path: string, key: string): string {
  if (!SIMPLE_KEY.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

function idPath(path: string, key: string, id: string | number): string {
  const shown = typeof id === 'string' && SIMPLE_ID.test(id) ? id : JSON.stringify(id);
  return `${path}[${key}=${shown}]`;
}

/**
 * Paths (dotted, with [i] for list indices and [key=value] for keyed list elements) where `live` does not carry the
 * desired value; [] means in sync. Stops after `limit` diffs (default 20; at least 1, Infinity for all).
 * Secret data and stringData values are reported as REDACTED.
 */
export function driftOf(desired: Record<string, unknown>, live: Record<string, unknown>, limit?: number): DriftDiff[] {
  const max = limit === undefined || Number.isNaN(limit) ? DEFAULT_LIMIT : Math.max(1, Math.floor(limit));
  const out = new Diffs(max);
  const secret = desired.kind === 'Secret';
  for (const [key, want] of Object.entries(desired)) {
    if (IGNORED_TOP.has(key) || (secret && (key === 'data' || key === 'stringData'))) continue;
    if (key === 'metadata' && isRecord(want)) {
      const kept = Object.entries(want).filter(([k]) => !IGNORED_METADATA.has(k));
      walk(Object.fromEntries(kept), live.metadata, [key], key, out);
    } else {
      walk(want, live[key], [key], keyPath('', key), out);
    }
  }
  if (secret) secretDrift(desired, live, out);
  return out.list;
}

function walk(want: unknown, got: unknown, trail: Trail, path: string, out: Diffs): void {
  if (out.full || coveredAsAbsent(want, got, trail)) return;
  if (Array.isArray(want)) {
    walkList(want, got, trail, path, out);
  } else if (isRecord(want)) {
    walkMap(want, got, trail, path, out);
  } else if (want !== got && !(isQuantityPath(trail) && sameQuantity(want, got))) {
    out.add(path, trail, want, got);
  }
}

function walkMap(want: Obj, got: unknown, trail: Trail, path: string, out: Diffs): void {
  const entries = Object.entries(want);
  if (!isUnset(got) && !isRecord(got)) {
    out.add(path, trail, want, got);
    return;
  }
  const live: Obj = isRecord(got) ? got : {};
  for (const [key, value] of entries) walk(value, live[key], [...trail, key], keyPath(path, key), out);
}

function walkList(want: unknown[], got: unknown, trail: Trail, path: string, out: Diffs): void {
  if (!isUnset(got) && !Array.isArray(got)) {
    out.add(path, trail, want, got);
    return;
  }
  const live: unknown[] = Array.isArray(got) ? got : [];
  const key = mergeKeyOf(want, trail);
  if (key === undefined) {
    // Atomic list: same length, element by element.
    if (live.length !== want.length) {
      out.add(path, trail, want, got);
      return;
    }
    for (const [i, w] of want.entries()) walk(w, live[i], [...trail, i], `${path}[${i}]`, out);
    return;
  }
  // Associative list: each desired element needs a live element with its key that covers it; extras are not drift.
  for (const [i, w] of (want as Obj[]).entries()) {
    if (out.full) return;
    const id = w[key] as string | number;
    const elementPath = idPath(path, key, id);
    const elementTrail = [...trail, i];
    const candidates = live.filter((l) => isRecord(l) && l[key] === id);
    const [first] = candidates;
    if (first === undefined) {
      out.add(elementPath, elementTrail, w, undefined);
    } else if (candidates.length === 1 || !candidates.some((c) => covers(w, c, elementTrail))) {
      walk(w, first, elementTrail, elementPath, out);
    }
  }
}

function covers(want: unknown, got: unknown, trail: Trail): boolean {
  const probe = new Diffs(1);
  walk(want, got, trail, '', probe);
  return probe.list.length === 0;
}

/** The merge key of a list of objects: the first key every element has, as a string or number, unique among them. */
function mergeKeyOf(want: unknown[], trail: Trail): string | undefined {
  if (!want.every(isRecord)) return undefined;
  const field = trail[trail.length - 1];
  const preferred = typeof field === 'string' ? (PREFERRED_KEYS.get(field) ?? []) : [];
  for (const key of [...preferred, ...MERGE_KEYS]) {
    const ids = want.map((w) => w[key]);
    if (ids.every((id) => typeof id === 'string' || typeof id === 'number') && new Set(ids).size === ids.length) {
      return key;
    }
  }
  return undefined;
}

/** Whether the value at `trail` is a Kubernetes quantity, which the server stores in canonical form. */
function isQuantityPath(trail: Trail): boolean {
  const n = trail.length;
  const [leaf, parent] = [trail[n - 1], trail[n - 2]];
  if (typeof leaf !== 'string') return false;
  if (leaf === 'sizeLimit') return true;
  if (typeof parent !== 'string') return false;
  if (QUANTITY_MAPS.has(parent)) return true;
  return LIMIT_RANGE_MAPS.has(parent) && typeof trail[n - 3] === 'number' && trail[n - 4] === 'limits';
}

/**
 * Secret data: the server turns stringData into (base64) data and never returns stringData, so each stringData
 * value is checked against the decoded live data; a stringData key wins over the same data key, as on the server.
 * Desired data is compared as bytes, since the server re-encodes base64.
 */
function secretDrift(desired: Obj, live: Obj, out: Diffs): void {
  const gotData: Obj = isRecord(live.data) ? live.data : {};
  const stringData: Obj = isRecord(desired.stringData) ? desired.stringData : {};
  if (isRecord(desired.data)) {
    for (const [key, want] of Object.entries(desired.data)) {
      if (!isUnset(stringData[key])) continue;
      const bytes = typeof want === 'string' ? Buffer.from(want, 'base64') : want;
      secretValue(keyPath('data', key), ['data', key], bytes, gotData[key], out);
    }
  } else if (desired.data !== undefined) {
    walk(desired.data, live.data, ['data'], 'data', out);
  }
  for (const [key, want] of Object.entries(stringData)) {
    const bytes = isUnset(want) ? want : Buffer.from(String(want), 'utf8');
    secretValue(keyPath('stringData', key), ['stringData', key], bytes, gotData[key], out);
  }
}

function secretValue(path: string, trail: Trail, want: unknown, got: unknown, out: Diffs): void {
  if (isUnset(want)) return; // null is "no opinion" in an apply, as everywhere else
  const shownGot = isUnset(got) ? got : REDACTED;
  if (!(want instanceof Buffer) || typeof got !== 'string' || !Buffer.from(got, 'base64').equals(want)) {
    out.add(path, trail, REDACTED, shownGot);
  }
}

/**
 * The value at `trail` (keys and indices into `desired`) in `other`, another form of the same object (the live one,
 * or what a dry run would store): a keyed list element is found by its merge key, as the comparison matched it;
 * undefined when `other` has nothing there.
 */
export function valueAt(desired: unknown, other: unknown, trail: Trail): unknown {
  let [want, got] = [desired, other];
  for (const [n, step] of trail.entries()) {
    if (typeof step === 'string') {
      [want, got] = [isRecord(want) ? want[step] : undefined, isRecord(got) ? got[step] : undefined];
      continue;
    }
    if (!Array.isArray(want) || !Array.isArray(got)) return undefined;
    const key = mergeKeyOf(want, trail.slice(0, n));
    const element: unknown = want[step];
    const id = key !== undefined && isRecord(element) ? element[key] : undefined;
    [want, got] = [element, key === undefined ? got[step] : got.find((g) => isRecord(g) && g[key] === id)];
  }
  return got;
}
