// --in-process-uninstall parsing (kept apart from flags.test.ts): on by default, true/false, bad values, usage.
import { describe, expect, it } from 'vitest';
import { parseRunFlags } from './flags.js';
import { RUN_USAGE } from './run-usage.js';

const ctx = { env: {}, cpus: 4 };

describe('--in-process-uninstall', () => {
  it('is on by default: releases without delete hooks are uninstalled without a helm process', () => {
    expect(parseRunFlags([], ctx).inProcessUninstall).toBe(true);
  });

  it('=false sends every uninstall to helm', () => {
    expect(parseRunFlags(['--in-process-uninstall=false'], ctx).inProcessUninstall).toBe(false);
    expect(parseRunFlags(['--in-process-uninstall'], ctx).inProcessUninstall).toBe(true);
  });

  it('fails with CONFIG_INVALID naming the flag for a value that is not a boolean', () => {
    expect(() => parseRunFlags(['--in-process-uninstall=sometimes'], ctx)).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('--in-process-uninstall') }),
    );
  });

  it('is listed in the usage', () => {
    expect(RUN_USAGE).toContain('--in-process-uninstall');
  });
});
