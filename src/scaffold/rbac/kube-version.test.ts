import { describe, expect, it } from 'vitest';
import { helmCommandError } from '../../../test/fakes/helm.js';
import {
  chartRenderError,
  DEFAULT_KUBE_VERSION,
  helmSaid,
  kubeVersionMismatch,
  parseKubeVersionFlag,
  renderVersion,
  resolveRenderVersion,
} from './kube-version.js';
import type { DiscoverKind } from './rules.js';

const signal = () => new AbortController().signal;
const helmFailure = (stderr: string) =>
  helmCommandError('template', stderr, { release: 'release-name', namespace: 'default' });
const cluster = (version: () => Promise<string>): DiscoverKind =>
  Object.assign(async () => undefined, { serverVersion: version });

describe('the Kubernetes version charts are rendered for', () => {
  it('is a current release by default, kept in one constant', () => {
    expect(DEFAULT_KUBE_VERSION).toMatch(/^v1\.(3[6-9]|[4-9]\d)\.\d+$/);
    expect(renderVersion()).toEqual({ version: DEFAULT_KUBE_VERSION, source: 'default' });
  });

  it('is --kube-version when given, normalised to vX.Y.Z, and refuses what is not a version', () => {
    expect(parseKubeVersionFlag('1.29')).toBe('v1.29.0');
    expect(parseKubeVersionFlag('v1.30.2')).toBe('v1.30.2');
    expect(() => parseKubeVersionFlag('latest')).toThrow(/--kube-version "latest" is not a Kubernetes version/);
    expect(() => parseKubeVersionFlag('1.30.0-rc.1')).toThrow(/not a Kubernetes version/);
  });

  it("is the cluster's version when one answers and no flag is given; the flag wins over the cluster", async () => {
    const eks = cluster(async () => 'v1.30.4-eks-a737599');
    expect(await resolveRenderVersion(undefined, eks, signal())).toEqual({
      version: 'v1.30.4-eks-a737599',
      source: 'cluster',
    });
    expect(await resolveRenderVersion('v1.29.0', eks, signal())).toEqual({ version: 'v1.29.0', source: 'flag' });
  });

  it('falls back to the default when the cluster cannot tell, and stops when aborted', async () => {
    const broken = cluster(async () => {
      throw new Error('connection refused');
    });
    expect(await resolveRenderVersion(undefined, broken, signal())).toEqual(renderVersion());
    expect(
      await resolveRenderVersion(
        undefined,
        cluster(async () => 'weird'),
        signal(),
      ),
    ).toEqual(renderVersion());
    expect(await resolveRenderVersion(undefined, undefined, signal())).toEqual(renderVersion());
    const aborted = new AbortController();
    aborted.abort();
    await expect(resolveRenderVersion(undefined, broken, aborted.signal)).rejects.toThrow();
  });
});

describe('SCAFFOLD_CHART_RENDER', () => {
  it("reads helm 3's and helm 4's kubeVersion mismatch", () => {
    expect(
      kubeVersionMismatch(
        'Error: chart requires kubeVersion: >=1.21.0-0 which is incompatible with Kubernetes v1.20.0\n',
      ),
    ).toEqual({ required: '>=1.21.0-0', rendered: 'v1.20.0' });
    expect(
      kubeVersionMismatch(
        'Error: chart requires kubeVersion: >= 1.19.0 < 1.25.0 which is incompatible with Kubernetes v1.36.0',
      ),
    ).toEqual({ required: '>= 1.19.0 < 1.25.0', rendered: 'v1.36.0' });
    expect(kubeVersionMismatch('Error: template: x.yaml:3: nil pointer')).toBeUndefined();
  });

  it('names the kubeVersion the chart needs, where the rendered version came from, and --kube-version', () => {
    const err = chartRenderError(
      'charts/ingress-nginx',
      helmFailure('Error: chart requires kubeVersion: >=1.21.0-0 which is incompatible with Kubernetes v1.20.0'),
      { version: 'v1.20.0', source: 'cluster' },
    );
    expect(err.code).toBe('SCAFFOLD_CHART_RENDER');
    expect(err.message).toMatch(/^cannot render charts\/ingress-nginx: the chart needs Kubernetes >=1\.21\.0-0/);
    expect(err.message).toContain('rendered for Kubernetes v1.20.0 (the version of the cluster KUBECONFIG points at)');
    expect(err.message).toContain(
      'Pass --kube-version=<a version the chart accepts>, or point KUBECONFIG at a cluster',
    );
    expect(err.message).not.toContain('default values that render');
  });

  it('quotes helm and points at the default values for any other rendering failure', () => {
    const err = chartRenderError('charts/web', helmFailure('Error: template: web/templates/a.yaml:3: nil pointer\n'), {
      version: DEFAULT_KUBE_VERSION,
      source: 'default',
    });
    expect(err.message).toMatch(
      new RegExp(`^cannot render charts/web with its default values for Kubernetes ${DEFAULT_KUBE_VERSION} \\(helm`),
    );
    expect(err.message).toContain('nil pointer');
    expect(err.message).toContain('give the chart default values that render');
  });
});

describe('helmSaid', () => {
  it("drops helm's --debug advice, a flag create api and generate rbac refuse, and names helm's own command", () => {
    const required =
      'Error: execution error at (web/templates/cm.yaml:6:14): a message is required\n\nUse --debug flag to render out invalid YAML\n';
    expect(helmSaid(required, 'charts/web')).toBe(
      'Error: execution error at (web/templates/cm.yaml:6:14): a message is required',
    );
    const yaml =
      'Error: YAML parse error on web/templates/cm.yaml: error converting YAML to JSON: yaml: line 3: did not find expected key\nUse --debug flag to render out invalid YAML';
    expect(helmSaid(yaml, 'charts/web')).toBe(
      'Error: YAML parse error on web/templates/cm.yaml: error converting YAML to JSON: yaml: line 3: did not find ' +
        'expected key (helm template charts/web --debug shows the rendered YAML)',
    );
  });
});
