// A CR in failure backoff (its retry scheduled a minute out) is reconciled at once when its annotations change, as
// Flux's requestedAt does (reconcile-requested-at, force-upgrade-at, paused); a status write or a dependent's change
// leaves it to its backoff. Wires the real CR event handler to a real Controller.
import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { flush } from '../../test/support/flush.js';
import { RetryLaterError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import type { KubeObject } from '../kube/types.js';
import { Controller } from './controller.js';
import { crEventHandler } from './event-handlers.js';

const cr = (annotations: Record<string, string> = {}, status?: unknown): KubeObject => ({
  apiVersion: 'x/v1',
  kind: 'X',
  metadata: { name: 'a', namespace: 'ns', generation: 1, annotations },
  ...(status === undefined ? {} : { status }),
});

const RETRY_MS = 60_000;

/**
 * Fails the first reconcile with a one-minute retry (on a fake clock), runs `then` once that retry is scheduled, moves
 * the clock `advanceMs` on, and counts the reconciles once the queue is drained: whatever `then` queued (at once, or
 * delayed within `advanceMs`) has been reconciled by then; the retry, if still ahead, is dropped.
 */
async function afterFailure(
  then: (h: ReturnType<typeof crEventHandler>, c: Controller) => void,
  advanceMs: number,
): Promise<number> {
  const clock = new FakeClock();
  let reconciles = 0;
  const c = new Controller({
    name: 'x-controller',
    concurrency: 1,
    clock,
    logger: silentLogger,
    reconcile: async () => {
      reconciles++;
      if (reconciles === 1) throw new RetryLaterError('failing', RETRY_MS);
      return {};
    },
  });
  const handler = crEventHandler({
    gvk: { group: 'x', version: 'v1', kind: 'X' },
    controller: c,
    logger: silentLogger,
  });
  const deadline = AbortSignal.timeout(10_000);
  c.enqueue('ns/a');
  const running = c.run(deadline);
  // The failure is settled once its retry is scheduled.
  await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1), { timeout: 1_000, interval: 1 });
  then(handler, c);
  clock.advance(advanceMs);
  await flush();
  await c.queue.shutDownWithDrain(deadline);
  await running;
  return reconciles;
}

describe('a CR in failure backoff', () => {
  it('is reconciled at once when an annotation changes (a reconcile request)', async () => {
    const requested = cr({ 'helm.sdk.operatorframework.io/reconcile-requested-at': '2026-01-01T10:00:00Z' });
    expect(await afterFailure((h) => h.onUpdate?.(cr(), requested), 0)).toBe(2);
  });

  it('waits out its backoff when only its status changed, or one of its dependents', async () => {
    // Up to just before the retry: neither is reconciled earlier, at once or after a shorter delay.
    expect(await afterFailure((h) => h.onUpdate?.(cr(), cr({}, { failures: 1 })), RETRY_MS - 1)).toBe(1);
    expect(await afterFailure((_, c) => c.enqueueDependent('ns/a'), RETRY_MS - 1)).toBe(1);
  });
});
