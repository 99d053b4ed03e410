import { describe, expect, it } from 'vitest';
import { parseGenerateRbacArgs } from './generate-flags.js';

describe('parseGenerateRbacArgs', () => {
  it('takes --values-from', () => {
    expect(parseGenerateRbacArgs(['--values-from'], '/p')).toEqual({ projectDir: '/p', valuesFrom: true });
  });

  it('takes the project directory and --kube-version, normalised to vX.Y.Z', () => {
    expect(parseGenerateRbacArgs([], '/p')).toEqual({ projectDir: '/p' });
    expect(parseGenerateRbacArgs(['--kube-version=1.29'], '/p')).toEqual({ projectDir: '/p', kubeVersion: 'v1.29.0' });
    expect(parseGenerateRbacArgs(['--kube-version', 'v1.30.2'], '/p').kubeVersion).toBe('v1.30.2');
    expect(() => parseGenerateRbacArgs(['--x'], '/p')).toThrow(
      /generate rbac takes only --kube-version, --values-from and --values/,
    );
    expect(() => parseGenerateRbacArgs(['--kube-version'], '/p')).toThrow(/needs an argument: --kube-version/);
    expect(() => parseGenerateRbacArgs(['--kube-version=latest'], '/p')).toThrow(/not a Kubernetes version/);
  });

  it('takes --values files, repeated, each for every kind or for one (Kind=file), relative to the project', () => {
    expect(parseGenerateRbacArgs(['--values=ingress.yaml', '--values', 'Web=/abs/web.yaml'], '/p')).toEqual({
      projectDir: '/p',
      valuesFiles: [{ file: '/p/ingress.yaml' }, { kind: 'Web', file: '/abs/web.yaml' }],
    });
    expect(() => parseGenerateRbacArgs(['--values'], '/p')).toThrow(/needs an argument: --values/);
    expect(() => parseGenerateRbacArgs(['--values=Web='], '/p')).toThrow(/--values=\[Kind=\]/);
  });
});
