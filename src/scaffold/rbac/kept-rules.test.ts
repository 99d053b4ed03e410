import { describe, expect, it } from 'vitest';
import { describeRule, keptRulesWarning, rulesNotDerived } from './kept-rules.js';

const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({ apiGroups, resources, verbs });

describe('rulesNotDerived', () => {
  it('keeps only the grants no derived rule gives, verb by verb', () => {
    const existing = [rule([''], ['secrets', 'namespaces'], ['get', 'list']), rule(['apps'], ['deployments'], ['*'])];
    const derived = [rule([''], ['secrets'], ['get', 'list', 'watch']), rule([''], ['namespaces'], ['get'])];
    expect(rulesNotDerived(existing, derived)).toEqual([
      rule([''], ['namespaces'], ['list']),
      rule(['apps'], ['deployments'], ['*']),
    ]);
  });

  it('treats a derived wildcard as covering, and returns [] when everything is derived', () => {
    expect(rulesNotDerived([rule(['x.io'], ['a', 'b'], ['get'])], [rule(['*'], ['*'], ['*'])])).toEqual([]);
    expect(rulesNotDerived([], [rule([''], ['pods'], ['get'])])).toEqual([]);
  });
});

describe('keptRulesWarning', () => {
  it('names each kept rule, the file hand-written rules belong in, and the way out', () => {
    const kept = [rule([''], ['namespaces'], ['get']), rule(['networking.k8s.io'], ['ingresses'], ['get', 'list'])];
    expect(describeRule(kept[1] ?? rule([], [], []))).toBe('get, list on ingresses.networking.k8s.io');
    expect(keptRulesWarning(kept)).toBe(
      'config/rbac/role.yaml: kept 2 rules that neither the operator nor any chart rendering needs (get on ' +
        'namespaces; get, list on ingresses.networking.k8s.io): hand-written rules belong in ' +
        'config/rbac/extra_role.yaml, which generate rbac never rewrites. Move them there, or delete them from ' +
        'config/rbac/role.yaml if no longer needed',
    );
  });
});
