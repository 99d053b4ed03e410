// The CLI's usage texts, and the dispatch of its command groups (`create`, `generate`, `bundle`, `olm`): `--help` on a group lists
// its subcommands (exit 0), a missing or unknown one says which there are (exit 2). Called by cli.ts; writes only to
// the streams it is handed, never reads process.*.

export const USAGE = `Usage: helm-operator <command> [flags]

Commands:
  run       run the operator (see helm-operator run --help)
  version   print the operator's version (--helm: and the version of the helm it finds)
  init      write a new operator project (Dockerfile, Makefile, watches.yaml, config/)
  create api       add a kind: chart into charts/, watches.yaml entry, CRD, sample CR, RBAC
  generate rbac    regenerate config/rbac/role.yaml from the charts in watches.yaml
  generate bundle  write and validate the OLM bundle from the rendered config/manifests
  bundle validate  check an OLM bundle directory by OLM's validators' rules (as operator-sdk's)
  olm install      install Operator Lifecycle Manager in the cluster (--version, --timeout)
  olm status       OLM's objects in the cluster and their health
  olm uninstall    delete every object of the installed OLM
  run bundle IMG          deploy a bundle image's operator with OLM (registry pod, CatalogSource, Subscription)
  run bundle-upgrade IMG  upgrade an operator deployed by run bundle to a newer bundle image
  cleanup PACKAGE         take away an operator deployed by run bundle (Subscription, CSV, CRDs, catalog)
  undeploy  delete the CRs first (their releases are uninstalled by the running operator), then the rest
  cleanup   free CRs whose operator is gone: uninstall releases, remove finalizers (--dry-run, --yes)
  pack      write this CLI's own npm package (.tgz) into a folder (make docker-build packs it for the image)

`;

/** The command groups and their subcommands, with one line each for the group's help. */
export const GROUPS = {
  create: { api: 'add a kind: chart into charts/, watches.yaml entry, CRD, sample CR, RBAC' },
  generate: {
    rbac: 'regenerate config/rbac/role.yaml from the charts in watches.yaml',
    bundle: 'write and validate the OLM bundle from the rendered config/manifests',
  },
  bundle: { validate: "check an OLM bundle directory by OLM's validators' rules (as operator-sdk's)" },
  olm: {
    install: 'install Operator Lifecycle Manager in the cluster (--version, --timeout)',
    status: "OLM's objects in the cluster and their health",
    uninstall: 'delete every object of the installed OLM',
  },
} as const;

export type Group = keyof typeof GROUPS;

/** `helm-operator <group> --help`. */
export function groupUsage(group: Group): string {
  const subs = Object.entries(GROUPS[group]);
  const width = Math.max(...subs.map(([name]) => name.length));
  const lines = subs.map(([name, what]) => `  ${name.padEnd(width)}  ${what}`);
  return `Usage: helm-operator ${group} <subcommand> [flags]\n\nSubcommands:\n${lines.join('\n')}\n\nSee helm-operator ${group} <subcommand> --help.\n`;
}

interface Streams {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

/** The subcommand of `group` that `sub` names, or the exit code once help or an error has been printed. */
export function pickSubcommand(group: Group, sub: string | undefined, io: Streams): string | number {
  if (sub !== undefined && Object.hasOwn(GROUPS[group], sub)) return sub;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(groupUsage(group));
    return 0;
  }
  const choices = Object.keys(GROUPS[group]).join(' or ');
  const what = sub === undefined ? 'needs a subcommand' : `: unknown subcommand ${JSON.stringify(sub)}`;
  io.stderr.write(
    `helm-operator ${group}${sub === undefined ? ' ' : ''}${what}; try ${choices}\n\n${groupUsage(group)}`,
  );
  return 2;
}
