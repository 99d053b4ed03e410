// Splits a project's RBAC objects for an OLM bundle as operator-sdk's generator does: rules of Roles (and
// ClusterRoles) bound by RoleBindings to the operator's ServiceAccounts become CSV `permissions`, rules of
// ClusterRoles bound by ClusterRoleBindings become `clusterPermissions`; the rest stays a plain manifest.
// Called by bundle.ts only; pure (never mutates its input, never touches the file system).

export type KubeObject = Record<string, unknown>;

export interface Permission {
  readonly serviceAccountName: string;
  readonly rules: unknown[];
}

export interface RbacSplit {
  readonly permissions: Permission[];
  readonly clusterPermissions: Permission[];
  /** Roles nobody of ours is bound to, and bindings that still name other subjects (ours removed). */
  readonly keep: KubeObject[];
}

interface Subject {
  readonly kind?: string;
  readonly name?: string;
}

export function nameOf(o: KubeObject): string {
  const m = o.metadata;
  return m !== null && typeof m === 'object' && typeof (m as KubeObject).name === 'string'
    ? ((m as KubeObject).name as string)
    : '';
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function roleRef(binding: KubeObject): { kind: string; name: string } | undefined {
  const ref = binding.roleRef as { kind?: unknown; name?: unknown; apiGroup?: unknown } | undefined;
  if (!ref || typeof ref.kind !== 'string' || typeof ref.name !== 'string') return undefined;
  if (ref.apiGroup !== undefined && ref.apiGroup !== '' && ref.apiGroup !== RBAC_GROUP) return undefined;
  return { kind: ref.kind, name: ref.name };
}

function rulesOf(role: KubeObject): unknown[] {
  return Array.isArray(role.rules) ? structuredClone(role.rules) : [];
}

/** One entry per ServiceAccount, rules in binding order, each role's rules once per account; sorted by account. */
class PermissionSet {
  private readonly bySa = new Map<string, { rules: unknown[]; roles: Set<string> }>();
  add(sa: string, roleKey: string, rules: unknown[]): void {
    const entry = this.bySa.get(sa) ?? { rules: [], roles: new Set<string>() };
    this.bySa.set(sa, entry);
    if (entry.roles.has(roleKey)) return;
    entry.roles.add(roleKey);
    entry.rules.push(...rules);
  }
  list(): Permission[] {
    return [...this.bySa.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([serviceAccountName, e]) => ({ serviceAccountName, rules: e.rules }));
  }
}

/**
 * `objects` may hold anything: only Role, ClusterRole, RoleBinding and ClusterRoleBinding (rbac.authorization.k8s.io)
 * are looked at, and only those are returned in `keep`. `serviceAccounts` are the Deployments' accounts.
 */
export function splitRbac(objects: readonly KubeObject[], serviceAccounts: ReadonlySet<string>): RbacSplit {
  const ofKind = (kind: string) =>
    objects.filter((o) => o.kind === kind && String(o.apiVersion ?? '').startsWith(`${RBAC_GROUP}/`));
  const roles = new Map(ofKind('Role').map((r) => [nameOf(r), r]));
  const clusterRoles = new Map(ofKind('ClusterRole').map((r) => [nameOf(r), r]));
  const permissions = new PermissionSet();
  const clusterPermissions = new PermissionSet();
  const usedRoles = new Set<string>();
  const usedClusterRoles = new Set<string>();
  const keptBindings: KubeObject[] = [];

  const bind = (binding: KubeObject, clusterWide: boolean) => {
    const ref = roleRef(binding);
    const target =
      ref?.kind === 'Role' && !clusterWide
        ? roles.get(ref.name)
        : ref?.kind === 'ClusterRole'
          ? clusterRoles.get(ref.name)
          : undefined;
    const subjects = (Array.isArray(binding.subjects) ? binding.subjects : []) as Subject[];
    if (!ref || !target) {
      keptBindings.push(binding);
      return;
    }
    const ours = subjects.filter((s) => s.kind === 'ServiceAccount' && serviceAccounts.has(s.name ?? ''));
    const set = clusterWide ? clusterPermissions : permissions;
    for (const s of ours) set.add(s.name ?? '', `${ref.kind}/${ref.name}`, rulesOf(target));
    if (ours.length > 0) (ref.kind === 'Role' ? usedRoles : usedClusterRoles).add(ref.name);
    const others = subjects.filter((s) => !ours.includes(s));
    if (others.length > 0) keptBindings.push(ours.length > 0 ? { ...binding, subjects: others } : binding);
  };
  for (const b of ofKind('RoleBinding')) bind(b, false);
  for (const b of ofKind('ClusterRoleBinding')) bind(b, true);

  const keep = [
    ...[...roles.entries()].filter(([n]) => !usedRoles.has(n)).map(([, r]) => r),
    ...[...clusterRoles.entries()].filter(([n]) => !usedClusterRoles.has(n)).map(([, r]) => r),
    ...keptBindings,
  ];
  return { permissions: permissions.list(), clusterPermissions: clusterPermissions.list(), keep };
}
