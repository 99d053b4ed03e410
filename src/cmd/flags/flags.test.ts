import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { parseRunFlags } from './flags.js';
import { RUN_USAGE } from './run-usage.js';

const ctx = { env: {}, cpus: 4 };

describe('parseRunFlags', () => {
  it("uses operator-sdk's defaults", () => {
    expect(parseRunFlags([], ctx)).toMatchObject({
      watchesFile: './watches.yaml',
      reconcilePeriodMs: 60_000,
      maxConcurrentReconciles: 4,
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      metricsSecure: false,
      metricsRequireRbac: false,
      metricsCertPath: '',
      metricsCertName: 'tls.crt',
      metricsCertKey: 'tls.key',
      leaderElect: false,
      helmBinary: 'helm',
      logLevel: 'info',
      logEncoder: 'json',
      notYet: [],
    });
  });

  it('accepts --x=v, --x v, bare booleans and --b=false', () => {
    const o = parseRunFlags(
      ['--watches-file=/w.yaml', '--reconcile-period', '30s', '--zap-devel', '--leader-elect=false'],
      ctx,
    );
    expect(o).toMatchObject({
      watchesFile: '/w.yaml',
      reconcilePeriodMs: 30_000,
      logEncoder: 'console',
      leaderElect: false,
    });
    expect(o.logLevel).toBe('debug');
  });

  it('takes the helm binary from --helm-binary, then HELM_BINARY, then helm', () => {
    expect(parseRunFlags(['--helm-binary=/h'], { ...ctx, env: { HELM_BINARY: '/e' } }).helmBinary).toBe('/h');
    expect(parseRunFlags([], { ...ctx, env: { HELM_BINARY: '/e' } }).helmBinary).toBe('/e');
  });

  it('lists flags that are parsed but not implemented yet', () => {
    const opts = parseRunFlags(
      ['--leader-elect', '--enable-http2', '--metrics-bind-address=:9090', '--health-probe-bind-address=0'],
      ctx,
    );
    expect(opts.notYet).toEqual(['--enable-http2']);
    expect(opts).toMatchObject({ metricsBindAddress: ':9090', healthProbeBindAddress: '0' });
    expect(parseRunFlags(['--metrics-addr=127.0.0.1:1'], ctx).metricsBindAddress).toBe('127.0.0.1:1');
  });

  it('reads the secure-metrics flags', () => {
    expect(parseRunFlags(['--metrics-secure', '--metrics-require-rbac'], ctx)).toMatchObject({
      metricsSecure: true,
      metricsRequireRbac: true,
      metricsCertPath: '',
      notYet: [],
    });
    expect(
      parseRunFlags(
        ['--metrics-secure', '--metrics-cert-path=/certs', '--metrics-cert-name=c.pem', '--metrics-cert-key', 'k.pem'],
        ctx,
      ),
    ).toMatchObject({
      metricsSecure: true,
      metricsRequireRbac: false,
      metricsCertPath: '/certs',
      metricsCertName: 'c.pem',
      metricsCertKey: 'k.pem',
    });
    expect(parseRunFlags(['--metrics-secure=false', '--metrics-require-rbac=false'], ctx)).toMatchObject({
      metricsSecure: false,
      metricsRequireRbac: false,
    });
  });

  it('reads the leader-election flags, with OPERATOR_NAME as the default id', () => {
    expect(
      parseRunFlags(['--enable-leader-election', '--leader-election-namespace=ns'], {
        ...ctx,
        env: { OPERATOR_NAME: 'op' },
      }),
    ).toMatchObject({ leaderElect: true, leaderElectionId: 'op', leaderElectionNamespace: 'ns', notYet: [] });
    expect(parseRunFlags(['--leader-elect', '--leader-election-id=x'], ctx).leaderElectionId).toBe('x');
  });

  it('compacts 2 s after a burst by default; 0 turns it off', () => {
    expect(parseRunFlags([], ctx).compactWhenIdleMs).toBe(2_000);
    expect(parseRunFlags(['--compact-when-idle=500ms'], ctx).compactWhenIdleMs).toBe(500);
    expect(parseRunFlags(['--compact-when-idle=0'], ctx).compactWhenIdleMs).toBe(0);
  });

  it('lets running helm finish for 5 m after SIGTERM by default; 0 stops it at once', () => {
    expect(parseRunFlags([], ctx).gracefulShutdownTimeoutMs).toBe(300_000);
    expect(parseRunFlags(['--graceful-shutdown-timeout=90s'], ctx).gracefulShutdownTimeoutMs).toBe(90_000);
    expect(parseRunFlags(['--graceful-shutdown-timeout=0'], ctx).gracefulShutdownTimeoutMs).toBe(0);
  });

  it.each([
    [['--nope'], /unknown flag: --nope/],
    [['--graceful-shutdown-timeout=later'], /--graceful-shutdown-timeout: invalid duration "later"/],
    [['--graceful-shutdown-timeout=-1s'], /--graceful-shutdown-timeout must not be negative/],
    [['--reconcile-period=5x'], /--reconcile-period: invalid duration "5x"/],
    [['--compact-when-idle=soon'], /--compact-when-idle: invalid duration "soon"/],
    [['--compact-when-idle=-1s'], /--compact-when-idle must not be negative/],
    [['--max-concurrent-reconciles=0'], /must be a positive integer/],
    [['--watches-file'], /flag needs an argument: --watches-file/],
    [['--metrics-addr=:1', '--metrics-bind-address=:2'], /only one of --metrics-addr and --metrics-bind-address/],
    [['--zap-log-level=loud'], /--zap-log-level/],
    [['--leader-elect=maybe'], /not a boolean/],
    [['--metrics-require-rbac'], /^--metrics-require-rbac needs --metrics-secure/],
    [['--metrics-secure=false', '--metrics-require-rbac'], /--metrics-require-rbac needs --metrics-secure/],
    [['--metrics-cert-path=/c'], /^--metrics-cert-path needs --metrics-secure/],
    [['--metrics-secure', '--metrics-cert-name=x'], /^--metrics-cert-name needs --metrics-cert-path/],
    [['--metrics-secure', '--metrics-cert-key=x'], /^--metrics-cert-key needs --metrics-cert-path/],
  ])('rejects %j with a message naming the flag', (argv, message) => {
    expect(() => parseRunFlags(argv, ctx)).toThrow(ConfigError);
    expect(() => parseRunFlags(argv, ctx)).toThrow(message);
  });
});

describe('RUN_USAGE (a module of its own, so that run --help loads no part of the operator)', () => {
  it('names only flags the parser knows, and the defaults it uses', () => {
    const named = [...RUN_USAGE.matchAll(/(?:^ {2}|, )--([a-z][a-z0-9-]*)/gm)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(30);
    const unknown = named.filter((n) => {
      try {
        parseRunFlags([`--${n}`, 'x'], ctx);
        return false;
      } catch (err) {
        return (err as Error).message.startsWith('unknown flag');
      }
    });
    expect(unknown).toEqual([]);
    const o = parseRunFlags([], ctx);
    expect(RUN_USAGE).toContain(`deleted; 1 uninstalls each in its own helm process (default ${o.maxUninstallBatch})`);
    expect(RUN_USAGE).toContain(`(default ${o.statusManifest})`);
  });
});
