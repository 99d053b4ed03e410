import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { formatOwnershipArgs, parseOwnershipArgs } from './context.js';
import type { OwnershipContext } from './rules.js';

const CTX: OwnershipContext = {
  owner: { apiVersion: 'demo.example.com/v1alpha1', kind: 'Nginx', namespace: 'team', name: 'web', uid: 'uid-1' },
  chart: 'nginx',
  releaseNamespace: 'team',
};

/** The error `fn` throws; fails the test when it does not throw. */
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('formatOwnershipArgs', () => {
  it('writes one --field=value argument per identity field, in a fixed order', () => {
    expect(formatOwnershipArgs(CTX)).toEqual([
      '--owner-api-version=demo.example.com/v1alpha1',
      '--owner-kind=Nginx',
      '--owner-namespace=team',
      '--owner-name=web',
      '--owner-uid=uid-1',
      '--chart=nginx',
    ]);
  });

  it('refuses an identity holding a tab or a line break (the post-renderer request line could not carry it)', () => {
    const err = thrown(() => formatOwnershipArgs({ ...CTX, chart: 'bad\tchart' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('post-render: --chart "bad\\tchart" holds a control character');
  });
});

describe('parseOwnershipArgs', () => {
  describe('when given what formatOwnershipArgs wrote', () => {
    it('gives back the same context', () => {
      expect(parseOwnershipArgs(formatOwnershipArgs(CTX))).toEqual(CTX);
    });

    it('gives back the shard when sharding wrote one, and none otherwise', () => {
      const sharded = formatOwnershipArgs({ ...CTX, shard: '3' });
      expect(sharded.at(-1)).toBe('--shard=3');
      expect(parseOwnershipArgs(sharded)).toEqual({ ...CTX, shard: '3' });
      expect(parseOwnershipArgs(formatOwnershipArgs(CTX))).not.toHaveProperty('shard');
    });

    it('does not depend on the order of the arguments', () => {
      expect(parseOwnershipArgs(formatOwnershipArgs(CTX).reverse())).toEqual(CTX);
    });

    it('takes the release namespace from the owner namespace, not from the given context', () => {
      const ctx = { ...CTX, releaseNamespace: 'elsewhere' };
      expect(parseOwnershipArgs(formatOwnershipArgs(ctx)).releaseNamespace).toBe('team');
    });
  });

  describe('when a value contains "="', () => {
    it('splits at the first "=" only and keeps the rest of the value', () => {
      const ctx: OwnershipContext = { ...CTX, owner: { ...CTX.owner, uid: 'a=b==c' }, chart: 'x=y' };
      const parsed = parseOwnershipArgs(formatOwnershipArgs(ctx));
      expect(parsed.owner.uid).toBe('a=b==c');
      expect(parsed.chart).toBe('x=y');
    });
  });

  describe('when an argument is not one of the known fields', () => {
    it.each([
      ['an unknown field', '--owner-color=blue'],
      ['a positional argument', 'stray'],
      ['a flag without a value', '--chart'],
      ['the socket argument', '--socket=/tmp/x.sock'],
    ])('throws a ConfigError naming %s', (_what, arg) => {
      const err = thrown(() => parseOwnershipArgs([...formatOwnershipArgs(CTX), arg]));
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain('unexpected argument');
      expect((err as Error).message).toContain(JSON.stringify(arg));
    });
  });

  describe('when a field is missing', () => {
    it.each(['owner-api-version', 'owner-kind', 'owner-namespace', 'owner-name', 'owner-uid', 'chart'])(
      'throws a ConfigError naming --%s',
      (field) => {
        const args = formatOwnershipArgs(CTX).filter((a) => !a.startsWith(`--${field}=`));
        expect(args).toHaveLength(5);
        const err = thrown(() => parseOwnershipArgs(args));
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as Error).message).toBe(`post-render: missing --${field}`);
      },
    );

    it('treats an empty value as missing', () => {
      const args = formatOwnershipArgs(CTX).map((a) => (a.startsWith('--owner-uid=') ? '--owner-uid=' : a));
      expect(() => parseOwnershipArgs(args)).toThrow('post-render: missing --owner-uid');
    });

    it('throws for no arguments at all', () => {
      expect(() => parseOwnershipArgs([])).toThrow(ConfigError);
    });
  });
});
