// The small rules of the uninstall queue's picking: a job's share of the releases being deleted, the order members
// are taken in, a CR's key, and waiting for a job's outcome until the asking pass is canceled. Pure; called by
// queue.ts only.
/** What the queue reads of a deleting CR. */
export interface DeletingObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly deletionTimestamp?: string;
  };
}

/**
 * How many releases a job takes, the asking CR's own included: an equal share, over the workers, of those waiting
 * (`waiting`, its own included) and those running jobs have not finished (`running`). Without it the first jobs fill
 * up and the last worker takes the tail alone while the others idle. Never below 1.
 */
export function batchShare(waiting: number, running: number, lanes: number): number {
  return Math.max(1, Math.ceil((waiting + running) / Math.max(1, lanes)));
}

export const keyOf = (cr: DeletingObject) => `${cr.metadata.namespace ?? ''}/${cr.metadata.name}`;

/** Oldest deletion first, then by name: the order the members' own passes would most likely have come in. */
export function byDeletion(a: DeletingObject, b: DeletingObject): number {
  const [x, y] = [a.metadata.deletionTimestamp ?? '', b.metadata.deletionTimestamp ?? ''];
  return x < y ? -1 : x > y ? 1 : a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** `outcome`, or the abort of `signal` (the waiting pass is canceled; the job goes on). */
export function untilAborted<T>(outcome: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    outcome.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
