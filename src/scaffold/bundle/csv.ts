// Builds the ClusterServiceVersion of an OLM bundle from the project's objects: deployments (with the operator
// image and WATCH_NAMESPACE from OLM's target namespaces), RBAC as permissions, owned CRDs and alm-examples.
// Called by bundle.ts only; pure (never mutates its input, never touches the file system).

import { LAYOUT as PROJECT_LAYOUT } from '../templates/project.js';
import { BUILDER, CSV_API_VERSION, CSV_KIND, INSTALL_MODES } from './format.js';
import { type KubeObject, nameOf, type RbacSplit } from './rbac.js';

export interface CsvInput {
  readonly packageName: string;
  readonly version: string;
  readonly displayName: string;
  readonly description: string;
  readonly provider: { readonly name: string; readonly url?: string };
  readonly image: string | undefined;
  readonly minKubeVersion: string;
  readonly crds: readonly KubeObject[];
  readonly deployments: readonly KubeObject[];
  readonly samples: readonly KubeObject[];
  readonly rbac: RbacSplit;
}

type Container = { name?: string; image?: string; env?: ({ name?: string } & KubeObject)[] } & KubeObject;

/** OLM writes the OperatorGroup's target namespaces here (comma-separated; "" = all): WATCH_NAMESPACE's syntax. */
const TARGET_NAMESPACES = "metadata.annotations['olm.targetNamespaces']";

/** "MemcachedBackup" → "Memcached Backup"; "nginx-operator" → "Nginx Operator" (operator-sdk's display names). */
export function displayNameOf(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[-_\s]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join(' ');
}

/** Kubernetes' version order, newest first: v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > anything else (by name). */
export function compareKubeVersions(a: string, b: string): number {
  const rank = (v: string): number[] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0, 0];
    const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
    return [1, stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < ra.length; i++) {
    const d = (rb[i] ?? 0) - (ra[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

/** The container running the operator: the one named `manager` (kubebuilder's name), else the first. */
function operatorContainer(spec: KubeObject): Container | undefined {
  const pod = (spec.template as KubeObject | undefined)?.spec as KubeObject | undefined;
  const containers = (Array.isArray(pod?.containers) ? pod.containers : []) as Container[];
  return containers.find((c) => c.name === 'manager') ?? containers[0];
}

function deploymentEntry(dep: KubeObject, image: string | undefined): KubeObject {
  const spec = structuredClone((dep.spec ?? {}) as KubeObject);
  const c = operatorContainer(spec);
  if (c) {
    if (image !== undefined) c.image = image;
    const env = (c.env ?? []).filter((e) => e.name !== 'WATCH_NAMESPACE');
    c.env = [...env, { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: TARGET_NAMESPACES } } }];
  }
  const labels = (dep.metadata as KubeObject | undefined)?.labels;
  return { name: nameOf(dep), ...(labels ? { label: labels } : {}), spec };
}

function ownedCrds(crds: readonly KubeObject[]): KubeObject[] {
  return crds
    .flatMap((crd) => {
      const spec = (crd.spec ?? {}) as { names?: { kind?: string; plural?: string }; versions?: KubeObject[] };
      const kind = spec.names?.kind ?? '';
      return (spec.versions ?? []).map((v) => {
        const schema = (v.schema as { openAPIV3Schema?: { description?: unknown } } | undefined)?.openAPIV3Schema;
        const description =
          typeof schema?.description === 'string'
            ? schema.description
            : `${kind} is the Schema for the ${spec.names?.plural ?? ''} API`;
        return {
          name: nameOf(crd),
          version: String(v.name ?? ''),
          kind,
          displayName: displayNameOf(kind),
          description,
        };
      });
    })
    .sort(
      (a, b) =>
        a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind) || compareKubeVersions(a.version, b.version),
    );
}

function example(cr: KubeObject): KubeObject {
  const { status: _status, ...rest } = structuredClone(cr);
  const { namespace: _ns, ...metadata } = (rest.metadata ?? {}) as KubeObject;
  return { ...rest, metadata };
}

export function buildCsv(input: CsvInput): KubeObject {
  const deployments = input.deployments.map((d) => deploymentEntry(d, input.image));
  const first = deployments[0]?.spec as KubeObject | undefined;
  const containerImage = (first && operatorContainer(first)?.image) ?? input.image ?? '';
  const { permissions, clusterPermissions } = input.rbac;
  return {
    apiVersion: CSV_API_VERSION,
    kind: CSV_KIND,
    metadata: {
      name: `${input.packageName}.v${input.version}`,
      annotations: {
        'alm-examples': JSON.stringify(input.samples.map(example), null, 2),
        capabilities: 'Basic Install',
        containerImage,
        'operators.operatorframework.io/builder': BUILDER,
        'operators.operatorframework.io/project_layout': PROJECT_LAYOUT,
      },
    },
    spec: {
      displayName: input.displayName,
      description: input.description,
      version: input.version,
      maturity: 'alpha',
      provider: input.provider,
      keywords: [input.packageName],
      minKubeVersion: input.minKubeVersion,
      installModes: INSTALL_MODES.map((type) => ({ type, supported: true })),
      install: {
        strategy: 'deployment',
        spec: {
          ...(clusterPermissions.length > 0 ? { clusterPermissions } : {}),
          ...(permissions.length > 0 ? { permissions } : {}),
          deployments,
        },
      },
      customresourcedefinitions: { owned: ownedCrds(input.crds) },
    },
  };
}
