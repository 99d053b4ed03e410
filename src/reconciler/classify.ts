// Sorts helm failures: errors rendering the chart with the given values (template/values/schema problems) make a
// CR Irreconcilable, since retrying the same inputs cannot help; everything else is a ReleaseFailed; helm 4's
// server-side apply refusing an object is retried client-side; an RBAC refusal's message says what to grant and
// where. Also the backoff for failed releases. Pure; called by the reconciler.
import { backoffDelay } from '../core/backoff.js';
import { HelmCommandError } from '../helm/errors.js';

const RENDER_ERRORS = [
  /\btemplate: /,
  /execution error at \(/,
  /\bparse error\b/i,
  /YAML parse error/,
  /error converting YAML to JSON/,
  /values don't meet the specifications of the schema/,
  /unable to build kubernetes objects from (new )?release manifest/,
];

/** helm 4's server-side apply refusing a keyed list that repeats a key (`duplicate entries for key [name="X"]`). */
const SSA_REFUSAL =
  /server-side apply failed for object[^\n]*failed to create typed patch object[^\n]*duplicate entries/;

/**
 * Whether helm 4's server-side apply refused an object that client-side apply (helm 3's, operator-sdk's) accepts: a
 * keyed list that repeats a key, such as a container env list that repeats a name. An unknown field is not one: helm
 * 4 refuses it on purpose (helm 3 drops it with a warning), and that refusal stands.
 */
export function refusedByServerSideApply(err: unknown): boolean {
  return err instanceof HelmCommandError && SSA_REFUSAL.test(err.failure.stderr);
}

export function isRenderError(err: unknown): boolean {
  return err instanceof HelmCommandError && RENDER_ERRORS.some((re) => re.test(err.failure.stderr));
}

/**
 * The short, user-facing text of a failure (helm's last `Error:` line when there is one), plus, when the API server
 * refused helm for lack of RBAC, the verb and resource to grant and where.
 */
export function failureMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const hint = err instanceof HelmCommandError ? forbiddenHint(err.failure.stderr) : undefined;
  return hint === undefined ? message : `${message} (${hint})`;
}

export interface BackoffPolicy {
  /** @default 10_000 */
  readonly baseMs: number;
  /** @default 900_000 (15 min) */
  readonly maxMs: number;
}

export const DEFAULT_RELEASE_BACKOFF: BackoffPolicy = { baseMs: 10_000, maxMs: 900_000 };

/** Delay before the next attempt after `failures` consecutive failures (1 → base, doubling, capped). */
export function releaseRetryDelay(failures: number, policy: BackoffPolicy = DEFAULT_RELEASE_BACKOFF): number {
  const n = Math.max(1, failures);
  return backoffDelay(Math.min(n - 1, 30), policy);
}

/** `User "…" cannot get resource "ingresses" in API group "networking.k8s.io"` (namespaced or cluster-wide). */
const FORBIDDEN = /User "([^"]+)" cannot ([a-z]+) resource "([^"]+)" in API group "([^"]*)"/;

/** The verbs `generate rbac` grants on every kind a chart renders (helm creates, reads, patches and deletes them). */
const CHART_VERBS = 'create, delete, get, list, patch, update, watch';

/** The instruction to append to a failure's message, or undefined when helm was not refused by RBAC. */
export function forbiddenHint(stderr: string): string | undefined {
  const m = FORBIDDEN.exec(stderr);
  if (m === null) return undefined;
  const [, user, verb, resource, group] = m;
  const qualified = group === '' ? resource : `${resource}.${group}`;
  return (
    `${user} may not ${verb} ${qualified}: grant it in config/rbac/extra_role.yaml (apiGroups: ["${group}"], ` +
    `resources: ["${resource}"], verbs: [${CHART_VERBS}]) or in the manager ClusterRole, or let helm-operator ` +
    'generate rbac derive it from a sample or --values file that enables that object; then make deploy'
  );
}
