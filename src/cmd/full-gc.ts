// One full garbage collection on demand, for the idle compaction (observability/idle-compaction.ts): V8's `gc`,
// exposed at run time as test runners do, since NODE_OPTIONS may not carry --expose-gc. Called by run.ts only; a
// process-wide switch, so it lives with the composition root and is never called from a library module.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's `last-resort` collection: it also compacts and hands free pages back (a plain one kept 134 of 279 MiB). */
export function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as Gc;
  return () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
