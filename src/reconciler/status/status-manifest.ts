// What `status.deployedRelease` holds (--status-manifest): the manifest as helm rendered it (`full`), the same with
// every Secret value replaced by its digest (`redacted`, the default) or no manifest (`none`); above a size cap, a
// short marker naming the release Secret. Pure; called by the reconciler (status writes, uninstall-wait) and the
// run flags. Never puts a Secret value in its output in `redacted` mode, nor manifest text in an error.
import { createHash } from 'node:crypto';
import { lastDeployed, latest } from '../../helm/history.js';
import { editManifest } from '../../helm/manifest-edit.js';
import { redact, secretsOf } from '../../helm/redact.js';
import type { Release } from '../../helm/types.js';
import type { DeployedRelease, StatusManifestMode } from '../types.js';

export const DEFAULT_STATUS_MANIFEST: StatusManifestMode = 'redacted';

/**
 * The most `status.deployedRelease.manifest` may take: 256 KiB, counted as the API server stores it (a JSON
 * string with Go's escaping, where `<`, `>` and `&` take 6 bytes each). etcd refuses a request over 1.5 MiB, and
 * the whole CR is one etcd value: metadata (managedFields, maybe kubectl's last-applied copy of the spec), spec
 * and status; the cap leaves over 1.25 MiB for the rest. The status also travels in full on every status PUT and
 * sits in every informer's cache (this operator's and any other watcher's: 1000 CRs at the cap are 256 MiB each),
 * so it should stay far below the hard limit. Typical application charts render a few KiB to ~100 KiB, so below
 * the cap `full` still behaves as operator-sdk; charts that bundle CRDs or dashboards (argo-cd: ~1.9 MB) get the
 * marker.
 */
export const STATUS_MANIFEST_CAP = 256 * 1024;

/** The first line of every marker: a YAML comment, so a YAML reader of the marker finds no objects. */
export const MARKER_PREFIX = '# helm-operator: manifest not stored in status';

/** The release a status is written for (any helm Release: decoded from its Secret or returned by install/upgrade). */
export interface StatusReleaseInput {
  readonly name: string;
  readonly namespace: string;
  /** The revision. */
  readonly version: number;
  /** The release's manifest as helm rendered it. */
  readonly manifest: string;
}

/**
 * `status.deployedRelease` for a deployed release in the given mode, never over `cap` bytes of manifest. `hidden`
 * (values read from Secrets through values-from) is replaced by `<redacted>` wherever it appears, in every mode.
 */
export function statusRelease(
  rel: StatusReleaseInput,
  mode: StatusManifestMode = DEFAULT_STATUS_MANIFEST,
  cap: number = STATUS_MANIFEST_CAP,
  hidden: readonly string[] = [],
): DeployedRelease {
  const base = { name: rel.name, revision: rel.version };
  if (mode === 'none') return base;
  let manifest = rel.manifest;
  if (mode === 'redacted') {
    try {
      manifest = redactSecrets(rel.manifest);
    } catch {
      // A document that might hold a Secret cannot be parsed: show none of it rather than risk a value.
      return { ...base, manifest: manifestMarker(rel, 'a document that may hold a Secret is not valid YAML') };
    }
  }
  if (hidden.length > 0) manifest = redact(manifest, secretsOf({}, hidden));
  const size = storedBytes(manifest);
  if (size <= cap) return { ...base, manifest };
  return { ...base, manifest: manifestMarker(rel, `${size} bytes as stored, over the ${cap}-byte cap`) };
}

/** The text stored instead of the manifest: why, where the whole manifest is, and its digest. */
export function manifestMarker(rel: StatusReleaseInput, why: string): string {
  const secret = `sh.helm.release.v1.${rel.name}.v${rel.version}`;
  return [
    `${MARKER_PREFIX} (${why})`,
    `# release: Secret ${secret} in namespace ${rel.namespace || '(none)'}, revision ${rel.version}`,
    `# read it with: helm get manifest ${rel.name} --namespace ${rel.namespace || 'default'} --revision ${rel.version}`,
    `# digest: ${sha256(rel.manifest)}`,
    '',
  ].join('\n');
}

export function isManifestMarker(text: string): boolean {
  return text.startsWith(MARKER_PREFIX);
}

/**
 * The manifest whose objects uninstall-wait waits for: the deployed (else newest) release's from Helm's records;
 * only when the records are gone, the status's, unless that is a marker (or absent: `none`).
 */
export function manifestToWaitFor(
  history: readonly { readonly release: Release }[],
  status: DeployedRelease | undefined,
): string | undefined {
  const releases = history.map((h) => h.release);
  if (releases.length > 0) return (lastDeployed(releases) ?? latest(releases))?.manifest;
  const manifest = status?.manifest;
  return manifest && !isManifestMarker(manifest) ? manifest : undefined;
}

