// `helm-operator run bundle IMG`, `run bundle-upgrade IMG` and `cleanup PACKAGE` (operator-sdk's OLM commands and
// flags): parses the command line, builds the kube client and hands olm/run-bundle.ts or olm/cleanup-package.ts the
// options; prints what was made or deleted. Called by tools.ts; reads no process.* (env and streams come in).

import { parseDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';
import { parseToolFlags, type ToolFlagKind } from './flags/tool.js';

const NS = `  -n, --namespace=NS       namespace to work in (default: the kubeconfig context's, else default)
  --timeout=2m0s           how long to wait for everything the command waits for`;
const REGISTRY = `  --index-image=IMAGE      the opm image the registry pod runs (it renders the bundles with opm and serves them;
                           it needs sh and sed); default: the installed OLM's (its catalog operator's --opmImage)
  --image-pull-policy=Always  the registry pod's image pull policy (Always, IfNotPresent, Never)
  --security-context-config=legacy  legacy: no security context on the registry pod; restricted: one the
                           restricted Pod Security Standard admits (run as non-root, no privilege escalation)
  --use-http               pull the bundle images over plain HTTP (a registry without TLS)
  --skip-tls-verify        pull the bundle images without checking the registry's certificate`;

export const RUN_BUNDLE_USAGE = `Usage: helm-operator run bundle BUNDLE_IMAGE [flags]

Deploys the operator of a bundle image with OLM, as operator-sdk's run bundle: a registry pod renders the bundle
into a file-based catalog (package, channel operator-sdk-run-bundle) and serves it; a CatalogSource
<package>-catalog points at the pod's address; an OperatorGroup (operator-sdk-og, from the CSV's install modes, when
the namespace has none) and a Subscription <csv>-sub with Manual approval follow, and its InstallPlan is approved.
Waits for the CSV to reach Succeeded and prints what it made. OLM must be installed (helm-operator olm install).
${NS}
  --install-mode=MODE      AllNamespaces, OwnNamespace, SingleNamespace=NS or MultiNamespace=NS1,NS2
                           (default: the first of these the CSV supports)
${REGISTRY}
`;

export const RUN_BUNDLE_UPGRADE_USAGE = `Usage: helm-operator run bundle-upgrade BUNDLE_IMAGE [flags]

Upgrades an operator deployed by run bundle to a newer bundle: a new registry pod serves the bundles so far and
this one (each replacing the one before it), the CatalogSource moves to it and the old pod is deleted; the
Subscription's new InstallPlan is approved. Waits for the new CSV to reach Succeeded.
${NS}
${REGISTRY.replace(/default: the installed OLM's \(its catalog operator's --opmImage\)/, 'default: the one run bundle used')}
`;

export const CLEANUP_PACKAGE_USAGE = `Usage: helm-operator cleanup PACKAGE [-n NS] [--timeout=2m0s] [--delete-all=true] [--delete-crds]
                            [--delete-operator-groups]

Takes away an operator deployed by OLM (run bundle), as operator-sdk's cleanup: its Subscription, the CRDs its CSV
owns (and so their custom resources), the CSV, the CatalogSource and its registry pod, and the namespace's
OperatorGroup once no Subscription is left.
${NS}
  --delete-all=true        delete the CRDs and OperatorGroups too (false: only what the other flags ask for)
  --delete-crds            delete the CSV's owned CRDs and every custom resource of them
  --delete-operator-groups delete the namespace's OperatorGroups when no Subscription is left
`;

interface Io {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

/** The positional argument (IMAGE or PACKAGE) and the flags after or before it. */
function split(command: string, argv: readonly string[], spec: Record<string, ToolFlagKind>) {
  const positional: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    flags.push(arg);
    const name = /^--?([\w-]+)$/.exec(arg)?.[1];
    const full = name === 'n' ? 'namespace' : name;
    if (full !== undefined && spec[full] === 'string' && i + 1 < argv.length) flags.push(argv[++i] ?? '');
  }
  if (positional.length !== 1) {
    throw new ConfigError(`${command}: takes exactly one argument, got ${positional.length}`);
  }
  return { arg: positional[0] ?? '', flags: parseToolFlags(command, flags, spec, { n: 'namespace' }) };
}

async function client(io: Io) {
  const [{ createKubeClient }, { realClock }] = await Promise.all([
    import('../kube/client.js'),
    import('../core/clock.js'),
  ]);
  const handle = createKubeClient({ env: io.env });
  return { kube: handle.client, clock: realClock, namespace: handle.describe().namespace ?? 'default' };
}

const str = (flags: Map<string, string | boolean>, key: string) =>
  typeof flags.get(key) === 'string' ? String(flags.get(key)) : undefined;

export async function runBundleCommand(
  verb: 'bundle' | 'bundle-upgrade',
  argv: readonly string[],
  io: Io,
  signal: AbortSignal,
): Promise<number> {
  const spec: Record<string, ToolFlagKind> = {
    namespace: 'string',
    timeout: 'string',
    'index-image': 'string',
    'image-pull-policy': 'string',
    'security-context-config': 'string',
    'use-http': 'bool',
    'skip-tls-verify': 'bool',
  };
  if (verb === 'bundle') spec['install-mode'] = 'string';
  const { arg, flags } = split(`run ${verb}`, argv, spec);
  const pull = str(flags, 'image-pull-policy') ?? 'Always';
  if (pull !== 'Always' && pull !== 'IfNotPresent' && pull !== 'Never') {
    throw new ConfigError(`run ${verb}: --image-pull-policy must be Always, IfNotPresent or Never, not ${pull}`);
  }
  const security = str(flags, 'security-context-config') ?? 'legacy';
  if (security !== 'legacy' && security !== 'restricted') {
    throw new ConfigError(`run ${verb}: --security-context-config must be legacy or restricted, not ${security}`);
  }
  if (flags.get('use-http') === true && flags.get('skip-tls-verify') === true) {
    throw new ConfigError(`run ${verb}: --use-http and --skip-tls-verify cannot both be set`);
  }
  const { parseInstallMode } = await import('../olm/objects.js');
  const mode = str(flags, 'install-mode');
  const installMode = mode === undefined ? undefined : parseInstallMode(mode);
  const [run, c] = await Promise.all([import('../olm/run-bundle.js'), client(io)]);
  const options = {
    bundleImage: arg,
    namespace: str(flags, 'namespace') ?? c.namespace,
    timeoutMs: parseDuration(str(flags, 'timeout') ?? '2m'),
    indexImage: str(flags, 'index-image'),
    installMode,
    pullPolicy: pull as 'Always' | 'IfNotPresent' | 'Never',
    securityContext: security as 'legacy' | 'restricted',
    renderFlags: [
      ...(flags.get('use-http') === true ? ['--use-http'] : []),
      ...(flags.get('skip-tls-verify') === true ? ['--skip-tls-verify'] : []),
    ],
  };
  const deps = { kube: c.kube, clock: c.clock, say: (line: string) => io.stderr.write(`${line}\n`) };
  const made =
    verb === 'bundle' ? await run.runBundle(options, deps, signal) : await run.upgradeBundle(options, deps, signal);
  const ns = options.namespace;
  io.stdout.write(
    [
      `package               ${made.package}`,
      `csv                   ${ns}/${made.csv} (Succeeded)`,
      `catalogsource         ${ns}/${made.catalogSource}`,
      `registry pod          ${ns}/${made.registryPod}`,
      `operatorgroup         ${ns}/${made.operatorGroup}`,
      `subscription          ${ns}/${made.subscription}`,
      `installplan           ${ns}/${made.installPlan} (approved)`,
      '',
    ].join('\n'),
  );
  return 0;
}

export async function cleanupPackageCommand(argv: readonly string[], io: Io, signal: AbortSignal): Promise<number> {
  const { arg, flags } = split('cleanup', argv, {
    namespace: 'string',
    timeout: 'string',
    'delete-all': 'bool',
    'delete-crds': 'bool',
    'delete-operator-groups': 'bool',
  });
  const all = flags.get('delete-all') !== false;
  const [{ cleanupPackage }, c] = await Promise.all([import('../olm/cleanup-package.js'), client(io)]);
  const deleted = await cleanupPackage(
    {
      package: arg,
      namespace: str(flags, 'namespace') ?? c.namespace,
      timeoutMs: parseDuration(str(flags, 'timeout') ?? '2m'),
      deleteCrds: all || flags.get('delete-crds') === true,
      deleteOperatorGroups: all || flags.get('delete-operator-groups') === true,
    },
    { kube: c.kube, clock: c.clock, say: (line: string) => io.stderr.write(`${line}\n`) },
    signal,
  );
  io.stdout.write(deleted.map((d) => `deleted ${d}\n`).join(''));
  return 0;
}
