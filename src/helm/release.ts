// Decodes Helm release Secrets (`sh.helm.release.v1.<name>.v<revision>`) into the subset of a release we read, so
// release history is read without spawning helm. Called by the kube-backed ReleaseReader (`releaseFromSecret`, in
// records/reader.ts); helm/output.ts reuses `isReleaseStatus`; the reconciler otherwise only imports its types.
// Pure and synchronous; never talks to the cluster and never puts values, config or manifest text in an error.
import { Buffer } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import { isRecord } from '../core/guards.js';
import { ReleaseDecodeError } from './errors.js';
import type { Release, ReleaseStatus } from './types.js';

export const RELEASE_STATUSES: readonly ReleaseStatus[] = [
  'unknown',
  'deployed',
  'uninstalled',
  'superseded',
  'failed',
  'uninstalling',
  'pending-install',
  'pending-upgrade',
  'pending-rollback',
];

/** The Secret `type` Helm gives release Secrets. */
export const RELEASE_SECRET_TYPE = 'helm.sh/release.v1';

/** Upper bound for a decompressed release (a Secret holds at most ~1 MiB compressed): guards against gzip bombs. */
export const MAX_RELEASE_BYTES = 128 * 1024 * 1024;

export interface DecodeOptions {
  /** Named in error messages: `namespace/name` or `name`. */
  readonly secret?: string | undefined;
}

/** The Secret fields we read; structurally compatible with `V1Secret` from @kubernetes/client-node. */
export interface ReleaseSecretLike {
  readonly type?: string | undefined;
  readonly metadata?:
    | {
        readonly name?: string | undefined;
        readonly namespace?: string | undefined;
        readonly labels?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
  readonly data?: Readonly<Record<string, string>> | undefined;
}

const GZIP_MAGIC = [0x1f, 0x8b, 0x08] as const;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes the raw `data.release` value of a release Secret as the Kubernetes API returns it: base64 (the API's
 * encoding of Secret data) of Helm's payload, which is itself base64(gzip(json)).
 */
export function decodeReleaseSecretData(secretDataRelease: string, options: DecodeOptions = {}): Release {
  const payload = decodeBase64(secretDataRelease, 'Secret data is not valid base64', options.secret);
  return decodeHelmPayload(payload.toString('latin1'), options);
}

/**
 * Decodes Helm's own payload text: base64 of gzip-compressed release JSON, or of plain JSON (releases written
 * before Helm compressed them). Mirrors `decodeRelease` in Helm's storage/driver/util.go.
 */
export function decodeHelmPayload(payload: string, options: DecodeOptions = {}): Release {
  const secret = options.secret;
  let bytes = decodeBase64(payload, 'release payload is not valid base64', secret);
  if (bytes.length > GZIP_MAGIC.length && GZIP_MAGIC.every((b, i) => bytes[i] === b)) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: MAX_RELEASE_BYTES });
    } catch (cause) {
      throw new ReleaseDecodeError('release payload is not valid gzip', { secret, cause: contentFree(cause) });
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    throw new ReleaseDecodeError('release payload is not valid JSON', { secret, cause: contentFree(cause) });
  }
  return toRelease(json, secret);
}

/**
 * Decodes a release Secret. Checks the Secret `type` and the `name`/`version` labels against the payload when
 * they are present, so a mislabelled Secret is reported instead of being mistaken for another revision.
 */
export function releaseFromSecret(secret: ReleaseSecretLike): Release {
  const meta = secret.metadata;
  const id = meta?.name === undefined ? undefined : meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
  if (secret.type !== undefined && secret.type !== RELEASE_SECRET_TYPE) {
    throw new ReleaseDecodeError(`Secret type is not ${RELEASE_SECRET_TYPE}`, { secret: id });
  }
  const data = secret.data?.release;
  if (typeof data !== 'string') {
    throw new ReleaseDecodeError('Secret has no data.release', { secret: id });
  }
  const release = decodeReleaseSecretData(data, { secret: id });
  const labels = meta?.labels;
  if (labels?.name !== undefined && labels.name !== release.name) {
    throw new ReleaseDecodeError('label "name" disagrees with the release name in the payload', { secret: id });
  }
  if (labels?.version !== undefined && labels.version !== String(release.version)) {
    throw new ReleaseDecodeError('label "version" disagrees with the release revision in the payload', {
      secret: id,
    });
  }
  return release;
}

