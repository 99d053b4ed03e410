// Errors of `helm-operator create api` and `generate rbac`: bad flags, an existing API, a chart that cannot be
// imported or rendered, a rendered kind nobody knows, a CRD that would not keep the chart's defaults. Thrown by
// src/scaffold/{api,chart,tar,rbac,rbac-rules,kube-version}.ts; callers match on `code`. Messages name the flag,
// file, template or schema construct at fault and say what to do; they never quote chart values.
import type { ScaffoldCode } from '../core/codes.js';
import { OperatorError } from '../core/errors.js';

/** A generic scaffolding failure with a stable code (bad flag, unreadable Chart.yaml, file conflict...). */
export class ScaffoldError extends OperatorError {
  readonly code: ScaffoldCode;
  constructor(message: string, code: ScaffoldCode, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** operator-sdk's `the API resource already exists`: the group/version/kind is in PROJECT and --force was not given. */
export class ApiExistsError extends OperatorError {
  readonly code = 'SCAFFOLD_API_EXISTS';
  constructor(readonly gvk: string) {
    super(
      `the API resource already exists: ${gvk}; pass --force to scaffold it again (its generated files are ` +
        'overwritten and config/rbac/role.yaml is regenerated from watches.yaml)',
    );
  }
}

/** A chart archive (.tgz) that is not a gzip'd tar, or holds an entry that would escape its directory. */
export class ChartArchiveError extends OperatorError {
  readonly code = 'SCAFFOLD_CHART_ARCHIVE_INVALID';
  constructor(
    readonly archive: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot unpack chart archive ${archive}: ${reason}`, options);
  }
}

/** A kind the chart renders, with the template that renders it. */
export interface UnknownKind {
  readonly apiVersion: string;
  readonly kind: string;
  /** The chart template (helm's `# Source:` comment), when known. */
  readonly source: string | undefined;
}

/**
 * The chart renders kinds that are not standard Kubernetes kinds, not defined by a CRD of the chart, and (when a
 * cluster was reachable) not served by it. Rules are never guessed for them.
 */
export class UnknownKindError extends OperatorError {
  readonly code = 'SCAFFOLD_UNKNOWN_KIND';
  constructor(
    readonly chart: string,
    readonly kinds: readonly UnknownKind[],
    readonly clusterChecked: boolean,
  ) {
    const list = kinds
      .map((k) => `${k.apiVersion} ${k.kind}${k.source === undefined ? '' : ` (rendered by ${k.source})`}`)
      .join('; ');
    const where = clusterChecked
      ? 'neither a standard Kubernetes kind, nor defined by a CRD in the chart, nor served by the cluster'
      : 'neither a standard Kubernetes kind nor defined by a CRD in the chart, and no cluster was reachable to ask';
    super(
      `cannot derive RBAC rules for chart ${chart}: ${list}: ${where}. Install the kind's CRD in the cluster and ` +
        "re-run with KUBECONFIG pointing at it, or put the CRD in the chart's crds/ directory; no broad rule is written instead",
    );
  }
}

/** A field of the sample CR that the generated CRD would prune, reject or replace (see sample-check.ts). */
export interface RejectedSampleField {
  readonly path: string;
  readonly kind: 'pruned' | 'rejected' | 'replaced';
  readonly why: string;
}

/**
 * The CRD generated from the chart's values.schema.json would not keep the chart's own defaults (the sample CR,
 * whose spec is values.yaml): create api stops before writing any project file.
 */
export class SampleRejectedError extends OperatorError {
  readonly code = 'SCAFFOLD_SAMPLE_REJECTED';
  constructor(
    readonly chart: string,
    readonly fields: readonly RejectedSampleField[],
  ) {
    const shown = fields.slice(0, 20).map((f) => `\n  ${f.path}: ${f.kind}: ${f.why}`);
    const more = fields.length > 20 ? `\n  … and ${fields.length - 20} more` : '';
    super(
      `the CRD derived from ${chart}/values.schema.json would not keep the chart's own default values (the sample ` +
        `CR's spec is ${chart}/values.yaml):${shown.join('')}${more}\nMake values.schema.json and values.yaml agree ` +
        '(helm validates the defaults against the schema too), then run create api again; no project file was changed',
    );
  }
}
