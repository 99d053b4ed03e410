import { describe, expect, it } from 'vitest';
import { groupUsage, pickSubcommand } from './usage.js';

function streams() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } },
    out,
    err,
  };
}

describe('pickSubcommand', () => {
  it('returns a known subcommand and prints nothing', () => {
    const s = streams();
    expect(pickSubcommand('generate', 'rbac', s.io)).toBe('rbac');
    expect(pickSubcommand('create', 'api', s.io)).toBe('api');
    expect([...s.out, ...s.err]).toEqual([]);
  });

  it.each(['--help', '-h', 'help'])('prints the group usage on stdout and exits 0 for %s', (flag) => {
    const s = streams();
    expect(pickSubcommand('generate', flag, s.io)).toBe(0);
    expect(s.out.join('')).toBe(groupUsage('generate'));
    expect(s.out.join('')).toMatch(
      /Subcommands:\n {2}rbac {4}regenerate config\/rbac\/role.yaml.*\n {2}bundle {2}write/,
    );
    expect(s.err).toEqual([]);
  });

  it('names the choices on stderr and exits 2 for an unknown or missing subcommand', () => {
    const s = streams();
    expect(pickSubcommand('create', 'webhook', s.io)).toBe(2);
    expect(s.err.join('')).toMatch(/^helm-operator create: unknown subcommand "webhook"; try api\n/);
    const m = streams();
    expect(pickSubcommand('generate', undefined, m.io)).toBe(2);
    expect(m.err.join('')).toMatch(/^helm-operator generate needs a subcommand; try rbac or bundle\n/);
  });
});
