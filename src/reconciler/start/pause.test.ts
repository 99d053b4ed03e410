// The paused annotation's decisions: Go's ParseBool spellings (an invalid value warns and means not paused), the
// Paused condition added to the last status as it was, and removed on resume.
import { describe, expect, it } from 'vitest';
import type { HelmAppStatus } from '../types.js';
import { isPaused, PAUSED, pausedAnnotation, pausedStatus, resumedStatus } from './pause.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const LATER = NOW + 60_000;

describe('pausedAnnotation', () => {
  it("pauses on Go's true spellings and not on its false ones or without the annotation", () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True'])
      expect(pausedAnnotation({ [PAUSED]: v })).toEqual({ value: true });
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False', '']) {
      expect(pausedAnnotation({ [PAUSED]: v })).toEqual({ value: false });
    }
    expect(pausedAnnotation(undefined)).toEqual({ value: false });
  });

  it('does not pause on an invalid value, and says which annotation is wrong', () => {
    const parsed = pausedAnnotation({ [PAUSED]: 'yes' });
    expect(parsed.value).toBe(false);
    expect(parsed.warning).toContain(`annotation ${PAUSED}="yes" is not a boolean`);
  });
});

describe('the Paused condition', () => {
  const deployed: HelmAppStatus = {
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: '2025-12-31T00:00:00Z' },
      { type: 'Deployed', status: 'True', reason: 'InstallSuccessful', lastTransitionTime: '2025-12-31T00:00:00Z' },
    ],
    deployedRelease: { name: 'web', revision: 3 },
    observedGeneration: 4,
    failures: 1,
  };

  it('is added to the last status, which otherwise stays as it was (observedGeneration included)', () => {
    const paused = pausedStatus(deployed, NOW);
    expect(isPaused(deployed)).toBe(false);
    expect(isPaused(paused)).toBe(true);
    expect(paused).toEqual({
      ...deployed,
      conditions: [
        ...deployed.conditions,
        {
          type: 'Paused',
          status: 'True',
          reason: 'PausedByAnnotation',
          message: expect.stringContaining(PAUSED),
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
    expect(pausedStatus(paused, LATER)).toEqual(paused);
  });

  it('is removed on resume, and nothing else is', () => {
    expect(resumedStatus(pausedStatus(deployed, NOW))).toEqual(deployed);
    expect(resumedStatus(deployed)).toBe(deployed);
  });
});
