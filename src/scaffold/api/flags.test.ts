import { describe, expect, it } from 'vitest';
import { camelCase, checkGvk, parseCreateApiArgs } from './flags.js';

const parse = (...argv: string[]) => parseCreateApiArgs(argv, '/proj');
/** A kind without a chart: group and version are then required too. */
const FOO = ['--group=g', '--version=v1', '--kind=Foo'];
const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a throw');
};

describe('parseCreateApiArgs', () => {
  it('reads every flag in --flag=value and --flag value forms', () => {
    expect(
      parse(
        '--group',
        'cache',
        '--version=v1',
        '--kind=Memcached',
        '--helm-chart',
        'bitnami/memcached',
        '--helm-chart-repo=https://r',
        '--helm-chart-version',
        '1.2.3',
        '--force',
      ),
    ).toEqual({
      projectDir: '/proj',
      group: 'cache',
      version: 'v1',
      kind: 'Memcached',
      helmChart: 'bitnami/memcached',
      helmChartRepo: 'https://r',
      helmChartVersion: '1.2.3',
      force: true,
    });
    expect(parse(...FOO, '--force=false').force).toBe(false);
  });

  it('reads the --values-from switch', () => {
    expect(parse(...FOO, '--values-from').valuesFrom).toBe(true);
    expect(parse(...FOO, '--values-from=false').valuesFrom).toBeUndefined();
    expect(parse(...FOO).valuesFrom).toBeUndefined();
    expect(message(() => parse(...FOO, '--values-from=maybe'))).toBe('--values-from: "maybe" is not a boolean');
  });

  it('reads --kube-version as vX.Y.Z and refuses what is not a Kubernetes version', () => {
    expect(parse(...FOO, '--kube-version=1.24').kubeVersion).toBe('v1.24.0');
    expect(parse(...FOO, '--kube-version', 'v1.30.1').kubeVersion).toBe('v1.30.1');
    expect(parse(...FOO).kubeVersion).toBeUndefined();
    expect(message(() => parse(...FOO, '--kube-version=stable'))).toMatch(/^--kube-version "stable" is not/);
  });

  it("gives operator-sdk's errors for chart flags without --helm-chart and for a missing kind", () => {
    expect(message(() => parse(...FOO, '--helm-chart-repo=https://r'))).toBe(
      'value of --helm-chart-repo can only be used with --helm-chart',
    );
    expect(message(() => parse(...FOO, '--helm-chart-version=1'))).toBe(
      'value of --helm-chart-version can only be used with --helm-chart',
    );
    expect(message(() => parse('--group=a', '--version=v1'))).toBe('either --kind or --helm-chart need to be provided');
    expect(message(() => parse('--helm-chart=  ', '--group=a', '--version=v1'))).toBe(
      'either --kind or --helm-chart need to be provided',
    );
  });

  it('reports every missing flag at once when there is no --helm-chart', () => {
    expect(message(() => parse('--kind=Web'))).toBe(
      '--group is required when --helm-chart is not given (e.g. --group=cache); ' +
        '--version is required when --helm-chart is not given (e.g. --version=v1alpha1)',
    );
    expect(message(() => parse())).toBe(
      'either --kind or --helm-chart need to be provided; ' +
        '--group is required when --helm-chart is not given (e.g. --group=cache); ' +
        '--version is required when --helm-chart is not given (e.g. --version=v1alpha1)',
    );
  });

  it('refuses unknown flags, positional arguments, missing values and CRD versions other than v1', () => {
    expect(message(() => parse('--controller=true'))).toMatch(
      /^unknown flag: --controller; create api accepts .*--plural/,
    );
    expect(parse(...FOO, '--plural', 'foes').plural).toBe('foes');
    expect(message(() => parse('api'))).toMatch(/^unexpected argument "api"/);
    expect(message(() => parse('--kind'))).toBe('flag needs an argument: --kind');
    expect(message(() => parse('--kind', '--force'))).toBe('flag needs an argument: --kind');
    expect(message(() => parse(...FOO, '--crd-version=v1beta1'))).toMatch(/only v1 CRDs/);
    expect(parse(...FOO, '--crd-version=v1').kind).toBe('Foo');
  });
});

describe('camelCase', () => {
  it('makes the default kind from a chart name', () => {
    expect(camelCase('nginx')).toBe('Nginx');
    expect(camelCase('kube-state_metrics.v2')).toBe('KubeStateMetricsV2');
  });
});

describe('checkGvk', () => {
  const ok = { group: 'cache', version: 'v1alpha1', kind: 'Memcached', plural: 'memcacheds', domain: 'example.com' };
  it('accepts valid groups, versions and kinds', () => {
    for (const version of ['v1', 'v1alpha1', 'v2beta3', 'v10'])
      expect(() => checkGvk({ ...ok, version })).not.toThrow();
    expect(() => checkGvk({ ...ok, group: 'my-group.sub' })).not.toThrow();
  });

  it('names the flag and the rule when something is invalid', () => {
    expect(message(() => checkGvk({ ...ok, group: 'Cache' }))).toMatch(/^--group "Cache" is invalid: .*RFC 1123/);
    expect(message(() => checkGvk({ ...ok, group: 'a_b' }))).toMatch(/^--group/);
    for (const version of ['1', 'v0', 'v1alpha', 'v1gamma1', 'V1']) {
      expect(message(() => checkGvk({ ...ok, version }))).toMatch(/^--version ".*" is invalid/);
    }
    for (const kind of ['memcached', 'Mem-cached', '1Foo']) {
      expect(message(() => checkGvk({ ...ok, kind }))).toMatch(/^--kind ".*" is invalid: a kind is CamelCase/);
    }
    expect(message(() => checkGvk({ ...ok, kind: `A${'a'.repeat(70)}`, plural: `a${'a'.repeat(70)}s` }))).toMatch(
      /too long/,
    );
  });
});
