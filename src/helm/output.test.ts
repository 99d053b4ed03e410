import { describe, expect, it } from 'vitest';
import { HelmOutputError, HelmVersionError } from './errors.js';
import {
  checkHelmVersion,
  parseHelmVersion,
  parseRelease,
  tail,
  uninstalledLines,
  uninstallProgress,
} from './output.js';

const ref = { release: 'web', namespace: 'apps' };

/** The error `fn` throws; fails the test when it does not throw. */
const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('parseHelmVersion', () => {
  it.each([
    ['v3.22.0+gabc1234', { version: 'v3.22.0+gabc1234', major: 3, minor: 22 }],
    ['v4.3.1\n', { version: 'v4.3.1', major: 4, minor: 3 }],
    ['v3.8.0-rc.1+g1', { version: 'v3.8.0-rc.1+g1', major: 3, minor: 8 }],
    ['Client: v2.17.0+ga690bad', { version: 'v2.17.0+ga690bad', major: 2, minor: 17 }],
  ])('parses %j', (output, expected) => {
    expect(parseHelmVersion(output)).toEqual(expected);
  });

  it('throws HelmVersionError for output without a version', () => {
    expect(() => parseHelmVersion('command not understood')).toThrow(HelmVersionError);
  });
});

describe('checkHelmVersion', () => {
  it('accepts helm 3.13 and later, including helm 4', () => {
    for (const v of ['v3.13.0', 'v3.22.0+gabc', 'v4.0.0', 'v4.3.1']) {
      expect(() => checkHelmVersion(parseHelmVersion(v))).not.toThrow();
    }
  });

  it('rejects older helm with a message naming the version and the minimum', () => {
    for (const v of ['v3.12.3', 'v3.7.2+g663a896', 'v2.17.0']) {
      const check = () => checkHelmVersion(parseHelmVersion(v));
      expect(check).toThrow(HelmVersionError);
      expect(check).toThrow(/too old.*>= 3\.13/);
    }
    expect(thrown(() => checkHelmVersion(parseHelmVersion('v3.7.2')))).toMatchObject({
      code: 'HELM_UNSUPPORTED_VERSION',
      version: 'v3.7.2',
    });
  });
});

describe('tail', () => {
  it('keeps short text whole and cuts long text to maxChars with a marker', () => {
    expect(tail('  short\n', 10)).toBe('short');
    const cut = tail(`${'a'.repeat(100)}END`, 10);
    expect(cut).toHaveLength(10);
    expect(cut).toBe('…aaaaaaEND');
  });
});

describe('parseRelease', () => {
  const output = {
    name: 'web',
    namespace: 'apps',
    version: 2,
    info: { status: 'deployed', notes: 'hello' },
    manifest: '---\nkind: ConfigMap\n',
    config: { password: 'hunter2-secret' },
    chart: { metadata: { name: 'web', version: '1.2.3' }, values: { a: 1 } },
  };

  it('keeps the fields the operator reads and drops the values (config)', () => {
    expect(parseRelease(JSON.stringify(output), 'upgrade', ref)).toEqual({
      name: 'web',
      namespace: 'apps',
      version: 2,
      info: { status: 'deployed', notes: 'hello' },
      manifest: '---\nkind: ConfigMap\n',
      chart: { name: 'web', version: '1.2.3' },
    });
  });

  it('tolerates a missing manifest and notes (helm omits empty fields)', () => {
    const { manifest: _m, ...rest } = output;
    const parsed = parseRelease(JSON.stringify({ ...rest, info: { status: 'deployed' } }), 'install', ref);
    expect(parsed.manifest).toBe('');
    expect(parsed.info).toEqual({ status: 'deployed' });
  });

  it('throws HelmOutputError without quoting the output', () => {
    const stdout = 'Release web has been cancelled. hunter2-secret';
    expect(() => parseRelease(stdout, 'install', ref)).toThrow(HelmOutputError);
    const err = thrown(() => parseRelease('{"config":"hunter2-secret", broken}', 'install', ref));
    expect(err).toBeInstanceOf(HelmOutputError);
    expect(String(err)).not.toContain('hunter2');
    expect(err).not.toHaveProperty('cause');
    expect(() => parseRelease('{"name":"web"}', 'install', ref)).toThrow(/missing name, version or info\.status/);
  });
});

describe('uninstallProgress', () => {
  it('counts the releases helm reported in order, up to the first it did not', () => {
    const out = 'release "web" uninstalled\nkept history\nrelease "api" uninstalled\n';
    expect(uninstallProgress(out, ['web', 'api', 'db', 'x'])).toEqual({ uninstalled: ['web', 'api'], stoppedAt: 'db' });
    expect(uninstallProgress(out, ['web', 'api'])).toEqual({ uninstalled: ['web', 'api'], stoppedAt: undefined });
    expect(uninstallProgress('', ['web'])).toEqual({ uninstalled: [], stoppedAt: 'web' });
  });

  it('never counts a release after one helm did not report, nor a line that only mentions it', () => {
    const out = 'release "api" uninstalled\nsome release "web" uninstalled later\n';
    expect(uninstallProgress(out, ['web', 'api'])).toEqual({ uninstalled: [], stoppedAt: 'web' });
  });
});

describe('uninstalledLines', () => {
  it('reports each release of the batch once, as helm prints it gone, and nothing else', () => {
    const gone: string[] = [];
    const line = uninstalledLines(['web', 'api'], (r) => gone.push(r));
    for (const l of ['release "api" uninstalled', 'release "api" uninstalled', 'release "x" uninstalled', 'web', ''])
      line(l);
    line('release "web" uninstalled');
    expect(gone).toEqual(['api', 'web']);
  });
});
