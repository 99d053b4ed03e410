import { describe, expect, it } from 'vitest';
import { deadline } from './deadline.js';

describe('deadline', () => {
  it('aborts with a TimeoutError once the time is up', async () => {
    const d = deadline(10);
    await new Promise((resolve) => d.signal.addEventListener('abort', resolve, { once: true }));
    expect(d.signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('never aborts once cleared', async () => {
    const d = deadline(10);
    d.clear();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(d.signal.aborted).toBe(false);
  });
});
