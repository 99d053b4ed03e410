// operator-sdk's status conditions for Helm CRs (plus ours; condition-catalogue.ts lists every type and reason):
// setCondition/removeCondition with its lastTransitionTime rule (it moves only when `status` flips). Pure; called
// by the reconciler's status builders. Never reads the clock itself: `now` is passed in.
import type { CatalogueReason, CatalogueType, ConditionInput, ConditionStatus } from './condition-catalogue.js';

/** The condition types and reasons: condition-catalogue.ts lists them (operator-sdk's and ours). */
export type ConditionType = CatalogueType;
export type ConditionReason = CatalogueReason;

export interface Condition {
  readonly type: ConditionType | string;
  readonly status: ConditionStatus;
  readonly reason?: ConditionReason | string;
  readonly message?: string;
  readonly lastTransitionTime: string;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Returns the conditions with `input` set: replaced in place (insertion order kept) or appended. The existing
 * lastTransitionTime is kept unless the status flips, as operator-sdk does, even when reason or message change.
 */
export function setCondition(conditions: readonly Condition[], input: ConditionInput, now: number): Condition[] {
  const i = conditions.findIndex((c) => c.type === input.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const next: Condition = {
    type: input.type,
    status: input.status,
    ...(input.reason ? { reason: input.reason } : {}),
    ...(input.message ? { message: input.message } : {}),
    lastTransitionTime: prev && prev.status === input.status ? prev.lastTransitionTime : rfc3339(now),
  };
  if (i < 0) return [...conditions, next];
  return conditions.map((c, j) => (j === i ? next : c));
}

export function removeCondition(conditions: readonly Condition[], type: ConditionType): Condition[] {
  return conditions.filter((c) => c.type !== type);
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: ConditionType,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
