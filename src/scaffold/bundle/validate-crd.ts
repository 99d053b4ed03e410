// The CustomResourceDefinition checks of `bundle validate`, after operator-framework/api's CRD validator (the API
// server's own CRD validation, schema and status aside): name, group, names, scope, versions, storage version.
// Called by validate.ts; pure: takes one parsed manifest, adds lines naming the file and field, never throws.
import { isRecord } from '../../core/guards.js';
import { type Findings, isCsvName, isDns1035Label, type Manifest } from './format.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isRecord(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function checkNames(file: string, names: Obj, out: string[]) {
  const plural = str(names.plural);
  const kind = str(names.kind);
  if (!isDns1035Label(plural)) out.push(`${file}: spec.names.plural "${plural}" must be a lowercase DNS-1035 label`);
  if (names.singular !== undefined && !isDns1035Label(str(names.singular))) {
    out.push(`${file}: spec.names.singular "${str(names.singular)}" must be a lowercase DNS-1035 label`);
  }
  if (!isDns1035Label(kind.toLowerCase())) out.push(`${file}: spec.names.kind "${kind}" is required (a DNS-1035 name)`);
  const listKind = str(names.listKind);
  if (names.listKind !== undefined && !isDns1035Label(listKind.toLowerCase())) {
    out.push(`${file}: spec.names.listKind "${listKind}" must be a DNS-1035 name`);
  }
  if (listKind !== '' && listKind === kind) out.push(`${file}: spec.names.listKind must differ from spec.names.kind`);
}

function checkVersions(file: string, spec: Obj, out: string[]) {
  const versions = Array.isArray(spec.versions) ? spec.versions.map(obj) : [];
  if (versions.length === 0) {
    out.push(`${file}: spec.versions must list at least one version`);
    return;
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const name = str(v.name);
    if (!isDns1035Label(name)) out.push(`${file}: spec.versions[${i}].name "${name}" must be a DNS-1035 label`);
    if (seen.has(name)) out.push(`${file}: spec.versions[${i}].name "${name}" appears twice`);
    seen.add(name);
  });
  const storage = versions.filter((v) => v.storage === true).length;
  if (storage !== 1) {
    out.push(`${file}: spec.versions marks ${storage} versions as the storage version, want exactly 1`);
  }
}

/** Adds the CRD's problems to out.errors. */
export function checkCrd(crd: Manifest, out: Findings): void {
  const { file, object } = crd;
  const errors = out.errors;
  const spec = obj(object.spec);
  const names = obj(spec.names);
  const group = str(spec.group);
  if (!isCsvName(group) || !group.includes('.')) {
    errors.push(`${file}: spec.group "${group}" must be a DNS-1123 subdomain with at least one dot`);
  }
  const want = `${str(names.plural)}.${group}`;
  const name = str(obj(object.metadata).name);
  if (name !== want) errors.push(`${file}: metadata.name "${name}" must be spec.names.plural.spec.group = "${want}"`);
  checkNames(file, names, errors);
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    errors.push(`${file}: spec.scope ${JSON.stringify(spec.scope)} must be Namespaced or Cluster`);
  }
  checkVersions(file, spec, errors);
  const strategy = obj(spec.conversion).strategy;
  if (strategy !== undefined && strategy !== 'None' && strategy !== 'Webhook') {
    errors.push(`${file}: spec.conversion.strategy ${JSON.stringify(strategy)} must be None or Webhook`);
  }
}
