import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { type Admission, ChartRolloutGate, type RolloutHold } from './gate.js';

const V2 = 'sha256:2222222222222222222222222222222222222222';
const V3 = 'sha256:3333333333333333333333333333333333333333';

function gate(o: { maxConcurrent?: number; maxFailures?: number } = {}) {
  const woken: string[] = [];
  const counts: { pending: number; upgraded: number; failed: number }[] = [];
  const g = new ChartRolloutGate({
    controller: 'web-controller',
    ...o,
    metrics: { chartRollout: (_c, n) => counts.push(n) },
    logger: silentLogger,
  });
  g.onWake((key) => woken.push(key));
  return { g, woken, last: () => counts.at(-1) };
}
const run = (a: Admission) => {
  if ('hold' in a) throw new Error(`held: ${a.hold.message}`);
  return a.done;
};
const hold = (a: Admission): RolloutHold => {
  if (!('hold' in a)) throw new Error('admitted');
  return a.hold;
};

describe('ChartRolloutGate', () => {
  it('lets one canary go first and holds every other CR until it succeeded', () => {
    const { g, woken } = gate();
    const canary = run(g.admit('ns/a', V2));
    expect(hold(g.admit('ns/b', V2))).toMatchObject({ reason: 'Waiting', retryAfterMs: 5000 });
    expect(hold(g.admit('ns/c', V2)).message).toContain('waiting for the canary ns/a');
    expect(hold(g.admit('ns/b', V2)).message).toContain('sha256:222222222222');
    canary('success');
    expect(woken).toEqual(['ns/b', 'ns/c']);
    run(g.admit('ns/b', V2));
    run(g.admit('ns/c', V2));
  });

  it('then runs at most maxConcurrent at once, a finished upgrade freeing its slot and waking the next', () => {
    const { g, woken, last } = gate({ maxConcurrent: 2 });
    run(g.admit('ns/canary', V2))('success');
    const b = run(g.admit('ns/b', V2));
    run(g.admit('ns/c', V2));
    expect(hold(g.admit('ns/d', V2)).message).toContain(
      'free upgrade slot (at most 2 at once; ns/canary upgraded first)',
    );
    hold(g.admit('ns/e', V2));
    expect(last()).toEqual({ pending: 2, upgraded: 1, failed: 0 });
    woken.length = 0;
    b('success');
    expect(woken).toEqual(['ns/d']);
    run(g.admit('ns/d', V2));
    hold(g.admit('ns/e', V2));
    expect(last()).toEqual({ pending: 1, upgraded: 2, failed: 0 });
  });

  it('halts when the canary fails (maxFailures 0): everyone else is held, and woken once to show it', () => {
    const { g, woken, last } = gate();
    const canary = run(g.admit('ns/a', V3));
    hold(g.admit('ns/b', V3));
    hold(g.admit('ns/c', V3));
    canary('failure');
    expect(woken).toEqual(['ns/b', 'ns/c']);
    const h = hold(g.admit('ns/b', V3));
    expect(h.reason).toBe('Halted');
    expect(h.retryAfterMs).toBeUndefined();
    expect(h.message).toContain('the upgrade of the canary ns/a failed');
    expect(last()).toEqual({ pending: 2, upgraded: 0, failed: 1 });
  });

  it('tolerates maxFailures failures (a new canary goes first after a failed one), and halts on one more', () => {
    const { g } = gate({ maxFailures: 1, maxConcurrent: 3 });
    run(g.admit('ns/a', V2))('failure');
    const second = run(g.admit('ns/b', V2)); // the next canary
    expect(hold(g.admit('ns/c', V2)).message).toContain('canary ns/b');
    second('success');
    run(g.admit('ns/c', V2))('failure');
    expect(hold(g.admit('ns/d', V2)).reason).toBe('Halted');
  });

  it('lets a failed CR retry while halted; its success lifts the halt and wakes the others', () => {
    const { g, woken, last } = gate();
    run(g.admit('ns/a', V3))('failure');
    hold(g.admit('ns/b', V3));
    woken.length = 0;
    run(g.admit('ns/a', V3))('success');
    expect(woken).toEqual(['ns/b']);
    run(g.admit('ns/b', V3));
    expect(last()).toEqual({ pending: 0, upgraded: 1, failed: 0 });
  });

  it('an aborted canary frees the first turn without counting a failure', () => {
    const { g, woken } = gate();
    const a = run(g.admit('ns/a', V2));
    hold(g.admit('ns/b', V2));
    a('aborted');
    expect(woken).toEqual(['ns/b']);
    run(g.admit('ns/b', V2))('success'); // the new canary
    run(g.admit('ns/a', V2));
  });

  it('counts each admission once, however often done is called', () => {
    const { g, last } = gate({ maxConcurrent: 1 });
    const a = run(g.admit('ns/a', V2));
    a('success');
    a('failure');
    expect(last()).toEqual({ pending: 0, upgraded: 1, failed: 0 });
    run(g.admit('ns/b', V2)); // the slot was freed once, not twice
    hold(g.admit('ns/c', V2));
  });

  it('starts over for another chart digest: the canary goes first again, old slots do not leak', () => {
    const { g, last } = gate({ maxConcurrent: 1 });
    run(g.admit('ns/a', V2))('success');
    const old = run(g.admit('ns/b', V2));
    run(g.admit('ns/c', V3)); // canary of V3
    hold(g.admit('ns/b', V3));
    old('failure'); // the V2 rollout's late end changes nothing of V3's
    expect(last()).toEqual({ pending: 1, upgraded: 0, failed: 0 });
    expect(hold(g.admit('ns/d', V3)).reason).toBe('Waiting');
  });

  it('drops a CR that passed (its own spec change) or is gone from the pending count', () => {
    const { g, last } = gate();
    run(g.admit('ns/a', V2));
    hold(g.admit('ns/b', V2));
    hold(g.admit('ns/c', V2));
    g.pass('ns/b');
    g.forget('ns/c');
    expect(last()).toEqual({ pending: 0, upgraded: 0, failed: 0 });
  });

  it('rejects limits it cannot honour', () => {
    expect(() => gate({ maxConcurrent: 0 })).toThrow(RangeError);
    expect(() => gate({ maxFailures: -1 })).toThrow(RangeError);
  });
});
