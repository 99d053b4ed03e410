import { describe, expect, it } from 'vitest';
import {
  createArgs,
  dependencyBuildArgs,
  installArgs,
  pullArgs,
  rollbackArgs,
  templateArgs,
  uninstallArgs,
  upgradeArgs,
  versionArgs,
} from './argv.js';
import { redactArgs, urlSecrets, VALUES_PLACEHOLDER } from './redact.js';

const ref = { release: 'web', namespace: 'apps' };
const valuesFile = '/work/values-x/values.yaml';

/** The value following `name` in argv, if the flag is present. */
const flagValue = (args: readonly string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};

describe('installArgs', () => {
  it('installs the release from the chart in its namespace with values from the file and JSON output', () => {
    const args = installArgs({ ...ref, chart: '/charts/web', valuesFile });
    expect(args.slice(0, 3)).toEqual(['install', 'web', '/charts/web']);
    expect(flagValue(args, '--namespace')).toBe('apps');
    expect(flagValue(args, '--values')).toBe(valuesFile);
    expect(flagValue(args, '--output')).toBe('json');
  });

  it('does not pass --history-max, which helm install does not accept', () => {
    expect(installArgs({ ...ref, chart: 'c', valuesFile })).not.toContain('--history-max');
  });

  it('adds --no-hooks only when hooks are disabled and appends extra args last', () => {
    expect(installArgs({ ...ref, chart: 'c', valuesFile })).not.toContain('--no-hooks');
    const args = installArgs({ ...ref, chart: 'c', valuesFile, disableHooks: true, extraArgs: ['--skip-crds'] });
    expect(args).toContain('--no-hooks');
    expect(args.at(-1)).toBe('--skip-crds');
  });

  it('stores labels on the release record with --labels, and refuses label text helm would split', () => {
    const labels = { 'helm.sdk.operatorframework.io/fingerprint': 'abc123', team: 'a' };
    const args = installArgs({ ...ref, chart: 'c', valuesFile, labels });
    expect(flagValue(args, '--labels')).toBe('helm.sdk.operatorframework.io/fingerprint=abc123,team=a');
    expect(flagValue(upgradeArgs({ ...ref, chart: 'c', valuesFile, historyMax: 1, labels }), '--labels')).toBe(
      'helm.sdk.operatorframework.io/fingerprint=abc123,team=a',
    );
    expect(installArgs({ ...ref, chart: 'c', valuesFile, labels: {} })).not.toContain('--labels');
    expect(() => installArgs({ ...ref, chart: 'c', valuesFile, labels: { a: 'x,b=y' } })).toThrow(TypeError);
  });

  it('rejects a release or namespace that helm would parse as a flag', () => {
    expect(() => installArgs({ release: '--dry-run', namespace: 'apps', chart: 'c', valuesFile })).toThrow(TypeError);
    expect(() => installArgs({ release: 'web', namespace: '', chart: 'c', valuesFile })).toThrow(TypeError);
  });
});

describe('upgradeArgs', () => {
  const base = { ...ref, chart: '/charts/web', valuesFile, historyMax: 10 };

  it('upgrades with exactly the given values, the history limit and JSON output', () => {
    const args = upgradeArgs(base);
    expect(args.slice(0, 3)).toEqual(['upgrade', 'web', '/charts/web']);
    expect(flagValue(args, '--namespace')).toBe('apps');
    expect(flagValue(args, '--values')).toBe(valuesFile);
    expect(args).toContain('--reset-values');
    expect(flagValue(args, '--history-max')).toBe('10');
    expect(flagValue(args, '--output')).toBe('json');
    expect(args.filter((a) => a.startsWith('--dry-run'))).toEqual([]);
    expect(args).not.toContain('--force');
    expect(args).not.toContain('--no-hooks');
  });

  it.each([
    [false, []],
    ['client', ['--dry-run']],
    ['server', ['--dry-run=server']],
  ] as const)('with dryRun %s passes %j', (dryRun, expected) => {
    expect(upgradeArgs({ ...base, dryRun }).filter((a) => a.startsWith('--dry-run'))).toEqual(expected);
  });

  it('adds --force and --no-hooks when asked', () => {
    const args = upgradeArgs({ ...base, force: true, disableHooks: true });
    expect(args).toContain('--force');
    expect(args).toContain('--no-hooks');
  });

  it('passes 0 (unlimited history) and rejects a negative history limit', () => {
    expect(flagValue(upgradeArgs({ ...base, historyMax: 0 }), '--history-max')).toBe('0');
    expect(() => upgradeArgs({ ...base, historyMax: -1 })).toThrow(TypeError);
  });
});

