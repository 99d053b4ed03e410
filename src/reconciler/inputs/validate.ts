// Checks that a custom resource can become a Helm release at all: a release name Helm accepts and a spec that is
// an object (the chart values). Pure; called by inputs/inputs.ts before anything else, which makes a failure
// Irreconcilable and terminal. Never puts values in its messages.
import { isRecord } from '../../core/guards.js';
import type { CustomResource } from '../types.js';

/** Helm's limit on release names (chartutil.ValidateReleaseName). */
export const MAX_RELEASE_NAME = 53;

export type Validation =
  | { readonly ok: true; readonly spec: Record<string, unknown> }
  /** `message` is for the condition (what to do); `problem` ends the terminal error. */
  | { readonly ok: false; readonly message: string; readonly problem: string };

export function validateCustomResource(cr: CustomResource): Validation {
  const release = cr.metadata.name;
  if (release.length > MAX_RELEASE_NAME) {
    return {
      ok: false,
      message: `release name ${JSON.stringify(release)} is ${release.length} characters; Helm allows at most ${MAX_RELEASE_NAME}: use a shorter name for the custom resource`,
      problem: 'name too long for a Helm release',
    };
  }
  const spec = cr.spec ?? {};
  if (!isRecord(spec)) {
    return { ok: false, message: 'spec must be an object (the chart values)', problem: 'spec is not an object' };
  }
  return { ok: true, spec };
}
