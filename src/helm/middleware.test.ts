import { describe, expect, it } from 'vitest';
import { FakeHelm, HELM_V3 } from '../../test/fakes/helm.js';
import { chain, type HelmMiddleware } from './middleware.js';

const signal = new AbortController().signal;

/** A middleware that records when it sees a call and its outcome, and adds its name to the call's names. */
function spy(name: string, seen: string[]): HelmMiddleware {
  return {
    name,
    async around(command, params, next) {
      seen.push(`${name} ${command}`);
      try {
        return await next({ ...params, names: [...(params.names ?? []), name] });
      } finally {
        seen.push(`${name} done`);
      }
    },
  };
}

describe('chain', () => {
  it('runs the middlewares around every call, the first outermost, each passing its parameters on', async () => {
    const seen: string[] = [];
    let names: readonly string[] | undefined;
    const helm = new FakeHelm()
      .on('version', () => HELM_V3)
      .on('uninstall', (p) => {
        names = p.names;
      });
    const chained = chain(helm, [spy('outer', seen), spy('inner', seen)]);
    await chained.uninstall({ release: 'web', namespace: 'apps', signal });
    expect(seen).toEqual(['outer uninstall', 'inner uninstall', 'inner done', 'outer done']);
    expect(names).toEqual(['outer', 'inner']);
    seen.length = 0;
    await chained.version({ signal });
    expect(seen).toEqual(['outer version', 'inner version', 'inner done', 'outer done']);
  });

  it('passes helm errors through every middleware unchanged', async () => {
    const boom = new Error('boom');
    const helm = new FakeHelm().failNext('rollback', boom);
    await expect(chain(helm, [spy('a', [])]).rollback({ release: 'web', namespace: 'apps', signal })).rejects.toBe(
      boom,
    );
  });

  it('is the client itself, call for call, with no middleware', async () => {
    const helm = new FakeHelm().on('version', () => HELM_V3);
    await expect(chain(helm, []).version({ signal })).resolves.toEqual(HELM_V3);
  });
});
