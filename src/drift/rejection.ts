// Tells an API server's refusal of an object itself (its content can never be written as it is: invalid, duplicate
// keys in a keyed list for server-side apply, a webhook that denies it or supports no dry run) from a failure that
// may pass on a retry (throttling, a conflict, an outage, missing RBAC). Pure; used by drift repair.
import { KubeApiError } from '../kube/errors.js';

/** Server-side apply's words for an object it cannot turn into a typed patch (e.g. `duplicate entries for key`). */
const TYPED_PATCH = /failed to create typed (patch )?(object|value)|duplicate entries for key/i;

/**
 * Whether `err` is the server refusing this object as it is: 400 Bad Request, 422 Invalid, or the 500 that
 * server-side apply answers for an object it cannot type. Sending the same object again gets the same answer.
 */
export function rejectsObject(err: unknown): boolean {
  if (!(err instanceof KubeApiError)) return false;
  if (err.status === 400 || err.status === 422) return true;
  return err.status === 500 && TYPED_PATCH.test(err.message);
}