export function isReleaseStatus(value: unknown): value is ReleaseStatus {
  return typeof value === 'string' && (RELEASE_STATUSES as readonly string[]).includes(value);
}

function decodeBase64(text: string, reason: string, secret: string | undefined): Buffer {
  // Like Go's base64.StdEncoding.DecodeString: padded standard alphabet, CR and LF ignored.
  const compact = text.replace(/[\r\n]/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) {
    throw new ReleaseDecodeError(reason, { secret });
  }
  return Buffer.from(compact, 'base64');
}

/** Keeps an underlying error's class and a content-free summary; JSON.parse messages quote the input text. */
function contentFree(cause: unknown): Error {
  if (cause instanceof SyntaxError) {
    const position = /position (\d+)/.exec(cause.message)?.[1];
    return new SyntaxError(position === undefined ? 'invalid JSON' : `invalid JSON at position ${position}`);
  }
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const summary = new Error(typeof code === 'string' ? `${code}: ${cause.message}` : cause.message);
    summary.name = cause.name;
    return summary;
  }
  return new Error('non-Error thrown');
}

function toRelease(json: unknown, secret: string | undefined): Release {
  const fail = (what: string): never => {
    throw new ReleaseDecodeError(`release JSON ${what}`, { secret });
  };
  if (!isRecord(json)) return fail('is not an object');
  const { name, namespace, version, info, chart, config, manifest, apply_method: applyMethod, hooks } = json;
  if (typeof name !== 'string' || name === '') return fail('has no "name"');
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') {
    return fail('has a non-string "namespace"');
  }
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
    return fail('has no positive integer "version"');
  }
  if (!isRecord(info)) return fail('has no "info" object');
  if (!isReleaseStatus(info.status)) return fail('has no known "info.status"');
  if (!isRecord(chart) || !isRecord(chart.metadata)) return fail('has no "chart.metadata" object');
  const meta = chart.metadata;
  if (typeof meta.name !== 'string' || typeof meta.version !== 'string') {
    return fail('has no "chart.metadata.name" or "chart.metadata.version" string');
  }
  if (config !== undefined && config !== null && !isRecord(config)) return fail('has a non-object "config"');
  if (manifest !== undefined && manifest !== null && typeof manifest !== 'string') {
    return fail('has a non-string "manifest"');
  }
  return {
    name,
    namespace: typeof namespace === 'string' ? namespace : '',
    version,
    info: {
      status: info.status,
      ...optionalString('description', info.description),
      ...optionalString('notes', info.notes),
      ...optionalString('firstDeployed', info.first_deployed),
      ...optionalString('lastDeployed', info.last_deployed),
    },
    chart: { name: meta.name, version: meta.version, ...optionalString('appVersion', meta.appVersion) },
    config: isRecord(config) ? config : {},
    manifest: typeof manifest === 'string' ? manifest : '',
    ...optionalString('applyMethod', applyMethod),
    ...hookEventsOf(hooks),
  };
}

/** The events of the release's hooks, each once (`hookEvents`), or nothing when it has none. */
function hookEventsOf(hooks: unknown): { hookEvents?: readonly string[] } {
  if (!Array.isArray(hooks)) return {};
  const events = new Set<string>();
  for (const h of hooks) {
    if (isRecord(h) && Array.isArray(h.events)) for (const e of h.events) if (typeof e === 'string') events.add(e);
  }
  return events.size === 0 ? {} : { hookEvents: [...events] };
}

function optionalString<K extends string>(key: K, value: unknown): { [P in K]?: string } {
  return typeof value === 'string' && value !== '' ? ({ [key]: value } as { [P in K]: string }) : {};
}
