// The in-process uninstall's failure: a release object or record it could not delete. Thrown by uninstaller.ts; the
// deletion flow reports it as helm's uninstall failures are reported (UninstallError, retried with backoff).
import { OperatorError } from '../core/errors.js';

/** Some objects or records of a release could not be deleted; the message names each with the API server's error. */
export class UninstallFailedError extends OperatorError {
  readonly code = 'UNINSTALL_FAILED';
}
