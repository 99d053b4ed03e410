import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/fakes/clock.js';
import { startWatchdog } from './watchdog.js';

describe('startWatchdog', () => {
  it('fires once after a full period without activity, reporting the idle time', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    startWatchdog(clock, 1_000, (idle) => fired.push(idle));
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([1_000]);
    clock.advance(10_000);
    expect(fired).toEqual([1_000]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('measures the period from the last touch, keeping a single timer', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const dog = startWatchdog(clock, 1_000, (idle) => fired.push(idle));
    for (let i = 0; i < 5; i++) {
      clock.advance(600);
      dog.touch();
      expect(clock.pendingTimers()).toBe(1);
    }
    expect(fired).toEqual([]);
    clock.advance(1_000);
    expect(fired).toEqual([1_000]);
  });

  it('never fires after cancel()', () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const dog = startWatchdog(clock, 1_000, (idle) => fired.push(idle));
    dog.cancel();
    clock.advance(5_000);
    expect(fired).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});
