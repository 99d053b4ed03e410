// The ClusterServiceVersion checks of `bundle validate`, after operator-framework/api's CSV and bundle validators:
// name/version/replaces, install strategy, installModes, owned CRDs against the CRD files, alm-examples, annotation
// names, service accounts. Called by validate.ts; pure: takes parsed manifests, adds lines naming the file and field.
import { isRecord } from '../../core/guards.js';
import { type Findings, INSTALL_MODES, isCsvName, isSemver, type Manifest, tolerantSemver } from './format.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isRecord(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Annotation keys OLM reads case-sensitively (api's CaseSensitiveAnnotationKeySet). */
const CASE_SENSITIVE = ['olm.operatorGroup', 'olm.operatorNamespace', 'olm.targetNamespaces', 'olm.providedAPIs'];
const SKIP_RANGE = 'olm.skipRange';

function checkIdentity(file: string, csv: Obj, pkg: string | undefined, out: Findings) {
  const name = String(obj(csv.metadata).name ?? '');
  const spec = obj(csv.spec);
  const version = typeof spec.version === 'string' ? spec.version : '';
  if (!isCsvName(name))
    out.errors.push(`${file}: metadata.name "${name}" is not a DNS-1123 subdomain of at most 63 characters`);
  const read = tolerantSemver(version);
  if (spec.version === undefined) out.warnings.push(`${file}: spec.version is not set`);
  else if (read === undefined) out.errors.push(`${file}: spec.version "${version}" is not semver`);
  else if (read !== version) {
    out.warnings.push(`${file}: spec.version "${version}" is not strict semver (OLM reads it as ${read})`);
  }
  if (spec.replaces !== undefined && !isCsvName(String(spec.replaces))) {
    out.errors.push(`${file}: spec.replaces "${String(spec.replaces)}" is not a DNS-1123 subdomain of at most 63`);
  }
  if (pkg !== undefined && name !== `${pkg}.v${version}`) {
    out.warnings.push(`${file}: metadata.name "${name}" should be "<package>.v<spec.version>" = "${pkg}.v${version}"`);
  }
  if (typeof spec.displayName !== 'string' || spec.displayName === '')
    out.errors.push(`${file}: spec.displayName is required`);
  if (spec.minKubeVersion === undefined || String(spec.minKubeVersion).trim() === '') {
    out.warnings.push(`${file}: spec.minKubeVersion is not set (any cluster version is assumed)`);
  } else if (!isSemver(String(spec.minKubeVersion))) {
    out.errors.push(`${file}: spec.minKubeVersion "${String(spec.minKubeVersion)}" is not semver`);
  }
}

function checkInstallModes(file: string, spec: Obj, out: string[]) {
  const modes = arr(spec.installModes).map(obj);
  if (modes.length === 0) {
    out.push(`${file}: spec.installModes is empty (list ${INSTALL_MODES.join(', ')}, each supported or not)`);
    return;
  }
  const types = modes.map((m) => String(m.type));
  for (const t of new Set(types)) {
    if (types.filter((x) => x === t).length > 1) out.push(`${file}: spec.installModes lists ${t} more than once`);
  }
  for (const t of types.filter((x) => !(INSTALL_MODES as readonly string[]).includes(x))) {
    out.push(`${file}: spec.installModes has an unknown type ${t}`);
  }
  if (!modes.some((m) => m.supported === true)) out.push(`${file}: spec.installModes supports no install mode`);
}

function checkInstall(file: string, spec: Obj, out: string[]): string[] {
  const install = obj(spec.install);
  if (install.strategy !== 'deployment') {
    out.push(`${file}: spec.install.strategy is ${JSON.stringify(install.strategy)}, want "deployment"`);
  }
  const s = obj(install.spec);
  const deployments = arr(s.deployments).map(obj);
  if (deployments.length === 0) out.push(`${file}: spec.install.spec.deployments needs at least one deployment`);
  const accounts: string[] = [];
  deployments.forEach((d, i) => {
    const pod = obj(obj(obj(d.spec).template).spec);
    if (typeof d.name !== 'string' || d.name === '')
      out.push(`${file}: spec.install.spec.deployments[${i}].name is required`);
    if (arr(pod.containers).length === 0) {
      out.push(`${file}: spec.install.spec.deployments[${i}].spec.template.spec.containers is empty`);
    }
    if (typeof pod.serviceAccountName === 'string') accounts.push(pod.serviceAccountName);
  });
  for (const field of ['permissions', 'clusterPermissions']) {
    arr(s[field])
      .map(obj)
      .forEach((p, i) => {
        if (typeof p.serviceAccountName !== 'string' || p.serviceAccountName === '') {
          out.push(`${file}: spec.install.spec.${field}[${i}].serviceAccountName is required`);
        }
        if (!Array.isArray(p.rules)) out.push(`${file}: spec.install.spec.${field}[${i}].rules must be a list`);
      });
  }
  return accounts;
}

interface Owned {
  readonly name: string;
  readonly version: string;
  readonly kind: string;
}

