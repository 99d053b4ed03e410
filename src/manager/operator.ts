// Runs the operator's controllers: the process-wide parts once (process.ts), then one controller per watches.yaml
// entry, each built by the watch builder (watch.ts) as controller-runtime's builder composes one per type, all run
// as one group with the release-record informers. Called by the manager (manager.ts) once it may lead; never reads
// process.* or exits.
import type { Controller } from '../controller/controller.js';
import { runGroup } from './group.js';
import type { OperatorOptions } from './options.js';
import { operatorParts } from './process.js';
import { buildWatch } from './watch.js';

/**
 * Resolves every watch to its API resource (failing clearly when a CRD is missing), then runs the controllers until
 * aborted; one that fails stops the others.
 */
export async function runOperator(o: OperatorOptions, signal: AbortSignal): Promise<void> {
  const parts = operatorParts(o, signal);
  const controllers: Controller[] = [];
  for (const watch of o.watches) controllers.push(await buildWatch(parts, watch, signal));
  o.onControllers?.(controllers);
  const run = (c: Controller) => (s: AbortSignal) => c.run(s);
  await runGroup([...controllers.map(run), (s) => parts.records.run(s)], signal);
}
