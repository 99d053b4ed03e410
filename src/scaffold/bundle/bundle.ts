// Generates an OLM "registry+v1" bundle (bundle/manifests, bundle/metadata/annotations.yaml, bundle.Dockerfile)
// from the objects of `kubectl kustomize config/manifests`, as `operator-sdk generate bundle` does. Called by the
// CLI's bundle command; returns file contents keyed by project-relative path and never writes or reads files.
import { stringify } from '../../config/yaml.js';
import type { BundleCode } from '../../core/codes.js';
import { OperatorError } from '../../core/errors.js';
import { LAYOUT as PROJECT_LAYOUT } from '../templates/project.js';
import { buildCsv, displayNameOf } from './csv.js';
import {
  ALLOWED_KINDS,
  ANNOTATION,
  BUILDER,
  isCsvName,
  isDnsLabel,
  isSemver,
  MANIFESTS_DIR,
  MEDIATYPE,
  METADATA_DIR,
} from './format.js';
import { type KubeObject, nameOf, splitRbac } from './rbac.js';

/** A bad bundle input (flag or manifest): names the flag or object and says what to change. */
export class BundleError extends OperatorError {
  readonly code: BundleCode;
  constructor(message: string, code: BundleCode = 'BUNDLE_INPUT_INVALID') {
    super(message);
    this.code = code;
  }
}

export interface BundleInput {
  /** The output of `kubectl kustomize config/manifests`: CRDs, Deployment, RBAC, Services, sample CRs… */
  readonly objects: readonly Record<string, unknown>[];
  readonly packageName: string;
  /** semver without a leading "v" */
  readonly version: string;
  /** @default ['alpha'] */
  readonly channels?: readonly string[];
  /** @default the first channel */
  readonly defaultChannel?: string;
  /** Replaces the operator container's image (the one named `manager`, else the first). */
  readonly image?: string;
  readonly description?: string;
  /** @default the package name in title case */
  readonly displayName?: string;
  /** @default { name: packageName } */
  readonly provider?: { readonly name: string; readonly url?: string };
  /** @default '1.27.0' */
  readonly minKubeVersion?: string;
}

export interface BundleResult {
  /** Project-relative path → content: bundle/manifests/*, bundle/metadata/annotations.yaml, bundle.Dockerfile. */
  readonly files: Record<string, string>;
  /** Objects left out because OLM does not accept their kind in a bundle (one line each). */
  readonly warnings: string[];
}

export const BUNDLE_DIR = 'bundle';
export const DEFAULT_MIN_KUBE_VERSION = '1.27.0';

const isKind = (o: KubeObject, kind: string, apiVersionPrefix: string) =>
  o.kind === kind && String(o.apiVersion ?? '').startsWith(apiVersionPrefix);

function checkInput(input: BundleInput, channels: readonly string[], defaultChannel: string): void {
  if (!isDnsLabel(input.packageName)) {
    throw new BundleError(
      `package name "${input.packageName}" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63): pass a valid --package`,
    );
  }
  if (!isSemver(input.version)) {
    throw new BundleError(
      `version "${input.version}" is not semver (for example 0.0.1, without a leading "v"): pass a valid --version`,
    );
  }
  if (!isCsvName(`${input.packageName}.v${input.version}`)) {
    throw new BundleError(`the CSV name "${input.packageName}.v${input.version}" is longer than 63: shorten --package`);
  }
  if (channels.length === 0 || channels.some((c) => !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(c))) {
    throw new BundleError(
      `channels "${channels.join(',')}" must be one or more names (letters, digits, ".", "_", "-")`,
    );
  }
  if (!channels.includes(defaultChannel)) {
    throw new BundleError(`default channel "${defaultChannel}" is not one of the channels "${channels.join(',')}"`);
  }
}

/** A plain manifest as OLM wants it: no namespace (OLM installs into the operator's), no status. */
function plain(o: KubeObject): KubeObject {
  const { status: _status, ...rest } = structuredClone(o);
  const { namespace: _ns, creationTimestamp: _ct, ...metadata } = (rest.metadata ?? {}) as KubeObject;
  return { ...rest, metadata };
}

function fileName(o: KubeObject): string {
  if (o.kind === 'CustomResourceDefinition') {
    const spec = (o.spec ?? {}) as { group?: string; names?: { plural?: string } };
    return `${spec.group}_${spec.names?.plural}.yaml`;
  }
  return `${nameOf(o)}_${String(o.apiVersion).replace('/', '_')}_${String(o.kind).toLowerCase()}.yaml`;
}

function toYaml(o: unknown): string {
  // YAML 1.1 quoting ("on", "yes", "0755" stay strings) because OLM and kubectl read bundles with Go's YAML 1.1.
  return stringify(o, { version: '1.1', lineWidth: 0 });
}

