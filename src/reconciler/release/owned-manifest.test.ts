import { describe, expect, it } from 'vitest';
import { nginxCr } from '../../../test/fakes/reconciler.js';
import { OwnedManifestMemo } from './owned-manifest.js';

const signal = new AbortController().signal;
const PLAIN = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n';
const MARKED =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  labels:\n    helm.sdk.operatorframework.io/chart: nginx\n';

describe('OwnedManifestMemo', () => {
  it('marks a manifest stored without the marks (an adopted release), once per revision', async () => {
    const calls: string[] = [];
    const memo = new OwnedManifestMemo(async (cr, manifest) => {
      calls.push(`${cr.metadata.name}@${manifest.length}`);
      return MARKED;
    });
    const cr = nginxCr();
    expect(await memo.get('apps/web', cr, 1, PLAIN, signal)).toBe(MARKED);
    expect(await memo.get('apps/web', cr, 1, PLAIN, signal)).toBe(MARKED);
    expect(calls).toHaveLength(1);
    await memo.get('apps/web', cr, 2, PLAIN, signal);
    expect(calls).toHaveLength(2);
    memo.forget('apps/web');
    await memo.get('apps/web', cr, 2, PLAIN, signal);
    expect(calls).toHaveLength(3);
  });

  it('hands back a manifest the post-renderer wrote as it is, and every manifest without a post-renderer', async () => {
    let called = false;
    const memo = new OwnedManifestMemo(async () => {
      called = true;
      return '';
    });
    expect(await memo.get('apps/web', nginxCr(), 1, MARKED, signal)).toBe(MARKED);
    expect(called).toBe(false);
    expect(await new OwnedManifestMemo(undefined).get('apps/web', nginxCr(), 1, PLAIN, signal)).toBe(PLAIN);
  });
});
