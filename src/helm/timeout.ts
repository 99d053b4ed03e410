// helm's `--timeout` as the operator uses it: the default (helm's own 5m), the accepted range, the margin after which
// the operator stops a helm process that has not reported its own timeout, and when a run counts as slow enough to
// report (HelmStillRunning). Pure; read by the helm adapter, the watches loader, the annotations and the metrics.
import { parseDuration } from '../core/duration.js';
import { ConfigError } from '../core/errors.js';

/** helm's own default `--timeout` (hooks and `--wait`), which operator-sdk's helm-operator always uses. */
export const DEFAULT_HELM_TIMEOUT_MS = 300_000;

/**
 * How long after its `--timeout` a helm process may still run before the operator sends SIGTERM: helm reports its
 * own "timed out waiting for the condition" (naming the hook) rather than being cut off with "context canceled".
 */
export const HELM_TIMEOUT_MARGIN_MS = 30_000;

/** The longest `--timeout` accepted (24h): a Node timer cannot wait much longer than 24 days anyway. */
export const MAX_HELM_TIMEOUT_MS = 86_400_000;

/** The most a helm run waits before it is reported as still running, whatever its timeout. */
const STILL_RUNNING_CAP_MS = 30_000;

/**
 * When a helm run of `timeoutMs` is reported as still running: after 30 s, or a quarter of its timeout when that is
 * shorter. 30 s is far beyond a healthy install or upgrade (a few seconds) yet leaves most of helm's default 5m
 * ahead; a quarter keeps three quarters of a short timeout ahead of the notice.
 */
export function stillRunningAfterMs(timeoutMs: number): number {
  return Math.min(STILL_RUNNING_CAP_MS, timeoutMs / 4);
}

/**
 * Parses a helm timeout: a Go duration above zero and at most 24h. Throws a ConfigError that quotes the value and
 * says what is accepted.
 */
export function parseHelmTimeout(text: string): number {
  const ms = parseDuration(text);
  if (ms > 0 && ms <= MAX_HELM_TIMEOUT_MS) return ms;
  const why = ms <= 0 ? 'it must be above zero' : 'it must be at most 24h';
  throw new ConfigError(`invalid helm timeout ${JSON.stringify(text)}: ${why}; use e.g. "90s" or "10m"`);
}
