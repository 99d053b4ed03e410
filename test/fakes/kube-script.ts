// What an informer test scripts on test/fakes/kube-api.ts: LIST answers queued in order (a LIST waits, abortably,
// until one is there) and a wake-up for whoever waits on the next opened watch. Test-only; no timers.
import { waitFor } from '../../src/core/abortable.js';
import type { ListResult } from '../../src/kube/types.js';

export class ListScript {
  readonly #answers: Array<ListResult | Error> = [];
  readonly #wakers = new Set<() => void>();

  /** True while answers are queued. */
  get pending(): boolean {
    return this.#answers.length > 0;
  }

  /** Queues answers for the next LIST calls; an Error is thrown by its call. */
  enqueue(answers: Array<ListResult | Error>): void {
    this.#answers.push(...answers);
    this.wake();
  }

  /** The next queued answer, waiting for one; rejects with the signal's reason on abort. */
  async next(signal: AbortSignal): Promise<ListResult> {
    while (this.#answers.length === 0) {
      signal.throwIfAborted();
      // The waker stays registered after an abort, as a stale waker only wakes a loop that checks again.
      await waitFor(signal, (done) => {
        this.waitOnce(() => done());
        return () => undefined;
      });
    }
    const answer = this.#answers.shift();
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw new Error('unreachable');
    return answer;
  }

  /** Calls `fn` at the next wake(). */
  waitOnce(fn: () => void): void {
    const wake = () => {
      this.#wakers.delete(wake);
      fn();
    };
    this.#wakers.add(wake);
  }

  /** Wakes every waiter (an answer was queued, or a watch opened). */
  wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }
}
