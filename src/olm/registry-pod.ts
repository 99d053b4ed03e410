// The registry pod of `run bundle` / `run bundle-upgrade` (as operator-sdk's FBC registry pod): an init container of
// the index (opm) image renders the bundle images with `opm render` into a file-based catalog, adds the package and
// one channel (each bundle replacing the one before it) and says the package and the channel head in its termination
// message; the main container serves it with `opm serve` on :50051. Pure: olm/run-bundle.ts creates and reads it.
import { OperatorError } from '../core/errors.js';
import type { KubeObject } from '../kube/types.js';

export class RegistryPodError extends OperatorError {
  readonly code = 'OLM_REGISTRY_POD';
}

/** The channel of the catalogs run bundle makes (operator-sdk's name, so its subscriptions look the same). */
export const RUN_BUNDLE_CHANNEL = 'operator-sdk-run-bundle';
export const GRPC_PORT = 50051;
/** CatalogSource annotations, as operator-sdk's: what bundle-upgrade and cleanup read back. */
export const ANNOTATIONS = {
  indexImage: 'operators.operatorframework.io/index-image',
  injectedBundles: 'operators.operatorframework.io/injected-bundles',
  registryPod: 'operators.operatorframework.io/registry-pod-name',
} as const;

export interface RegistryPodSpec {
  readonly namespace: string;
  /** @default podNameFor(the newest bundle image) */
  readonly name?: string;
  /** The bundle images, oldest first: the last is the channel head. */
  readonly bundles: readonly string[];
  /** An opm image with a POSIX shell and sed (OLM's opm image; the catalog operator's --opmImage by default). */
  readonly indexImage: string;
  readonly pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  /** Flags for opm render: --use-http, --skip-tls-verify. */
  readonly renderFlags: readonly string[];
  /** 'restricted': a pod the restricted Pod Security Standard admits; 'legacy': no security context (operator-sdk's default). */
  readonly securityContext: 'legacy' | 'restricted';
}

/** A DNS-1123 label from an image reference (operator-sdk names the pod after the newest bundle image). */
export function podNameFor(bundleImage: string): string {
  const name = bundleImage
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name.slice(0, 63).replace(/-+$/, '') || 'registry';
}

// The init container's script: opm writes the bundles' olm.bundle blobs (top-level keys `name:` and `package:` at
// the start of a line in its YAML), sed reads their names, and the package and channel blobs are written beside them.
// BUNDLES and RENDER_FLAGS are words (image references and flags hold no blanks); the termination message is small.
const RENDER_SCRIPT = `set -eu
dir=/configs/run-bundle
mkdir -p "$dir"
# opm pulls through containers/image, which wants a signature policy; an image without one gets the permissive default.
if [ ! -e /etc/containers/policy.json ] && [ ! -e "$HOME/.config/containers/policy.json" ]; then
  mkdir -p "$HOME/.config/containers"
  echo '{"default":[{"type":"insecureAcceptAnything"}]}' > "$HOME/.config/containers/policy.json"
fi
opm render $BUNDLES $RENDER_FLAGS -o yaml > "$dir/bundles.yaml"
pkg=$(sed -n 's/^package: //p' "$dir/bundles.yaml" | sort -u)
case "$pkg" in *"
"*|"") echo "the bundles must be of one package, not: $pkg" >&2; exit 1;; esac
prev=
{
  echo '---'; echo 'schema: olm.package'; echo "name: $pkg"; echo "defaultChannel: $CHANNEL"
  echo '---'; echo 'schema: olm.channel'; echo "package: $pkg"; echo "name: $CHANNEL"; echo 'entries:'
  for name in $(sed -n 's/^name: //p' "$dir/bundles.yaml"); do
    echo "- name: $name"
    if [ -n "$prev" ]; then echo "  replaces: $prev"; fi
    prev=$name
  done
} > "$dir/package.yaml"
opm validate /configs
echo "package=$pkg" > /dev/termination-log; echo "head=$prev" >> /dev/termination-log
`;

