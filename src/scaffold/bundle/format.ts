// The OLM "registry+v1" bundle format's fixed names (annotation keys, directories, allowed kinds) and the name and
// version syntaxes it requires, shared by the bundle generator (bundle.ts) and validator (validate*.ts), and the
// validator's Findings. Constants, types and pure predicates only.

export const ANNOTATION = {
  mediatype: 'operators.operatorframework.io.bundle.mediatype.v1',
  manifests: 'operators.operatorframework.io.bundle.manifests.v1',
  metadata: 'operators.operatorframework.io.bundle.metadata.v1',
  package: 'operators.operatorframework.io.bundle.package.v1',
  channels: 'operators.operatorframework.io.bundle.channels.v1',
  defaultChannel: 'operators.operatorframework.io.bundle.channel.default.v1',
} as const;

export const MEDIATYPE = 'registry+v1';
export const MANIFESTS_DIR = 'manifests/';
export const METADATA_DIR = 'metadata/';
/** Who wrote the bundle: operator-sdk writes `operator-sdk-<version>` here. */
export const BUILDER = 'helm-operator-ts';
/** The PROJECT layout (the same constant init writes into PROJECT). */

export const CSV_API_VERSION = 'operators.coreos.com/v1alpha1';
export const CSV_KIND = 'ClusterServiceVersion';
export const INSTALL_MODES = ['OwnNamespace', 'SingleNamespace', 'MultiNamespace', 'AllNamespaces'] as const;

/** Kinds OLM accepts in a registry+v1 bundle's manifests/ (operator-registry's supported kinds). */
export const ALLOWED_KINDS: ReadonlySet<string> = new Set([
  'ClusterServiceVersion',
  'CustomResourceDefinition',
  'Service',
  'ConfigMap',
  'Secret',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
  'ServiceAccount',
  'PrometheusRule',
  'ServiceMonitor',
  'PodDisruptionBudget',
  'PriorityClass',
  'VerticalPodAutoscaler',
  'ConsoleYAMLSample',
  'ConsoleQuickStart',
  'ConsoleCLIDownload',
  'ConsoleLink',
  'NetworkPolicy',
]);

// semver.org's recommended expression (no leading "v").
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isSemver(v: string): boolean {
  return SEMVER.test(v);
}

/**
 * The semver OLM reads from a CSV's spec.version (blang/semver's ParseTolerant: spaces and a leading "v" dropped,
 * leading zeros dropped, "1" and "1.2" filled up to "1.0.0" and "1.2.0"), or undefined when it reads none.
 */
export function tolerantSemver(v: string): string | undefined {
  const [major = '', minor, ...rest] = v.trim().replace(/^v/, '').split('.');
  const parts = [major, ...(minor === undefined ? [] : [minor]), ...(rest.length > 0 ? [rest.join('.')] : [])].map(
    (p) => {
      if (p.length <= 1) return p;
      const t = p.replace(/^0+/, '');
      return /^[0-9]/.test(t) ? t : `0${t}`;
    },
  );
  if (parts.length < 3 && /[+-]/.test(parts.at(-1) ?? '')) return undefined;
  while (parts.length < 3) parts.push('0');
  const out = parts.join('.');
  return isSemver(out) ? out : undefined;
}

/** A DNS-1123 label: what a package name must be (it becomes part of object names). */
export function isDnsLabel(s: string): boolean {
  return s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
}

/** A CSV's metadata.name must be a DNS-1123 subdomain that is also a valid label value (so at most 63 long). */
export function isCsvName(s: string): boolean {
  return s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);
}

/** One object of a bundle's manifests/ folder and the file it came from. */
export interface Manifest {
  readonly file: string;
  readonly object: Record<string, unknown>;
}

/** What a bundle check found: errors make the bundle invalid, warnings do not. Each line names the file and field. */
export interface Findings {
  readonly errors: string[];
  readonly warnings: string[];
}

/** A DNS-1035 label (a CRD version name, plural, singular, lowercased kind): starts with a letter. */
export function isDns1035Label(s: string): boolean {
  return s.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s);
}