/** Owned CRDs and CRD files, matched both ways by group (the owned name after its first "."), version and kind. */
function checkOwnedCrds(file: string, spec: Obj, manifests: readonly Manifest[], out: string[]): Owned[] {
  const owned = arr(obj(spec.customresourcedefinitions).owned)
    .map(obj)
    .map((o) => ({ name: String(o.name ?? ''), version: String(o.version ?? ''), kind: String(o.kind ?? '') }));
  const groupOf = (name: string) => name.slice(name.indexOf('.') + 1);
  const crds = manifests.filter((m) => m.object.kind === 'CustomResourceDefinition');
  const keys = new Map<string, string>(); // group/version|kind → CRD file
  for (const c of crds) {
    const crdSpec = obj(c.object.spec);
    for (const v of arr(crdSpec.versions).map(obj)) {
      const key = `${String(crdSpec.group)}/${String(v.name)}|${String(obj(crdSpec.names).kind)}`;
      if (keys.has(key)) out.push(`${c.file}: CRD version ${key.replace('|', ' ')} appears twice in the bundle`);
      keys.set(key, c.file);
    }
  }
  const ownedKinds = new Set<string>();
  for (const o of owned) {
    const key = `${groupOf(o.name)}/${o.version}|${o.kind}`;
    if (!keys.has(key)) {
      out.push(
        `${file}: spec.customresourcedefinitions.owned ${o.name} (${o.version}, ${o.kind}): no CRD in manifests/ has group ${groupOf(o.name)}, version ${o.version} and kind ${o.kind}`,
      );
    } else ownedKinds.add(`${groupOf(o.name)}|${o.kind}`);
  }
  for (const [key, crdFile] of keys) {
    const [gv = '', kind = ''] = key.split('|');
    if (!ownedKinds.has(`${gv.slice(0, gv.lastIndexOf('/'))}|${kind}`)) {
      out.push(
        `${crdFile}: CRD ${gv} ${kind} is in the bundle but not in the CSV's spec.customresourcedefinitions.owned`,
      );
    }
  }
  return owned;
}

function checkExamples(file: string, csv: Obj, owned: readonly Owned[], out: Findings) {
  const annotations = obj(obj(csv.metadata).annotations);
  if (Object.keys(annotations).length === 0) {
    out.warnings.push(`${file}: metadata.annotations is empty (alm-examples gives users their first CR)`);
    return;
  }
  const raw = annotations['alm-examples'] ?? annotations['olm.examples'];
  if (raw === undefined) {
    out.warnings.push(`${file}: metadata.annotations has no alm-examples`);
    return;
  }
  if (annotations['alm-examples'] !== undefined && annotations['olm.examples'] !== undefined) {
    out.warnings.push(
      `${file}: metadata.annotations has both alm-examples and olm.examples; only alm-examples is read`,
    );
  }
  let examples: unknown;
  try {
    examples = String(raw).trim() === '' ? [] : JSON.parse(String(raw));
  } catch (err) {
    out.errors.push(`${file}: metadata.annotations.alm-examples is not JSON (${(err as Error).message})`);
    return;
  }
  if (!Array.isArray(examples)) {
    out.errors.push(`${file}: metadata.annotations.alm-examples must be a JSON array of custom resources`);
    return;
  }
  for (const o of owned.filter((x) => !x.name.includes('.'))) {
    out.errors.push(`${file}: spec.customresourcedefinitions.owned name "${o.name}" is not <plural>.<group>`);
  }
  const gvk = (e: Obj) => `${String(e.apiVersion)}|${String(e.kind)}`;
  const provided = new Set(owned.map((o) => `${o.name.slice(o.name.indexOf('.') + 1)}/${o.version}|${o.kind}`));
  const given = new Set(examples.map(obj).map(gvk));
  examples.map(obj).forEach((e, i) => {
    if (!provided.has(gvk(e))) {
      out.errors.push(
        `${file}: alm-examples[${i}] (${String(e.apiVersion)} ${String(e.kind)}) is not an owned CRD's kind`,
      );
    }
  });
  for (const p of provided) {
    if (!given.has(p)) out.warnings.push(`${file}: alm-examples has no example of ${p.replace('|', ' ')}`);
  }
}

function checkAnnotationNames(file: string, csv: Obj, out: Findings) {
  for (const key of Object.keys(obj(obj(csv.metadata).annotations))) {
    const known = [...CASE_SENSITIVE, SKIP_RANGE].find((k) => k.toLowerCase() === key.toLowerCase());
    if (known !== undefined && known !== key) {
      out.errors.push(`${file}: metadata.annotations key "${key}" must be spelt "${known}"`);
    }
    if (key === 'olm.properties') {
      out.warnings.push(
        `${file}: metadata.annotations.olm.properties: put these properties in metadata/properties.yaml`,
      );
    }
  }
}

export function checkCsv(csv: Manifest, manifests: readonly Manifest[], pkg: string | undefined, out: Findings): void {
  const spec = obj(csv.object.spec);
  checkIdentity(csv.file, csv.object, pkg, out);
  checkInstallModes(csv.file, spec, out.errors);
  const accounts = checkInstall(csv.file, spec, out.errors);
  const owned = checkOwnedCrds(csv.file, spec, manifests, out.errors);
  checkExamples(csv.file, csv.object, owned, out);
  checkAnnotationNames(csv.file, csv.object, out);
  for (const m of manifests.filter((x) => x.object.kind === 'ServiceAccount' && x.object.apiVersion === 'v1')) {
    const name = String(obj(m.object.metadata).name);
    if (accounts.includes(name)) {
      out.errors.push(
        `${m.file}: ServiceAccount ${name} is the one a CSV deployment runs as; OLM creates it, remove the file`,
      );
    }
  }
}
