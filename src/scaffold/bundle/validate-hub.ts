// The `operatorframework` optional suite of `bundle validate` (operator-sdk's --select-optional
// suite=operatorframework): operator-framework/api's operatorhub validator's checks of the CSV's catalogue metadata
// (provider, maintainers, links, icon, capabilities, categories, version, minKubeVersion).
// Called by validate.ts; pure: takes the parsed CSV, adds lines naming the file and field, never throws.
import { isRecord } from '../../core/guards.js';
import { type Findings, isSemver, type Manifest, tolerantSemver } from './format.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isRecord(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export const CAPABILITIES = ['Basic Install', 'Seamless Upgrades', 'Full Lifecycle', 'Deep Insights', 'Auto Pilot'];
export const CATEGORIES = [
  'AI/Machine Learning',
  'Application Runtime',
  'Big Data',
  'Cloud Provider',
  'Developer Tools',
  'Database',
  'Integration & Delivery',
  'Logging & Tracing',
  'Monitoring',
  'Modernization & Migration',
  'Networking',
  'OpenShift Optional',
  'Security',
  'Storage',
  'Streaming & Messaging',
  'Observability',
];
const ICON_TYPES = ['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml'];

/** An e-mail address as Go's net/mail reads one: "name@domain", optionally "Name <name@domain>". */
const isEmail = (s: string) => /^(?:[^<>]*<)?[^\s@<>]+@[^\s@<>]+(?:>)?$/.test(s.trim());
/** A request URI as Go's url.ParseRequestURI accepts one: absolute (scheme:…) or an absolute path. */
const isRequestUri = (s: string) => /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$|^\/\S*$/.test(s);

function checkPeople(file: string, spec: Obj, errors: string[]) {
  if (str(obj(spec.provider).name).trim() === '') errors.push(`${file}: spec.provider.name is required`);
  list(spec.maintainers).forEach((m, i) => {
    if (str(m.name) === '' || str(m.email) === '') {
      errors.push(`${file}: spec.maintainers[${i}] needs both name and email`);
    }
    if (str(m.email) !== '' && !isEmail(str(m.email))) {
      errors.push(`${file}: spec.maintainers[${i}].email "${str(m.email)}" is not an e-mail address`);
    }
  });
  list(spec.links).forEach((l, i) => {
    if (str(l.name) === '' || str(l.url) === '') errors.push(`${file}: spec.links[${i}] needs both name and url`);
    if (str(l.url) !== '' && !isRequestUri(str(l.url))) {
      errors.push(`${file}: spec.links[${i}].url "${str(l.url)}" is not a URL`);
    }
  });
}

function checkIcon(file: string, spec: Obj, out: Findings) {
  if (spec.icon === undefined || spec.icon === null) {
    out.warnings.push(`${file}: spec.icon is not set (catalogues show a placeholder)`);
    return;
  }
  const icons = list(spec.icon);
  if (icons.length !== 1) out.errors.push(`${file}: spec.icon has ${icons.length} entries, want exactly 1`);
  const icon = icons[0] ?? {};
  const type = str(icon.mediatype);
  if (type === '' || str(icon.base64data) === '') {
    out.errors.push(`${file}: spec.icon[0] needs both base64data and mediatype`);
  }
  if (type !== '' && !ICON_TYPES.includes(type)) {
    out.errors.push(`${file}: spec.icon[0].mediatype "${type}" is not one of ${ICON_TYPES.join(', ')}`);
  }
}

function checkAnnotations(file: string, annotations: Obj, errors: string[]) {
  const capability = annotations.capabilities;
  if (capability !== undefined && !CAPABILITIES.includes(str(capability))) {
    errors.push(
      `${file}: metadata.annotations.capabilities "${str(capability)}" is not one of ${CAPABILITIES.join(', ')}`,
    );
  }
  if (annotations.categories !== undefined) {
    for (const c of str(annotations.categories).split(',')) {
      if (!CATEGORIES.includes(c.trim())) {
        errors.push(`${file}: metadata.annotations.categories "${c.trim()}" is not a standard category`);
      }
    }
  }
}

/** Adds the operatorhub validator's findings for the CSV. */
export function checkHub(csv: Manifest, out: Findings): void {
  const { file, object } = csv;
  const spec = obj(object.spec);
  checkPeople(file, spec, out.errors);
  checkAnnotations(file, obj(obj(object.metadata).annotations), out.errors);
  const version = tolerantSemver(str(spec.version));
  if (version === undefined || /^0\.0\.0(\+.*)?$/.test(version)) {
    out.errors.push(`${file}: spec.version must be set (a semver other than 0.0.0)`);
  }
  checkIcon(file, spec, out);
  const minKube = str(spec.minKubeVersion).trim();
  if (minKube === '') out.warnings.push(`${file}: spec.minKubeVersion is not set (any cluster version is assumed)`);
  else if (!isSemver(minKube)) out.errors.push(`${file}: spec.minKubeVersion "${minKube}" is not semver`);
}
