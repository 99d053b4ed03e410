// `--kube-api-qps` and `--kube-api-burst` of `helm-operator run`: the kube client's rate limit, named after the Go
// flags of kube-controller-manager and client-go's rest.Config QPS/Burst. Off by default, as controller-runtime
// v0.21's GetConfig (QPS −1). called by cmd/flags/flags.ts only; pure, throws ConfigError naming the flag.
import { ConfigError } from '../../core/errors.js';
import type { KubeRateLimit } from '../../kube/client.js';

/** client-go's rest.DefaultQPS and DefaultBurst, used for 0 as client-go does. */
const CLIENT_GO_QPS = 5;
const CLIENT_GO_BURST = 10;
const MAX_BURST = 2 ** 31 - 1; // Burst is an int32 flag in Go

/**
 * The limit from the raw flag values (undefined: not set). A negative qps (the default, −1) turns it off; a qps
 * ≥ 0 turns it on (0 is client-go's 5 QPS). The burst defaults to max(10, ⌈1.5 × qps⌉) (20 → 30, as before).
 */
export function kubeApiRateLimit(
  qpsFlag: string | undefined,
  burstFlag: string | undefined,
): KubeRateLimit | undefined {
  if (burstFlag !== undefined && qpsFlag === undefined) {
    throw new ConfigError('--kube-api-burst needs --kube-api-qps: the client has no rate limit by default');
  }
  const rawQps = qpsFlag ?? '-1';
  const qps = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(rawQps) ? Number(rawQps) : Number.NaN;
  if (!Number.isFinite(qps)) {
    throw new ConfigError(`--kube-api-qps: ${JSON.stringify(rawQps)} must be a number (negative disables the limit)`);
  }
  let burst = 0;
  if (burstFlag !== undefined) {
    if (!/^\d+$/.test(burstFlag) || Number(burstFlag) > MAX_BURST) {
      throw new ConfigError(`--kube-api-burst: ${JSON.stringify(burstFlag)} must be an integer ≥ 0 (0: the default)`);
    }
    burst = Number(burstFlag);
  }
  if (qps < 0) return undefined;
  const effective = qps === 0 ? CLIENT_GO_QPS : qps;
  return {
    qps: effective,
    burst: burst > 0 ? burst : Math.min(MAX_BURST, Math.max(CLIENT_GO_BURST, Math.ceil(1.5 * effective))),
  };
}
