// The closed set of error codes: every `code` an error of src/ can carry, each with its one-line meaning (the
// "Error codes" table of docs/reference.md lists the same codes; test/unit/error-codes.test.ts checks both). Imported
// by core/errors.ts and the error classes' modules; imports nothing. Never add a code without its docs/reference.md
// row.

/** Every error code, with what it means. */
export const ERROR_CODES = {
  CONFIG_INVALID: 'a bad flag or value; the message names it',
  WATCHES_NOT_FOUND: 'the watches file is missing',
  WATCHES_INVALID: 'the watches file has invalid entries (all are listed)',
  CRD_NOT_FOUND: 'a watched kind is not served by the API server: install its CRD',
  INFORMER_STARTED: 'programming error: an informer started twice',
  HELM_NOT_FOUND: 'no helm binary',
  HELM_UNSUPPORTED_VERSION: 'helm older than 3.13, or its version cannot be read (or is not answered within 30 s)',
  HELM_COMMAND_FAILED: 'a helm command failed; carries the command, exit code and scrubbed stderr tail',
  HELM_OUTPUT_INVALID: 'helm printed unreadable JSON',
  HELM_RELEASE_DECODE: 'a release Secret cannot be decoded',
  HELM_MANIFEST_INVALID: 'a deployed release manifest cannot be parsed',
  UNINSTALL_FAILED:
    'the in-process uninstall could not delete objects or records of a release; names each, with the API error',
  KUBE_NOT_FOUND: 'API error 404',
  KUBE_CONFLICT: 'API error 409 (a stale resourceVersion)',
  KUBE_ALREADY_EXISTS: 'API error 409 AlreadyExists',
  KUBE_FORBIDDEN: 'API error 403',
  KUBE_UNAUTHORIZED: 'API error 401',
  KUBE_GONE: 'API error 410 (a resourceVersion too old)',
  KUBE_INVALID: 'API error 422',
  KUBE_API_ERROR: 'any other API error status',
  KUBE_TRANSPORT: 'network or decoding failure talking to the API server',
  KUBE_LINE_TOO_LONG: 'a watch stream line longer than the limit',
  OWNERSHIP_INVALID: 'the post-renderer got an object without apiVersion/kind, or a chart name that is no label value',
  POST_RENDER_CALL_INVALID:
    'a post-render call the operator cannot serve: the caller is gone or not its script, or its stdin/stdout are not pipes it can open in /proc',
  OWNERSHIP_UNKNOWN_KIND: 'the chart renders a kind the API server does not serve, without a namespace to place it',
  RETRY_LATER: 'a reconcile asked to be retried after a delay',
  TERMINAL: 'a reconcile error that retrying cannot fix',
  VALUES_FROM_INVALID: 'the values-from annotation is malformed (not a list of valid references)',
  VALUES_FROM_UNRESOLVED: 'a values-from reference cannot be read or used (missing, forbidden, no such key, not YAML)',
  ADOPTION_CHECK_FAILED:
    "the dry-run upgrade that checks a release this operator did not install failed; the CR is Irreconcilable, as operator-sdk's",
  CHART_UNREADABLE:
    "a watch's chart folder is gone or cannot be read under the running operator; the CR is Irreconcilable, naming it",
  LEADER_ELECTION_LOST: 'the leader lease was not renewed within the renew deadline: the operator stops',
  UNDEPLOY_TIMEOUT: 'undeploy: custom resources were still there at the deadline',
  SCAFFOLD_EXISTS: 'init/create api would overwrite a file',
  SCAFFOLD_API_EXISTS: 'create api: the kind is already in PROJECT',
  SCAFFOLD_CHART_EXISTS: 'create api: the chart is already in helm-charts/',
  SCAFFOLD_WATCH_EXISTS: 'create api: the kind is already in watches.yaml',
  SCAFFOLD_NO_PROJECT: 'not in a project made by init',
  SCAFFOLD_INVALID_FILE: 'an unreadable PROJECT, watches.yaml, kustomization or role file',
  SCAFFOLD_INVALID_PATH: 'a path that leaves the project',
  SCAFFOLD_BAD_ARGS: 'a bad flag',
  SCAFFOLD_CHART_NOT_FOUND: 'the chart cannot be fetched',
  SCAFFOLD_CHART_INVALID: 'the chart cannot be read',
  SCAFFOLD_CHART_ARCHIVE_INVALID: 'the chart archive cannot be unpacked',
  SCAFFOLD_CHART_RENDER: "helm template fails with the chart's default values",
  SCAFFOLD_SAMPLE_REJECTED: "the derived CRD would prune or reject values of the chart's own values.yaml",
  SCAFFOLD_UNKNOWN_KIND: 'the chart renders a kind nobody knows',
  BUNDLE_INPUT_INVALID: 'generate bundle: a bad flag or object',
  BUNDLE_NO_DEPLOYMENT: 'generate bundle: no operator Deployment in the input',
  OLM_MANIFESTS_UNAVAILABLE:
    "olm: OLM's crds.yaml or olm.yaml cannot be fetched, read or parsed, or are of another version",
  OLM_ALREADY_INSTALLED: 'olm install: an object of the manifests exists already',
  OLM_NOT_INSTALLED: 'olm status/uninstall: no object of OLM is installed',
  OLM_VERSION_MISMATCH: 'olm status/uninstall: --version is not the installed version, or it cannot be told',
  OLM_TIMEOUT: 'olm: what it waits for was not done by --timeout; the message says what and how far it got',
  OLM_FAILED: "olm install: a Deployment's deadline passed or the packageserver CSV failed; run bundle: the CSV failed",
  OLM_REGISTRY_POD: 'run bundle: the registry pod cannot pull its images, render the bundles or serve them',
  OLM_RUN_BUNDLE_INVALID:
    "run bundle: the package's catalog exists already, no index image, or the install mode does not fit",
  OLM_PACKAGE_NOT_FOUND:
    'run bundle-upgrade/cleanup: no Subscription, CatalogSource or CSV of the package in the namespace',
} as const satisfies Readonly<Record<string, string>>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes a ConfigError can carry: the operator cannot start as configured. */
export type ConfigCode =
  | 'CONFIG_INVALID'
  | 'WATCHES_NOT_FOUND'
  | 'WATCHES_INVALID'
  | 'CRD_NOT_FOUND'
  | 'INFORMER_STARTED';

/** The codes of a generic ScaffoldError (the dedicated scaffold error classes carry their own). */
export type ScaffoldCode = Extract<ErrorCode, `SCAFFOLD_${string}`>;

/** The codes of a BundleError. */
export type BundleCode = Extract<ErrorCode, `BUNDLE_${string}`>;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
