// OLM's manifests for one version, as `helm-operator olm install|status|uninstall` read them: `crds.yaml` and `olm.yaml`
// from OLM's release download (operator-sdk's source), or from a folder or another base URL that holds both files
// (--manifests, HELM_OPERATOR_OLM_MANIFESTS: a machine without a network, hack/olm/build-olm.sh's output). Called by
// olm/installer.ts; reads nothing but the two files (fetch and readFile come in) and never touches the cluster.
import { join } from 'node:path';
import { OperatorError } from '../core/errors.js';
import { manifestObjects } from '../helm/manifest.js';
import type { KubeObject } from '../kube/types.js';

/** Where OLM publishes each release's crds.yaml and olm.yaml. */
export const RELEASES_URL = 'https://github.com/operator-framework/operator-lifecycle-manager/releases';

export class OlmManifestsError extends OperatorError {
  readonly code = 'OLM_MANIFESTS_UNAVAILABLE';
}

export interface OlmManifests {
  readonly crds: readonly KubeObject[];
  /** olm.yaml's objects in file order: namespaces first, then RBAC, the operators, the packageserver CSV. */
  readonly resources: readonly KubeObject[];
  /** Where they were read from (a folder or the two URLs' base). */
  readonly from: string;
}

export interface ManifestReaders {
  readonly fetch: (url: string, init: { signal: AbortSignal }) => Promise<Response>;
  readonly readFile: (path: string) => Promise<string>;
}

/**
 * A release tag as OLM names them (operator-sdk's formatVersion): `v` + the semver from 0.17 on, the bare semver
 * before; anything that is no semver (`latest`) as given.
 */
export function releaseTag(version: string): string {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(.*)$/.exec(version.trim());
  if (!m) return version.trim();
  const bare = `${m[1]}.${m[2]}.${m[3]}${m[4]}`;
  return Number(m[1]) === 0 && Number(m[2]) < 17 ? bare : `v${bare}`;
}

/** The same version with or without a leading `v` compare equal. */
export function sameVersion(a: string, b: string): boolean {
  return a.trim().replace(/^v/, '') === b.trim().replace(/^v/, '');
}

/** The base the two files are read from: `source` (a folder or URL) when given, else the release's download. */
export function manifestBase(version: string, source: string | undefined): string {
  if (source !== undefined && source !== '') return source.replace(/\/+$/, '');
  const tag = releaseTag(version);
  return tag === 'latest' ? `${RELEASES_URL}/latest/download` : `${RELEASES_URL}/download/${tag}`;
}

const isUrl = (s: string) => /^https?:\/\//.test(s);

async function readOne(base: string, file: string, r: ManifestReaders, signal: AbortSignal): Promise<string> {
  if (!isUrl(base)) {
    const path = join(base, file);
    try {
      return await r.readFile(path);
    } catch (err) {
      throw new OlmManifestsError(`cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
  }
  const url = `${base}/${file}`;
  let res: Response;
  try {
    res = await r.fetch(url, { signal });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    throw new OlmManifestsError(
      `cannot fetch ${url}: ${(err as Error).message}. Without a network, point --manifests (or HELM_OPERATOR_OLM_MANIFESTS) at a folder holding crds.yaml and olm.yaml`,
      { cause: err },
    );
  }
  if (res.status === 404) {
    throw new OlmManifestsError(
      `${url}: 404 Not Found; manifests may not exist for this OLM release (see ${RELEASES_URL} for olm.yaml and crds.yaml)`,
    );
  }
  if (!res.ok) throw new OlmManifestsError(`${url}: HTTP ${res.status} ${res.statusText}`);
  return res.text();
}

function parse(text: string, what: string): KubeObject[] {
  try {
    return manifestObjects(text) as unknown as KubeObject[];
  } catch (err) {
    throw new OlmManifestsError(`${what} is not valid YAML: ${(err as Error).message}`, { cause: err });
  }
}

/** The OLM version a set of manifests installs: its packageserver CSV's `olm.version` label, when it has one. */
export function manifestsVersion(resources: readonly KubeObject[]): string | undefined {
  const csv = resources.find((o) => o.kind === 'ClusterServiceVersion' && o.metadata.name === 'packageserver');
  return csv?.metadata.labels?.['olm.version'];
}

/**
 * Reads crds.yaml and olm.yaml of `version` from `source` (or OLM's release download). A folder's manifests must be
 * of the version asked for, when they say which (the packageserver CSV's label), so that status and uninstall read
 * the same objects install created.
 */
export async function loadOlmManifests(
  version: string,
  source: string | undefined,
  readers: ManifestReaders,
  signal: AbortSignal,
): Promise<OlmManifests> {
  const base = manifestBase(version, source);
  const [crdText, olmText] = await Promise.all([
    readOne(base, 'crds.yaml', readers, signal),
    readOne(base, 'olm.yaml', readers, signal),
  ]);
  const crds = parse(crdText, `${base}/crds.yaml`);
  const resources = parse(olmText, `${base}/olm.yaml`);
  if (!crds.some((o) => o.kind === 'CustomResourceDefinition')) {
    throw new OlmManifestsError(`${base}/crds.yaml holds no CustomResourceDefinition`);
  }
  const found = manifestsVersion(resources);
  if (found !== undefined && version !== 'latest' && !sameVersion(found, version)) {
    throw new OlmManifestsError(`${base} holds OLM ${found}, not ${version}; pass --version=${found}`);
  }
  return { crds, resources, from: base };
}