describe('uninstallArgs', () => {
  it('uninstalls in the namespace, with --no-hooks and --wait only when asked', () => {
    expect(uninstallArgs(ref)).toEqual(['uninstall', 'web', '--namespace', 'apps']);
    expect(uninstallArgs({ ...ref, disableHooks: true, wait: true })).toEqual([
      'uninstall',
      'web',
      '--namespace',
      'apps',
      '--no-hooks',
      '--wait',
    ]);
  });

  it('names the releases uninstalled together in order, and refuses one that would read as a flag', () => {
    expect(uninstallArgs({ ...ref, also: ['api', 'db'] })).toEqual([
      'uninstall',
      'web',
      'api',
      'db',
      '--namespace',
      'apps',
    ]);
    expect(() => uninstallArgs({ ...ref, also: ['--all'] })).toThrow(/release must be non-empty/);
  });
});

describe('rollbackArgs', () => {
  it('rolls back to the previous revision unless one is given', () => {
    expect(rollbackArgs({ ...ref, historyMax: 5 })).toEqual([
      'rollback',
      'web',
      '--namespace',
      'apps',
      '--history-max',
      '5',
    ]);
    const args = rollbackArgs({ ...ref, historyMax: 5, revision: 3, force: true, disableHooks: true });
    expect(args.slice(0, 3)).toEqual(['rollback', 'web', '3']);
    expect(args).toContain('--force');
    expect(args).toContain('--no-hooks');
  });
});

describe('versionArgs', () => {
  it('asks for the short version', () => {
    expect(versionArgs()).toEqual(['version', '--short']);
  });
});

describe('no builder puts values on argv', () => {
  it('only ever references the values file by path', () => {
    const all = [
      ...installArgs({ ...ref, chart: 'c', valuesFile }),
      ...upgradeArgs({ ...ref, chart: 'c', valuesFile, historyMax: 1, dryRun: 'server' }),
    ];
    expect(all.filter((a) => a.startsWith('--set'))).toEqual([]);
    expect(redactArgs(all, valuesFile)).not.toContain(valuesFile);
    expect(redactArgs(all, valuesFile).filter((a) => a === VALUES_PLACEHOLDER)).toHaveLength(2);
  });
});

describe('the post-renderer and --force-conflicts on install and upgrade', () => {
  const postRender = { renderer: '/opt/operator/post-render', args: ['--socket=/w/pr.sock', '--chart=a=b', '--x'] };
  const install = { ...ref, chart: 'c', valuesFile };
  const upgrade = { ...ref, chart: 'c', valuesFile, historyMax: 10 };

  /** Every `--post-renderer-args` value, in order. */
  const rendererArgs = (args: readonly string[]) =>
    args.flatMap((a, i) => (a === '--post-renderer-args' ? [args[i + 1]] : []));

  it.each([
    ['install', () => installArgs({ ...install, postRender })],
    ['upgrade', () => upgradeArgs({ ...upgrade, postRender })],
  ])('%s passes --post-renderer and one --post-renderer-args per argument, in order', (_cmd, build) => {
    const args = build();
    expect(flagValue(args, '--post-renderer')).toBe('/opt/operator/post-render');
    expect(args.filter((a) => a === '--post-renderer')).toHaveLength(1);
    expect(rendererArgs(args)).toEqual(['--socket=/w/pr.sock', '--chart=a=b', '--x']);
  });

  it('passes --post-renderer but no --post-renderer-args for a renderer without arguments', () => {
    const args = installArgs({ ...install, postRender: { renderer: 'plugin-name', args: [] } });
    expect(flagValue(args, '--post-renderer')).toBe('plugin-name');
    expect(args).not.toContain('--post-renderer-args');
  });

  it('passes no post-renderer flags without a post-renderer', () => {
    for (const args of [installArgs(install), upgradeArgs(upgrade)]) {
      expect(args).not.toContain('--post-renderer');
      expect(args).not.toContain('--post-renderer-args');
    }
  });

  it('keeps extra args last on install, after the post-renderer flags', () => {
    const args = installArgs({ ...install, postRender, forceConflicts: true, extraArgs: ['--skip-crds'] });
    expect(args.at(-1)).toBe('--skip-crds');
  });

  it('adds --force-conflicts on install only when asked', () => {
    expect(installArgs({ ...install, forceConflicts: true })).toContain('--force-conflicts');
    expect(installArgs({ ...install, forceConflicts: false })).not.toContain('--force-conflicts');
    expect(installArgs(install)).not.toContain('--force-conflicts');
  });

  it('adds --force-conflicts on upgrade when asked and --force is not set', () => {
    expect(upgradeArgs({ ...upgrade, forceConflicts: true })).toContain('--force-conflicts');
    expect(upgradeArgs({ ...upgrade, forceConflicts: true, force: false })).toContain('--force-conflicts');
    expect(upgradeArgs(upgrade)).not.toContain('--force-conflicts');
  });

  it('drops --force-conflicts on upgrade when --force is set, which helm 4 does not allow together', () => {
    const args = upgradeArgs({ ...upgrade, forceConflicts: true, force: true });
    expect(args).toContain('--force');
    expect(args).not.toContain('--force-conflicts');
  });

  it('applies client-side with --server-side=false and without --force-conflicts, which helm 4 refuses then', () => {
    for (const args of [
      installArgs({ ...install, forceConflicts: true, clientSideApply: true }),
      upgradeArgs({ ...upgrade, forceConflicts: true, clientSideApply: true }),
    ]) {
      expect(args).toContain('--server-side=false');
      expect(args).not.toContain('--force-conflicts');
    }
    expect(installArgs(install)).not.toContain('--server-side=false');
  });
});

