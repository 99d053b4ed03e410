// The ClusterServiceVersion checks of validate.ts, after operator-framework/api's CSV and bundle validators:
// name/version, install strategy, installModes, owned CRDs against the CRD files, alm-examples, service accounts.
// Pure: takes parsed manifests, returns problem lines naming the file and field.
import { isRecord } from '../../core/guards.js';
import { INSTALL_MODES, isCsvName, isSemver, type Manifest } from './format.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isRecord(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function checkIdentity(file: string, csv: Obj, pkg: string | undefined, out: string[]) {
  const name = String(obj(csv.metadata).name ?? '');
  const spec = obj(csv.spec);
  const version = typeof spec.version === 'string' ? spec.version : '';
  if (!isCsvName(name))
    out.push(`${file}: metadata.name "${name}" is not a DNS-1123 subdomain of at most 63 characters`);
  if (!isSemver(version)) out.push(`${file}: spec.version "${version}" is not semver`);
  if (pkg !== undefined && name !== `${pkg}.v${version}`) {
    out.push(`${file}: metadata.name "${name}" should be "<package>.v<spec.version>" = "${pkg}.v${version}"`);
  }
  if (typeof spec.displayName !== 'string' || spec.displayName === '')
    out.push(`${file}: spec.displayName is required`);
  if (spec.minKubeVersion !== undefined && !isSemver(String(spec.minKubeVersion))) {
    out.push(`${file}: spec.minKubeVersion "${String(spec.minKubeVersion)}" is not semver`);
  }
}

function checkInstallModes(file: string, spec: Obj, out: string[]) {
  const modes = arr(spec.installModes).map(obj);
  const types = modes.map((m) => String(m.type));
  for (const t of INSTALL_MODES) {
    const n = types.filter((x) => x === t).length;
    if (n !== 1) out.push(`${file}: spec.installModes has ${n} entries of type ${t}, want 1`);
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
    accounts.push(typeof pod.serviceAccountName === 'string' ? pod.serviceAccountName : 'default');
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

function checkOwnedCrds(file: string, spec: Obj, manifests: readonly Manifest[], out: string[]): Owned[] {
  const owned = arr(obj(spec.customresourcedefinitions).owned)
    .map(obj)
    .map((o) => ({ name: String(o.name ?? ''), version: String(o.version ?? ''), kind: String(o.kind ?? '') }));
  const crds = manifests.filter((m) => m.object.kind === 'CustomResourceDefinition');
  const seen = new Set<string>();
  for (const c of crds) {
    const name = String(obj(c.object.metadata).name);
    if (seen.has(name)) out.push(`${c.file}: CRD ${name} appears twice in the bundle`);
    seen.add(name);
    if (!owned.some((o) => o.name === name)) {
      out.push(`${c.file}: CRD ${name} is in the bundle but not in the CSV's spec.customresourcedefinitions.owned`);
    }
  }
  for (const o of owned) {
    const crd = crds.find((c) => obj(c.object.metadata).name === o.name);
    const at = `${file}: spec.customresourcedefinitions.owned ${o.name} (${o.version}, ${o.kind})`;
    if (!crd) {
      out.push(`${at}: no CRD of that name in manifests/`);
      continue;
    }
    const crdSpec = obj(crd.object.spec);
    if (obj(crdSpec.names).kind !== o.kind) out.push(`${at}: the CRD's kind is ${String(obj(crdSpec.names).kind)}`);
    const version = arr(crdSpec.versions)
      .map(obj)
      .find((v) => v.name === o.version);
    if (version?.served !== true) out.push(`${at}: the CRD serves no version ${o.version}`);
  }
  return owned;
}

function checkExamples(file: string, csv: Obj, owned: readonly Owned[], out: string[]) {
  const raw = obj(obj(csv.metadata).annotations)['alm-examples'];
  if (raw === undefined) return;
  let examples: unknown;
  try {
    examples = JSON.parse(String(raw));
  } catch (err) {
    out.push(`${file}: metadata.annotations.alm-examples is not JSON (${(err as Error).message})`);
    return;
  }
  if (!Array.isArray(examples)) {
    out.push(`${file}: metadata.annotations.alm-examples must be a JSON array of custom resources`);
    return;
  }
  const provided = new Set(owned.map((o) => `${o.name.slice(o.name.indexOf('.') + 1)}/${o.version}|${o.kind}`));
  examples.map(obj).forEach((e, i) => {
    const gvk = `${String(e.apiVersion)}|${String(e.kind)}`;
    if (!provided.has(gvk)) {
      out.push(`${file}: alm-examples[${i}] (${String(e.apiVersion)} ${String(e.kind)}) is not an owned CRD's kind`);
    }
  });
}

export function checkCsv(csv: Manifest, manifests: readonly Manifest[], pkg: string | undefined): string[] {
  const out: string[] = [];
  const spec = obj(csv.object.spec);
  checkIdentity(csv.file, csv.object, pkg, out);
  checkInstallModes(csv.file, spec, out);
  const accounts = checkInstall(csv.file, spec, out);
  const owned = checkOwnedCrds(csv.file, spec, manifests, out);
  checkExamples(csv.file, csv.object, owned, out);
  for (const m of manifests.filter((x) => x.object.kind === 'ServiceAccount')) {
    const name = String(obj(m.object.metadata).name);
    if (accounts.includes(name)) {
      out.push(
        `${m.file}: ServiceAccount ${name} is the one a CSV deployment runs as; OLM creates it, remove the file`,
      );
    }
  }
  return out;
}