/** The registry pod for `spec` (its name from the newest bundle image). */
export function registryPod(spec: RegistryPodSpec): KubeObject {
  const head = spec.bundles.at(-1);
  if (head === undefined) throw new RegistryPodError('a registry pod needs at least one bundle image');
  const restricted = spec.securityContext === 'restricted';
  const containerSecurity = restricted
    ? { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true } }
    : {};
  const volumeMounts = [{ name: 'configs', mountPath: '/configs' }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: spec.name ?? podNameFor(head),
      namespace: spec.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'helm-operator-run-bundle' },
    },
    spec: {
      ...(restricted ? { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } } : {}),
      terminationGracePeriodSeconds: 5,
      volumes: [{ name: 'configs', emptyDir: {} }],
      initContainers: [
        {
          name: 'render',
          image: spec.indexImage,
          imagePullPolicy: spec.pullPolicy,
          command: ['sh', '-c', RENDER_SCRIPT],
          env: [
            { name: 'BUNDLES', value: spec.bundles.join(' ') },
            { name: 'RENDER_FLAGS', value: spec.renderFlags.join(' ') },
            { name: 'CHANNEL', value: RUN_BUNDLE_CHANNEL },
            { name: 'HOME', value: '/tmp' },
          ],
          volumeMounts,
          ...containerSecurity,
        },
      ],
      containers: [
        {
          name: 'registry-grpc',
          image: spec.indexImage,
          imagePullPolicy: spec.pullPolicy,
          command: ['opm', 'serve', '/configs', '-p', String(GRPC_PORT)],
          ports: [{ name: 'grpc', containerPort: GRPC_PORT }],
          // kubelet's own gRPC health check (opm serve implements grpc.health.v1): no probe binary in the image.
          readinessProbe: { grpc: { port: GRPC_PORT }, periodSeconds: 2, failureThreshold: 30 },
          volumeMounts,
          ...containerSecurity,
        },
      ],
    },
  };
}

/** What the render container reported: the package and the channel head (the newest bundle's CSV). */
export function renderResult(pod: KubeObject): { readonly package: string; readonly head: string } | undefined {
  const statuses = (pod.status as { initContainerStatuses?: ContainerStatus[] } | undefined)?.initContainerStatuses;
  const message = statuses?.find((s) => s.name === 'render')?.state?.terminated;
  if (message?.exitCode !== 0 || message.message === undefined) return undefined;
  const fields = Object.fromEntries(
    message.message
      .split('\n')
      .map((l) => l.split('=', 2))
      .filter((kv): kv is [string, string] => kv.length === 2),
  );
  const pkg = fields.package;
  const head = fields.head;
  return pkg && head ? { package: pkg, head } : undefined;
}

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    terminated?: { exitCode?: number; reason?: string; message?: string };
  };
}

/**
 * Why the registry pod is not serving yet (undefined once it is Ready with its render result); throws when it cannot
 * become so (the render failed, an image cannot be pulled, the pod failed).
 */
export function registryPodWaiting(pod: KubeObject | undefined): string | undefined {
  if (pod === undefined) return 'not found';
  const status = (pod.status ?? {}) as {
    phase?: string;
    podIP?: string;
    conditions?: { type?: string; status?: string }[];
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
  const name = pod.metadata.name ?? '';
  const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  for (const c of all) {
    const terminated = c.state?.terminated;
    if (terminated !== undefined && terminated.exitCode !== 0) {
      throw new RegistryPodError(
        `registry pod ${name}: container ${c.name} exited with ${terminated.exitCode}${terminated.message ? `: ${terminated.message.trim()}` : ''} (kubectl logs -n ${pod.metadata.namespace} ${name} -c ${c.name})`,
      );
    }
    const waiting = c.state?.waiting;
    if (
      waiting?.reason === 'ErrImagePull' ||
      waiting?.reason === 'ImagePullBackOff' ||
      waiting?.reason === 'InvalidImageName'
    ) {
      throw new RegistryPodError(
        `registry pod ${name}: container ${c.name}: ${waiting.reason}: ${waiting.message ?? ''}`.trim(),
      );
    }
    if (waiting?.reason === 'CrashLoopBackOff') {
      throw new RegistryPodError(
        `registry pod ${name}: container ${c.name} keeps exiting (kubectl logs -n ${pod.metadata.namespace} ${name} -c ${c.name})`,
      );
    }
  }
  if (status.phase === 'Failed') throw new RegistryPodError(`registry pod ${name} failed`);
  const ready = status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  if (!ready || !status.podIP) return `phase ${status.phase ?? 'Pending'}${ready ? '' : ', not Ready'}`;
  if (renderResult(pod) === undefined)
    throw new RegistryPodError(`registry pod ${name}: its render container reported no package`);
  return undefined;
}