function dockerfile(annotations: Record<string, string>, bundleDir: string): string {
  const label = (v: string) => (/^[\w./+,:-]+$/.test(v) ? v : JSON.stringify(v));
  return [
    'FROM scratch',
    '',
    '# Core bundle labels (the same as metadata/annotations.yaml).',
    ...Object.entries(annotations).map(([k, v]) => `LABEL ${k}=${label(v)}`),
    '',
    '# Copy files to locations specified by labels.',
    `COPY ${bundleDir}/${MANIFESTS_DIR.slice(0, -1)} /${MANIFESTS_DIR}`,
    `COPY ${bundleDir}/${METADATA_DIR.slice(0, -1)} /${METADATA_DIR}`,
    '',
  ].join('\n');
}

export function generateBundle(input: BundleInput): BundleResult {
  const channels = input.channels && input.channels.length > 0 ? input.channels : ['alpha'];
  const defaultChannel = input.defaultChannel ?? channels[0] ?? 'alpha';
  checkInput(input, channels, defaultChannel);

  const objects = input.objects as readonly KubeObject[];
  for (const [i, o] of objects.entries()) {
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || nameOf(o) === '') {
      throw new BundleError(`object #${i + 1} of the manifests has no apiVersion, kind or metadata.name`);
    }
  }
  const crds = objects.filter((o) => isKind(o, 'CustomResourceDefinition', 'apiextensions.k8s.io/'));
  const deployments = objects.filter((o) => isKind(o, 'Deployment', 'apps/'));
  if (deployments.length === 0) {
    throw new BundleError(
      'the manifests hold no Deployment: the CSV installs the operator from it (does config/manifests include config/default?)',
      'BUNDLE_NO_DEPLOYMENT',
    );
  }
  const crdGvks = new Set(
    crds.flatMap((c) => {
      const spec = (c.spec ?? {}) as { group?: string; names?: { kind?: string }; versions?: { name?: string }[] };
      return (spec.versions ?? []).map((v) => `${spec.group}/${v.name}|${spec.names?.kind}`);
    }),
  );
  const samples = objects.filter((o) => crdGvks.has(`${o.apiVersion}|${o.kind}`));
  const serviceAccounts = new Set(
    deployments.map((d) => {
      const pod = ((d.spec as KubeObject | undefined)?.template as KubeObject | undefined)?.spec as KubeObject;
      return typeof pod?.serviceAccountName === 'string' ? pod.serviceAccountName : 'default';
    }),
  );
  const rbac = splitRbac(objects, serviceAccounts);
  const isRbac = (o: KubeObject) => String(o.apiVersion).startsWith('rbac.authorization.k8s.io/');

  const warnings: string[] = [];
  const others = objects.filter((o) => {
    if (crds.includes(o) || deployments.includes(o) || samples.includes(o) || isRbac(o)) return false;
    if (isKind(o, 'Namespace', 'v1')) return false; // OLM creates the operator's namespace itself
    if (isKind(o, 'ServiceAccount', 'v1') && serviceAccounts.has(nameOf(o))) return false; // OLM creates it
    if (ALLOWED_KINDS.has(String(o.kind))) return true;
    warnings.push(`left out ${o.kind} ${nameOf(o)}: OLM does not accept kind ${o.kind} in a registry+v1 bundle`);
    return false;
  });

  const csv = buildCsv({
    packageName: input.packageName,
    version: input.version,
    displayName: input.displayName ?? displayNameOf(input.packageName),
    description: input.description ?? `${displayNameOf(input.packageName)}: a Helm-based operator.`,
    provider: input.provider ?? { name: input.packageName },
    image: input.image,
    minKubeVersion: input.minKubeVersion ?? DEFAULT_MIN_KUBE_VERSION,
    crds,
    deployments,
    samples,
    rbac,
  });

  const manifests = `${BUNDLE_DIR}/${MANIFESTS_DIR}`;
  const files: Record<string, string> = {
    [`${manifests}${input.packageName}.clusterserviceversion.yaml`]: toYaml(csv),
  };
  const plainObjects = [...crds, ...rbac.keep, ...others].map(plain);
  for (const o of plainObjects.sort((a, b) => fileName(a).localeCompare(fileName(b)))) {
    const path = `${manifests}${fileName(o)}`;
    if (path in files) throw new BundleError(`two manifests would both be written to ${path}: rename one of them`);
    files[path] = toYaml(o);
  }

  const annotations: Record<string, string> = {
    [ANNOTATION.mediatype]: MEDIATYPE,
    [ANNOTATION.manifests]: MANIFESTS_DIR,
    [ANNOTATION.metadata]: METADATA_DIR,
    [ANNOTATION.package]: input.packageName,
    [ANNOTATION.channels]: channels.join(','),
    [ANNOTATION.defaultChannel]: defaultChannel,
    'operators.operatorframework.io.metrics.builder': BUILDER,
    'operators.operatorframework.io.metrics.mediatype.v1': 'metrics+v1',
    'operators.operatorframework.io.metrics.project_layout': PROJECT_LAYOUT,
  };
  files[`${BUNDLE_DIR}/${METADATA_DIR}annotations.yaml`] = toYaml({ annotations });
  files['bundle.Dockerfile'] = dockerfile(annotations, BUNDLE_DIR);
  return { files, warnings };
}
