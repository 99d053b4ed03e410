// The startup bad-input cases as data: watches.yaml, charts, helm, kubeconfig, flags and CRDs, each with the error
// code and message fragment the docs (docs/*.md) document (or, for an unknown watches key, the documented warning).
// A table for index.ts, run by startup.ts; writes nothing but its own input files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfigWith, type StartupCase } from './startup.ts';

const NGINX = '  group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n';
const entry = (extra: string, chart = 'CHART') => `-${NGINX.slice(1)}  chart: ${chart}\n${extra}`;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const pki = (plane: { dir: string }, file: string) => b64(readFileSync(join(plane.dir, 'pki', file), 'utf8'));
const invalid = (match: RegExp) => ({ code: 'WATCHES_INVALID', match });
const transport = (match: RegExp) => ({ code: 'KUBE_TRANSPORT', match });

export function startupCases(): StartupCase[] {
  return [
    {
      name: 'watches.yaml: not a list',
      bar: 'exit 1, WATCHES_INVALID "must be a list"',
      short: true,
      inputs: () => ({ watches: `${NGINX.replaceAll('  ', '')}chart: CHART\n` }),
      exits: invalid(/:1: the top level must be a list/),
    },
    {
      name: 'watches.yaml: the same kind twice',
      bar: 'exit 1, WATCHES_INVALID "duplicate GVK" naming both entries',
      short: true,
      inputs: () => ({ watches: entry('') + entry('') }),
      exits: invalid(/(?<=:5: entry 2 .*)duplicate GVK, entry 1 on line 1/),
    },
    {
      name: 'watches.yaml: a chart that does not exist',
      bar: 'exit 1, WATCHES_INVALID naming the chart path',
      inputs: () => ({ watches: entry('', 'charts/absent') }),
      exits: invalid(/(?<=chart: "charts\/absent" .*)is not a Helm chart directory: it does not exist/),
    },
    {
      name: 'watches.yaml: an unknown key',
      bar: 'a warning naming the key (as documented); runs',
      inputs: () => ({ watches: entry('  chartt: charts/nginx\n') }),
      warns: /unknown key "chartt" is ignored/,
    },
    {
      name: 'watches.yaml: the file is missing',
      bar: 'exit 1, WATCHES_NOT_FOUND naming the file',
      inputs: () => ({ watches: null }),
      exits: { code: 'WATCHES_NOT_FOUND', match: /cannot read the watches file \S+watches\.yaml: it does not exist/ },
    },
    {
      name: 'watches.yaml: a YAML syntax error',
      bar: 'exit 1, WATCHES_INVALID "YAML syntax error" with line',
      inputs: () => ({ watches: `${entry('')}- group: [demo\n` }),
      exits: invalid(/watches\.yaml:\d+:\d+: YAML syntax error/),
    },
    {
      name: 'watches.yaml: reconcilePeriod "abc"',
      bar: 'exit 1, WATCHES_INVALID naming reconcilePeriod',
      inputs: () => ({ watches: entry('  reconcilePeriod: abc\n') }),
      exits: invalid(/entry 1 .*reconcilePeriod: invalid duration "abc"/),
    },
    {
      name: 'watches.yaml: helmTimeout "0s"',
      bar: 'exit 1, WATCHES_INVALID "helmTimeout … above zero"',
      inputs: () => ({ watches: entry('  helmTimeout: 0s\n') }),
      exits: invalid(/helmTimeout: invalid helm timeout "0s": it must be above zero/),
    },
    {
      name: 'chart: Chart.yaml that is not YAML',
      bar: 'exit 1, WATCHES_INVALID "Chart.yaml cannot be read"',
      inputs: (s) => ({ watches: entry('', join(s.root, 'chaos/fixtures/bad-chart-yaml')) }),
      exits: invalid(/bad-chart-yaml"? is not a Helm chart directory: its Chart\.yaml cannot be read/),
    },
    {
      name: 'no helm (HELM_BINARY a missing file)',
      bar: 'exit 1, HELM_NOT_FOUND naming the path',
      short: true,
      inputs: (s) => ({ helm: join(s.work, 'no-such-helm') }),
      exits: { code: 'HELM_NOT_FOUND', match: /helm binary "[^"]*no-such-helm" not found/ },
    },
    {
      name: 'an old helm (v3.5.0)',
      bar: 'exit 1, HELM_UNSUPPORTED_VERSION "too old … >= 3.13"',
      short: true,
      inputs: (s) => ({ helm: s.fakeHelm('old-helm.sh') }),
      exits: {
        code: 'HELM_UNSUPPORTED_VERSION',
        match: /helm v3\.5\.0\S* is too old: helm-operator needs helm >= 3\.13/,
      },
    },
    {
      name: 'a helm whose version is unreadable',
      bar: 'exit 1, HELM_UNSUPPORTED_VERSION "cannot parse"',
      inputs: (s) => ({ helm: s.fakeHelm('garbage-helm.sh') }),
      exits: { code: 'HELM_UNSUPPORTED_VERSION', match: /cannot parse the output of `helm version --short`/ },
    },
    {
      name: 'a helm that hangs on `helm version`',
      bar: 'exit 1 within 90 s, HELM_UNSUPPORTED_VERSION "did not answer within 30s"',
      inputs: (s) => ({ helm: s.fakeHelm('hang-helm.sh'), env: { CHAOS_HANG_VERSION: '1', CHAOS_REAL_HELM: s.helm } }),
      exits: { code: 'HELM_UNSUPPORTED_VERSION', match: /helm version did not answer within 30s/ },
    },
    {
      name: 'kubeconfig: CA of another issuer',
      bar: 'exit 1, KUBE_TRANSPORT, certificate not verified',
      inputs: (s) => ({
        kubeconfig: kubeconfigWith(s, 'other-ca', 'certificate-authority-data', pki(s.plane, 'admin.crt')),
      }),
      exits: transport(/unable to verify the first certificate|self[- ]signed|unknown authority/),
    },
    {
      name: 'kubeconfig: CA data that is not a certificate',
      bar: 'exit 1, CONFIG_INVALID naming certificate-authority[-data]',
      inputs: (s) => ({
        kubeconfig: kubeconfigWith(s, 'garbage-ca', 'certificate-authority-data', b64('not a certificate\n')),
      }),
      exits: { code: 'CONFIG_INVALID', match: /certificate-authority\[-data\]\) holds no PEM certificate/ },
    },
    {
      name: 'kubeconfig: client certificate that is not PEM',
      bar: 'exit 1, CONFIG_INVALID naming client-certificate[-data]',
      inputs: (s) => ({
        kubeconfig: kubeconfigWith(s, 'garbage-cert', 'client-certificate-data', b64('not a certificate\n')),
      }),
      exits: { code: 'CONFIG_INVALID', match: /client-certificate\[-data\]\) holds no PEM certificate/ },
    },
    {
      name: 'kubeconfig: client key of another certificate',
      bar: 'exit 1, KUBE_TRANSPORT "key values mismatch"',
      inputs: (s) => ({ kubeconfig: kubeconfigWith(s, 'other-key', 'client-key-data', pki(s.plane, 'apiserver.key')) }),
      exits: transport(/key values mismatch/),
    },
    {
      name: 'CRD of a watched kind not installed',
      bar: 'exit 1, CRD_NOT_FOUND naming the kind',
      inputs: () => ({ watches: '- group: chaos.example.com\n  version: v1\n  kind: Absent\n  chart: CHART\n' }),
      exits: { code: 'CRD_NOT_FOUND', match: /does not serve chaos\.example\.com\/v1, Kind=Absent; install its/ },
    },
    {
      name: 'flag --reconcile-period=abc',
      bar: 'exit 2, one plain line naming the flag, CONFIG_INVALID',
      inputs: () => ({ args: ['--reconcile-period=abc'] }),
      exits: { code: 'CONFIG_INVALID', match: /--reconcile-period: invalid duration "abc"/, plain: true },
    },
  ];
}
