// The command line of `helm-operator generate rbac`: its usage text and its flags, parsed into generateRbac's
// options. Called by src/cmd/tools.ts. Pure; never reads a file (rbac.ts checks the values files it is given).
import { ScaffoldError } from '../errors.js';
import { DEFAULT_KUBE_VERSION, parseKubeVersionFlag } from './kube-version.js';
import type { GenerateRbacOptions } from './rbac.js';
import { parseValuesFlag, type ValuesFileFlag } from './value-sets.js';

export const GENERATE_RBAC_USAGE = `Usage: helm-operator generate rbac [--kube-version=X.Y.Z] [--values-from] [--values=[Kind=]FILE ...]

Regenerates config/rbac/role.yaml (the manager ClusterRole) from every entry of watches.yaml: the operator's own
rules, each kind's CR rules, and exact verbs on every kind its chart renders ("helm template") with its default
values, with the spec of each sample of that kind in config/samples, and with each --values file; the union of all.
Run it in the project directory after changing a chart or a sample. Kinds that are neither standard Kubernetes kinds
nor defined by the chart's CRDs are looked up in the cluster when one is reachable, and are an error otherwise.
A rule of role.yaml that nothing derives is kept and named in a warning; hand-written rules belong in
config/rbac/extra_role.yaml, which this command never rewrites (an older project without it gets it).

Flags:
  --kube-version string   the Kubernetes version charts are rendered for (default: the cluster's when one answers,
                          else ${DEFAULT_KUBE_VERSION})
  --values-from           also let the operator read (get, list, watch) ConfigMaps and Secrets, for CRs that take
                          chart values from them (helm.sdk.operatorframework.io/values-from); recorded in PROJECT,
                          which every later generate rbac follows
  --values [Kind=]FILE    also render the charts with this values file (only Kind's chart with Kind=); repeatable
`;

/** `generate rbac` takes `--kube-version`, `--values-from` and `--values`; `cwd` is the project directory. */
export function parseGenerateRbacArgs(argv: readonly string[], cwd: string): GenerateRbacOptions {
  let kubeVersion: string | undefined;
  let valuesFrom = false;
  const valuesFiles: ValuesFileFlag[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--values-from' || arg === '--values-from=true') {
      valuesFrom = true;
      continue;
    }
    const m = /^--(kube-version|values)(?:=(.*))?$/s.exec(arg);
    if (m === null) {
      throw new ScaffoldError(
        `unexpected argument ${JSON.stringify(arg)}: generate rbac takes only --kube-version, --values-from and --values; run it in the project directory`,
        'SCAFFOLD_BAD_ARGS',
      );
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new ScaffoldError(`flag needs an argument: --${m[1]}`, 'SCAFFOLD_BAD_ARGS');
    if (m[1] === 'values') valuesFiles.push(parseValuesFlag(value, cwd));
    else kubeVersion = parseKubeVersionFlag(value);
  }
  return {
    projectDir: cwd,
    ...(kubeVersion === undefined ? {} : { kubeVersion }),
    ...(valuesFrom ? { valuesFrom } : {}),
    ...(valuesFiles.length > 0 ? { valuesFiles } : {}),
  };
}
