import { describe, expect, it } from 'vitest';
import { keepRules } from './kept-rules.js';
import { renderManagerRole } from './role-files.js';
import { normalizeSections, originComment, parseOrigin } from './rule-origins.js';

const rule = (apiGroups: string[], resources: string[], verbs: string[]) => ({ apiGroups, resources, verbs });
const INGRESS = rule(['networking.k8s.io'], ['ingresses'], ['create', 'get']);
const CM = rule([''], ['configmaps'], ['get']);

describe('rule origins', () => {
  it('reads back the origin its own comment names, and nothing from other comments', () => {
    const values = { values: '--values=values/ingress.yaml' };
    const fallback = { fallback: 'charts/needs-values' };
    expect(parseOrigin(originComment(values))).toEqual(values);
    expect(parseOrigin(originComment(fallback))).toEqual(fallback);
    expect(parseOrigin(' added by hand for the backup job')).toBeUndefined();
    expect(parseOrigin(undefined)).toBeUndefined();
  });

  it('puts the unmarked section first and leaves out of a marked one what an earlier section grants', () => {
    const values = { values: '--values=a.yaml' };
    expect(
      normalizeSections([{ origin: values, rules: [INGRESS, CM] }, { rules: [CM] }, { origin: values, rules: [] }]),
    ).toEqual([{ rules: [CM] }, { origin: values, rules: [INGRESS] }]);
  });

  it('writes a comment before each marked rule of role.yaml', () => {
    const text = renderManagerRole([{ rules: [CM] }, { origin: { values: '--values=a.yaml' }, rules: [INGRESS] }]);
    expect(text).toMatch(
      /\n# generated for --values=a\.yaml: only that values file needs it[^\n]*\n- apiGroups:\n {2}- networking\.k8s\.io/,
    );
    expect(text.match(/generated for/g)).toHaveLength(1);
  });
});

describe('keepRules', () => {
  it('says a rule an earlier run generated for --values is that, not hand-written, and keeps its mark', () => {
    const origin = { values: '--values=values/ingress.yaml' };
    const { kept, warnings } = keepRules([{ rules: [CM] }, { origin, rules: [INGRESS] }], [CM]);
    expect(kept).toEqual([{ origin, rules: [INGRESS] }]);
    expect(warnings).toEqual([
      'config/rbac/role.yaml: kept a rule that an earlier run generated for --values=values/ingress.yaml (create, ' +
        'get on ingresses.networking.k8s.io), which this run was not given: run helm-operator generate rbac ' +
        '--values=values/ingress.yaml to keep deriving it (the comment before it in config/rbac/role.yaml says so), ' +
        'or delete it there if no CR sets those values any more',
    ]);
    expect(warnings.join()).not.toContain('hand-written');
  });

  it('calls an unmarked rule hand-written, and drops default rules written for a chart that renders now', () => {
    const { kept, warnings } = keepRules(
      [{ rules: [CM] }, { origin: { fallback: 'charts/needs-values' }, rules: [INGRESS] }],
      [],
    );
    expect(kept).toEqual([{ rules: [CM] }]);
    expect(warnings[0]).toMatch(/hand-written rules belong in config\/rbac\/extra_role\.yaml/);
    expect(warnings[1]).toMatch(
      /^config\/rbac\/role\.yaml: removed the default rule an earlier run wrote for charts\/needs-values when it did not render/,
    );
  });
});