/**
 * The manifest with the values of every Secret's `data` and `stringData` replaced by `sha256:<hex>` of the value's
 * bytes (base64-decoded for `data`), so a change shows but no value does. Only documents that name a Secret are
 * re-written; every other document stays byte for byte as rendered. Throws a ManifestParseError (no text in it)
 * when such a document is not valid YAML.
 */
export function redactSecrets(manifest: string): string {
  return editManifest(manifest, redactObject, (text) => MAY_HOLD_SECRET.test(text));
}

/**
 * A document without this text cannot be a Secret or a list of them: `kind: Secret` spells it, through an alias
 * too (anchors are per document); only a double-quoted escape (`"Secr\x65t"`) could hide it, hence the backslash.
 */
const MAY_HOLD_SECRET = /Secret|\\/;
const SECRET_FIELDS = ['data', 'stringData'] as const;

function redactObject(obj: Record<string, unknown>): Record<string, unknown> {
  if (obj.kind !== 'Secret') return obj;
  let out = obj;
  for (const field of SECRET_FIELDS) {
    const value = Object.hasOwn(obj, field) ? obj[field] : undefined;
    if (value === undefined || value === null) continue;
    const redacted = isMapping(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, digestValue(v, field === 'data')]))
      : digestValue(value, false);
    out = { ...out, [field]: redacted };
  }
  return out;
}

function digestValue(value: unknown, base64: boolean): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string') return sha256(base64 ? decodeBase64(value) : Buffer.from(value, 'utf8'));
  // Ambiguous plain scalars (`yes`, `0644`) arrive as objects whose String() is their text.
  const text = isMapping(value) || Array.isArray(value) ? JSON.stringify(value) : String(value);
  return sha256(text);
}

/** The bytes a `data` value stands for (Go's decoder skips newlines); anything not base64 is digested as text. */
function decodeBase64(value: string): Buffer {
  const compact = value.replace(/[\r\n]/g, '');
  return BASE64.test(compact) ? Buffer.from(compact, 'base64') : Buffer.from(value, 'utf8');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function sha256(data: string | Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** A parsed YAML mapping (not an array, nor the parser's object for an ambiguous plain scalar). */
function isMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The bytes `text` takes as a JSON string the way the API server encodes it (Go's encoding/json: `<`, `>`, `&`,
 * U+2028 and U+2029 become 6-byte \u escapes, which JSON.stringify leaves alone), without the quotes.
 */
export function storedBytes(text: string): number {
  let extra = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3c || c === 0x3e || c === 0x26) extra += 5;
    else if (c === 0x2028 || c === 0x2029) extra += 3;
  }
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2 + extra;
}

/**
 * statusRelease, computed once per CR and revision (a revision's manifest never changes), so that an idle reconcile
 * does not scan and re-redact the whole manifest every period. Holds one entry per CR key: the computed value only
 * until the CR's status shows it; from then on a digest, and the status's own copy is answered (a manifest of each
 * CR is not held twice).
 */
export class StatusReleaseMemo {
  readonly #byKey = new Map<string, MemoEntry>();
  readonly #mode: StatusManifestMode;

  constructor(mode: StatusManifestMode = DEFAULT_STATUS_MANIFEST) {
    this.#mode = mode;
  }

  /**
   * `hidden`: strings to redact (see statusRelease); the memo keeps only their digest, never them. `shown`: the
   * deployedRelease the CR's status shows now, answered (and the memo's copy dropped) when it is the one computed.
   */
  get(key: string, rel: StatusReleaseInput, hidden: readonly string[] = [], shown?: DeployedRelease): DeployedRelease {
    const hit = this.#byKey.get(key);
    const digest = hidden.length === 0 ? '' : sha256(JSON.stringify(hidden));
    if (hit?.revision === rel.version && hit.name === rel.name && hit.hidden === digest) {
      if (shown && shown.name === hit.name && shown.revision === hit.revision && manifestDigest(shown) === hit.digest) {
        this.#byKey.set(key, { ...hit, value: undefined });
        return shown;
      }
      if (hit.value) return hit.value;
    }
    const value = statusRelease(rel, this.#mode, STATUS_MANIFEST_CAP, hidden);
    this.#byKey.set(key, {
      revision: rel.version,
      name: rel.name,
      hidden: digest,
      digest: manifestDigest(value),
      value,
    });
    return value;
  }

  forget(key: string): void {
    this.#byKey.delete(key);
  }
}

interface MemoEntry {
  readonly revision: number;
  readonly name: string;
  /** Digest of the strings hidden. */
  readonly hidden: string;
  /** Digest of the status manifest computed (absent manifest: ''). */
  readonly digest: string;
  /** The computed deployedRelease, until the status shows it. */
  readonly value: DeployedRelease | undefined;
}

const manifestDigest = (r: DeployedRelease) => (r.manifest === undefined ? '' : sha256(r.manifest));