describe("the scaffolder's commands", () => {
  it('renders a chart with helm template, CRDs on request', () => {
    expect(templateArgs({ release: 'release-name', namespace: 'default', chart: '/c' })).toEqual([
      'template',
      'release-name',
      '/c',
      '--namespace',
      'default',
    ]);
    expect(templateArgs({ release: 'r', namespace: 'n', chart: '/c', includeCrds: true })).toContain('--include-crds');
    expect(() => templateArgs({ release: 'r', namespace: 'n', chart: '--evil' })).toThrow(TypeError);
  });

  it('renders with values files in the order given, each after its own --values', () => {
    const args = templateArgs({ release: 'r', namespace: 'n', chart: '/c', valuesFiles: ['/v/a.yaml', '/v/b.yaml'] });
    expect(args.slice(-4)).toEqual(['--values', '/v/a.yaml', '--values', '/v/b.yaml']);
    expect(() => templateArgs({ release: 'r', namespace: 'n', chart: '/c', valuesFiles: ['-x'] })).toThrow(TypeError);
  });

  it('creates, pulls (version and repo as --flag=value) and builds dependencies', () => {
    expect(createArgs({ path: '/p/charts/web' })).toEqual(['create', '/p/charts/web']);
    expect(pullArgs({ chart: 'web', version: '-1', repo: 'https://r', untarDir: '/t' })).toEqual([
      'pull',
      'web',
      '--untar',
      '--untardir',
      '/t',
      '--version=-1',
      '--repo=https://r',
    ]);
    expect(pullArgs({ chart: 'oci://r/web', untarDir: '/t' })).toEqual([
      'pull',
      'oci://r/web',
      '--untar',
      '--untardir',
      '/t',
    ]);
    expect(dependencyBuildArgs({ chartDir: '/c' })).toEqual(['dependency', 'build', '/c']);
  });

  it('finds passwords in URLs among arguments', () => {
    expect(urlSecrets(['pull', '--repo=https://u:pw1@h', 'oci://x:pw2@r/c', 'https://h/c', 'https://u@h'])).toEqual([
      'pw1',
      'pw2',
    ]);
  });
});

describe('client-side OpenAPI validation on install and upgrade', () => {
  const base = { release: 'web', namespace: 'apps', chart: '/charts/web', valuesFile: '/tmp/v.yaml' };

  it('passes --disable-openapi-validation only when asked to', () => {
    expect(installArgs({ ...base, disableOpenApiValidation: true })).toContain('--disable-openapi-validation');
    expect(upgradeArgs({ ...base, historyMax: 10, disableOpenApiValidation: true })).toContain(
      '--disable-openapi-validation',
    );
    expect(installArgs(base)).not.toContain('--disable-openapi-validation');
    expect(upgradeArgs({ ...base, historyMax: 10, disableOpenApiValidation: false })).not.toContain(
      '--disable-openapi-validation',
    );
  });
});

describe("helm's --timeout on the release commands", () => {
  const base = { release: 'web', namespace: 'apps', chart: '/charts/web', valuesFile: '/tmp/v.yaml' };
  const commands = {
    install: (timeoutMs?: number) => installArgs({ ...base, ...(timeoutMs ? { timeoutMs } : {}) }),
    upgrade: (timeoutMs?: number) => upgradeArgs({ ...base, historyMax: 10, ...(timeoutMs ? { timeoutMs } : {}) }),
    uninstall: (timeoutMs?: number) => uninstallArgs({ ...ref, ...(timeoutMs ? { timeoutMs } : {}) }),
    rollback: (timeoutMs?: number) => rollbackArgs({ ...ref, historyMax: 10, ...(timeoutMs ? { timeoutMs } : {}) }),
  };

  it.each(Object.entries(commands))('passes %s the timeout as a Go duration', (_name, build) => {
    expect(flagValue(build(90_000), '--timeout')).toBe('1m30s');
    expect(flagValue(build(20_000), '--timeout')).toBe('20s');
    expect(flagValue(build(1_500), '--timeout')).toBe('1.5s');
  });

  it.each(Object.entries(commands))("leaves %s at helm's own default without one", (_name, build) => {
    expect(build()).not.toContain('--timeout');
  });

  it('refuses a timeout of zero or less, which helm would read as "give up at once"', () => {
    expect(() => uninstallArgs({ ...ref, timeoutMs: 0 })).toThrow(TypeError);
    expect(() => uninstallArgs({ ...ref, timeoutMs: -1 })).toThrow(TypeError);
  });
});
