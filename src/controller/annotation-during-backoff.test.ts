// A CR in failure backoff (its retry scheduled a minute out) is reconciled at once when its annotations change, as
// Flux's requestedAt does (reconcile-requested-at, force-upgrade-at, paused); a status write or a dependent's change
// leaves it to its backoff. Wires the real CR event handler to a real Controller.
import { describe, expect, it } from 'vitest';
import { realClock } from '../core/clock.js';
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

/**
 * Fails the first reconcile with a one-minute retry, runs `then` after it, and counts the reconciles until a second
 * one ran or `waitMs` passed.
 */
async function afterFailure(
  then: (h: ReturnType<typeof crEventHandler>, c: Controller) => void,
  waitMs = 300,
): Promise<number> {
  const stop = new AbortController();
  let reconciles = 0;
  const c: Controller = new Controller({
    name: 'x-controller',
    concurrency: 1,
    clock: realClock,
    logger: silentLogger,
    reconcile: async () => {
      reconciles++;
      if (reconciles === 1) {
        setTimeout(() => then(handler, c), 5);
        throw new RetryLaterError('failing', 60_000);
      }
      setImmediate(() => stop.abort());
      return {};
    },
  });
  const handler = crEventHandler({
    gvk: { group: 'x', version: 'v1', kind: 'X' },
    controller: c,
    logger: silentLogger,
  });
  const timer = setTimeout(() => stop.abort(), waitMs);
  c.enqueue('ns/a');
  await c.run(stop.signal);
  clearTimeout(timer);
  return reconciles;
}

describe('a CR in failure backoff', () => {
  it('is reconciled at once when an annotation changes (a reconcile request)', async () => {
    const requested = cr({ 'helm.sdk.operatorframework.io/reconcile-requested-at': '2026-01-01T10:00:00Z' });
    expect(await afterFailure((h) => h.onUpdate?.(cr(), requested), 10_000)).toBe(2);
  });

  it('waits out its backoff when only its status changed, or one of its dependents', async () => {
    expect(await afterFailure((h) => h.onUpdate?.(cr(), cr({}, { failures: 1 })))).toBe(1);
    expect(await afterFailure((_, c) => c.enqueueDependent('ns/a'))).toBe(1);
  });
});
