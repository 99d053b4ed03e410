// `helm-operator olm install | status | uninstall` (operator-sdk's `olm` commands and flags): parses the flags, builds
// the kube client and hands olm/installer.ts the manifests' source (--manifests, else HELM_OPERATOR_OLM_MANIFESTS,
// else OLM's release download). Called by tools.ts (runOlm*); reads no process.* (env and streams come in).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseDuration } from '../core/duration.js';
import { DEFAULT_OLM_VERSION } from '../olm/version.js';
import { parseToolFlags, type ToolFlagKind } from './flags/tool.js';

const COMMON = `  --timeout=2m0s        time to wait for the command to complete before failing
  --manifests=DIR|URL   a folder (or base URL) holding the version's crds.yaml and olm.yaml, instead of OLM's
                        release download (default $HELM_OPERATOR_OLM_MANIFESTS; hack/olm/build-olm.sh writes one)
`;

export const OLM_INSTALL_USAGE = `Usage: helm-operator olm install [--version=${DEFAULT_OLM_VERSION}] [--timeout=2m0s] [--manifests=DIR|URL]

Installs Operator Lifecycle Manager in the cluster of your kubeconfig: its CRDs, then its namespaces, RBAC and
operators from the version's crds.yaml and olm.yaml; waits for olm-operator and catalog-operator to roll out and
the packageserver CSV to succeed, then prints the status of every object. Fails when any of them exists already.
  --version=${DEFAULT_OLM_VERSION}      version of OLM resources to install
${COMMON}`;

export const OLM_STATUS_USAGE = `Usage: helm-operator olm status [--olm-namespace=olm] [--version=V] [--timeout=2m0s] [--manifests=DIR|URL]

Prints each object of the installed OLM's manifests, whether it is installed, and its health (a Deployment's
available replicas, a CSV's phase, a CRD's Established condition). Exits 1 when OLM is not installed, 3 when it is
but an object is missing or not healthy.
  --olm-namespace=olm   namespace where OLM is installed
  --version=V           version of OLM installed on the cluster; if unset, found from its packageserver CSV
${COMMON}`;

export const OLM_UNINSTALL_USAGE = `Usage: helm-operator olm uninstall [--olm-namespace=olm] [--version=V] [--timeout=2m0s] [--manifests=DIR|URL]

Deletes every object of the installed OLM's manifests (CRDs first, so their custom resources go with them) and
waits until each is gone.
  --olm-namespace=olm   namespace from where OLM is to be uninstalled
  --version=V           version of OLM resources to uninstall; if unset, found from its packageserver CSV
${COMMON}`;

interface OlmIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

type Verb = 'install' | 'status' | 'uninstall';

/** The options of one olm command from its flags and the environment. */
export function parseOlmArgs(verb: Verb, argv: readonly string[], io: Pick<OlmIo, 'env' | 'cwd'>) {
  const spec: Record<string, ToolFlagKind> = { version: 'string', timeout: 'string', manifests: 'string' };
  if (verb !== 'install') spec['olm-namespace'] = 'string';
  const flags = parseToolFlags(`olm ${verb}`, argv, spec);
  const str = (k: string) => (typeof flags.get(k) === 'string' ? String(flags.get(k)) : undefined);
  const manifests = str('manifests') ?? (io.env.HELM_OPERATOR_OLM_MANIFESTS || undefined);
  return {
    version: str('version') ?? (verb === 'install' ? DEFAULT_OLM_VERSION : ''),
    timeoutMs: parseDuration(str('timeout') ?? '2m'),
    manifests: manifests === undefined || /^https?:\/\//.test(manifests) ? manifests : resolve(io.cwd, manifests),
    namespace: str('olm-namespace') ?? 'olm',
  };
}

export async function runOlm(verb: Verb, argv: readonly string[], io: OlmIo, signal: AbortSignal): Promise<number> {
  const options = parseOlmArgs(verb, argv, io);
  const [{ createKubeClient }, { realClock }, installer, { formatStatus }] = await Promise.all([
    import('../kube/client.js'),
    import('../core/clock.js'),
    import('../olm/installer.js'),
    import('../olm/status.js'),
  ]);
  const deps = {
    kube: createKubeClient({ env: io.env }).client,
    clock: realClock,
    readers: {
      fetch: (url: string, init: { signal: AbortSignal }) => fetch(url, init),
      readFile: (p: string) => readFile(p, 'utf8'),
    },
    say: (line: string) => io.stderr.write(`${line}\n`),
  };
  switch (verb) {
    case 'install': {
      const rows = await installer.installOlm(options, deps, signal);
      io.stdout.write(`\n${formatStatus(rows)}`);
      return 0;
    }
    case 'status': {
      const { rows, healthy, version } = await installer.olmStatus(options, deps, signal);
      deps.say(
        `${healthy ? 'Successfully got' : 'Got'} OLM status for version ${JSON.stringify(version)}${healthy ? '' : ': not every object is installed and healthy'}`,
      );
      io.stdout.write(`\n${formatStatus(rows)}`);
      return healthy ? 0 : 3;
    }
    case 'uninstall':
      await installer.uninstallOlm(options, deps, signal);
      return 0;
  }
}
