import { describe, expect, it } from 'vitest';
import { helmCommandError } from '../../test/fakes/helm.js';
import { failureMessage, forbiddenHint } from './classify.js';

const REFUSED =
  'Error: UPGRADE FAILED: could not get information about the resource Ingress "web" in namespace "apps": ' +
  'ingresses.networking.k8s.io "web" is forbidden: User "system:serviceaccount:p1-system:p1-controller-manager" ' +
  'cannot get resource "ingresses" in API group "networking.k8s.io" in the namespace "apps"';

describe('failureMessage of an RBAC refusal', () => {
  it('names the account, the verb and the resource, and the file to grant them in', () => {
    const message = failureMessage(helmCommandError('upgrade', REFUSED));
    expect(message).toMatch(/^helm upgrade of release apps\/web failed with exit code 1: .*is forbidden/);
    expect(message).toContain(
      '(system:serviceaccount:p1-system:p1-controller-manager may not get ingresses.networking.k8s.io: grant it in ' +
        'config/rbac/extra_role.yaml (apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: [create, ' +
        'delete, get, list, patch, update, watch])',
    );
    expect(message).toMatch(/then make deploy\)$/);
  });

  it('names a core resource without a group, also at the cluster scope', () => {
    const stderr =
      'Error: namespaces is forbidden: User "u" cannot list resource "namespaces" in API group "" at the cluster scope';
    expect(forbiddenHint(stderr)).toMatch(
      /^u may not list namespaces: .*apiGroups: \[""\], resources: \["namespaces"\]/,
    );
  });

  it('leaves every other failure as helm said it', () => {
    const err = helmCommandError('install', 'Error: INSTALLATION FAILED: timed out waiting for the condition');
    expect(failureMessage(err)).toBe(err.message);
    expect(failureMessage(new Error('plain'))).toBe('plain');
  });
});
