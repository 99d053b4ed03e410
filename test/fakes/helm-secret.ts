// Builds Helm release Secrets exactly as Helm's secrets storage driver writes them (json → gzip → base64, then the
// Kubernetes API's own base64 of Secret data), plus a realistic release JSON builder. Used by unit tests only.
// Never imported from src/; never talks to a cluster.
import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';

export interface FakeReleaseFields {
  readonly name?: string;
  readonly namespace?: string;
  readonly version?: number;
  readonly status?: string;
  readonly description?: string;
  readonly chartName?: string;
  readonly chartVersion?: string;
  /** `null` leaves appVersion out, as Helm does for charts without one. */
  readonly appVersion?: string | null;
  readonly config?: Record<string, unknown>;
  readonly manifest?: string;
}

/** The JSON shape of Go's `release.Release` (only the fields tests care about are configurable). */
export interface ReleaseJson {
  readonly name: string;
  readonly namespace: string;
  readonly version: number;
  readonly info: { readonly status: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

export interface FakeSecret {
  readonly apiVersion: 'v1';
  readonly kind: 'Secret';
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Record<string, string> };
  readonly type: 'helm.sh/release.v1';
  readonly data: { readonly release: string };
}

/** A release as Helm 3/4 marshals it to JSON. */
export function releaseJson(fields: FakeReleaseFields = {}): ReleaseJson {
  const name = fields.name ?? 'example';
  const chartName = fields.chartName ?? 'nginx';
  return {
    name,
    namespace: fields.namespace ?? 'default',
    version: fields.version ?? 1,
    info: {
      first_deployed: '2025-01-02T03:04:05.123456789Z',
      last_deployed: '2025-01-02T03:04:05.123456789Z',
      deleted: '',
      description: fields.description ?? 'Install complete',
      status: fields.status ?? 'deployed',
      notes: `${chartName} is installed`,
    },
    chart: {
      metadata: {
        name: chartName,
        version: fields.chartVersion ?? '0.1.0',
        ...(fields.appVersion === null ? {} : { appVersion: fields.appVersion ?? '1.27.0' }),
        apiVersion: 'v2',
        type: 'application',
      },
      lock: null,
      templates: [{ name: 'templates/deployment.yaml', data: Buffer.from('kind: Deployment\n').toString('base64') }],
      values: { replicaCount: 1 },
      schema: null,
      files: [],
    },
    config: fields.config ?? {},
    manifest: fields.manifest ?? `---\n# Source: ${chartName}/templates/deployment.yaml\nkind: Deployment\n`,
    hooks: [],
  };
}

/** Helm's `encodeRelease`: base64(gzip(json)); `gzip: false` gives the legacy base64(json) form. */
export function encodeHelmPayload(release: object, { gzip = true }: { gzip?: boolean } = {}): string {
  const json = Buffer.from(JSON.stringify(release), 'utf8');
  return (gzip ? gzipSync(json, { level: 9 }) : json).toString('base64');
}

/** The Secret as the Kubernetes API returns it: `data.release` is base64 of Helm's (already base64) payload. */
export function releaseSecret(
  release: ReleaseJson,
  { gzip = true, createdAt = '1735787045' }: { gzip?: boolean; createdAt?: string } = {},
): FakeSecret {
  const payload = encodeHelmPayload(release, { gzip });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `sh.helm.release.v1.${release.name}.v${release.version}`,
      namespace: release.namespace,
      labels: {
        createdAt,
        name: release.name,
        owner: 'helm',
        status: release.info.status,
        version: String(release.version),
      },
    },
    type: 'helm.sh/release.v1',
    data: { release: Buffer.from(payload, 'utf8').toString('base64') },
  };
}
