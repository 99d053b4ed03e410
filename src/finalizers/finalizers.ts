// The finalizers the operator puts on CRs (operator-sdk's names) and pure helpers that return a new list.
// Called by the reconciler; never talks to the API itself.

export const FINALIZER = 'helm.sdk.operatorframework.io/uninstall-release';
/** operator-sdk's legacy finalizer (and helm-operator-plugins' only one): recognised and removed, never added. */
export const LEGACY_FINALIZER = 'uninstall-helm-release';

export function hasOurFinalizer(finalizers: readonly string[] | undefined): boolean {
  return (finalizers ?? []).some((f) => f === FINALIZER || f === LEGACY_FINALIZER);
}

/** The list with FINALIZER added, or undefined when one of ours is already present. */
export function withFinalizer(finalizers: readonly string[] | undefined): string[] | undefined {
  return hasOurFinalizer(finalizers) ? undefined : [...(finalizers ?? []), FINALIZER];
}

/** The list without either of our finalizers, or undefined when neither is present. */
export function withoutFinalizers(finalizers: readonly string[] | undefined): string[] | undefined {
  if (!hasOurFinalizer(finalizers)) return undefined;
  return (finalizers ?? []).filter((f) => f !== FINALIZER && f !== LEGACY_FINALIZER);
}
