// Rules of the manager role that no derivation explains: a regeneration keeps them (it never drops a rule a user
// wrote) and names them in a warning that says where hand-written rules belong. Called by rbac.ts. Pure.
import { PATHS } from '../templates/context.js';
import { mergeRules, type PolicyRule } from './rules.js';

/** The grants (group, resource, verb) of `existing` that `derived` does not give, merged into rules; [] when none. */
export function rulesNotDerived(existing: readonly PolicyRule[], derived: readonly PolicyRule[]): PolicyRule[] {
  const granted = (group: string, resource: string, verb: string) =>
    derived.some(
      (r) =>
        (r.apiGroups.includes(group) || r.apiGroups.includes('*')) &&
        (r.resources.includes(resource) || r.resources.includes('*')) &&
        (r.verbs.includes(verb) || r.verbs.includes('*')),
    );
  const extra: PolicyRule[] = [];
  for (const rule of existing) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const verbs = rule.verbs.filter((v) => !granted(group, resource, v));
        if (verbs.length > 0) extra.push({ apiGroups: [group], resources: [resource], verbs });
      }
    }
  }
  return mergeRules(extra);
}

/** `get, list on namespaces`, `create on ingresses.networking.k8s.io`. */
export function describeRule(r: PolicyRule): string {
  const resources = r.apiGroups.flatMap((g) => r.resources.map((res) => (g === '' ? res : `${res}.${g}`)));
  return `${r.verbs.join(', ')} on ${resources.join(', ')}`;
}

/** The warning for rules kept in role.yaml although nothing derives them. */
export function keptRulesWarning(kept: readonly PolicyRule[]): string {
  return (
    `${PATHS.managerRole}: kept ${kept.length === 1 ? 'a rule' : `${kept.length} rules`} that neither the operator ` +
    `nor any chart rendering needs (${kept.map(describeRule).join('; ')}): hand-written rules belong in ` +
    `${PATHS.extraRole}, which generate rbac never rewrites. Move ${kept.length === 1 ? 'it' : 'them'} there, or ` +
    `delete ${kept.length === 1 ? 'it' : 'them'} from ${PATHS.managerRole} if no longer needed`
  );
}
