// --kube-api-qps / --kube-api-burst through the run flag parser: off by default, on for a qps ≥ 0, bad values.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/errors.js';
import { parseRunFlags } from './flags.js';
import { RUN_USAGE } from './run-usage.js';

const ctx = { env: {}, cpus: 4 };
const limit = (...argv: string[]) => parseRunFlags(argv, ctx).kubeApiRateLimit;

describe('--kube-api-qps and --kube-api-burst', () => {
  it('leave the client without a rate limit by default, as controller-runtime v0.21', () => {
    expect(limit()).toBeUndefined();
    expect(limit('--kube-api-qps=-1')).toBeUndefined();
    expect(limit('--kube-api-qps', '-1', '--kube-api-burst=50')).toBeUndefined();
  });

  it('turn the limit on for a qps ≥ 0, with a burst of max(10, 1.5 × qps) unless given', () => {
    expect(limit('--kube-api-qps=20')).toEqual({ qps: 20, burst: 30 });
    expect(limit('--kube-api-qps', '2.5')).toEqual({ qps: 2.5, burst: 10 });
    expect(limit('--kube-api-qps=100', '--kube-api-burst=150')).toEqual({ qps: 100, burst: 150 });
    expect(limit('--kube-api-qps=100', '--kube-api-burst=0')).toEqual({ qps: 100, burst: 150 });
    expect(limit('--kube-api-qps=0')).toEqual({ qps: 5, burst: 10 }); // client-go's DefaultQPS/DefaultBurst
  });

  it.each([
    [['--kube-api-qps=fast'], '--kube-api-qps: "fast" must be a number (negative disables the limit)'],
    [['--kube-api-qps='], '--kube-api-qps: "" must be a number (negative disables the limit)'],
    [['--kube-api-qps=Infinity'], '--kube-api-qps: "Infinity" must be a number (negative disables the limit)'],
    [['--kube-api-qps=5', '--kube-api-burst=-1'], '--kube-api-burst: "-1" must be an integer ≥ 0 (0: the default)'],
    [['--kube-api-qps=5', '--kube-api-burst=1.5'], '--kube-api-burst: "1.5" must be an integer ≥ 0 (0: the default)'],
    [['--kube-api-burst=30'], '--kube-api-burst needs --kube-api-qps: the client has no rate limit by default'],
  ])('rejects %j with CONFIG_INVALID naming the flag', (argv, message) => {
    let err: unknown;
    try {
      parseRunFlags(argv, ctx);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('CONFIG_INVALID');
    expect((err as ConfigError).message).toBe(message);
  });

  it('are documented in the usage', () => {
    expect(RUN_USAGE).toContain('--kube-api-qps float');
    expect(RUN_USAGE).toContain('--kube-api-burst int');
  });
});
