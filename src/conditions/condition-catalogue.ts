// Every status condition the operator writes: the catalogue of types and their reasons (operator-sdk's four and
// ours), and one constructor per type and reason, which the reconciler's status builders use instead of literals.
// test/unit/catalogues.test.ts checks docs/reference.md's conditions table against the catalogue. Pure data and
// builders; never reads the clock or a CR.

/** A reason that names a kind: `<Kind>NotReady` stands for DeploymentNotReady, JobNotReady, … */
const KIND_REASON = /^<Kind>/;

/**
 * The pod waiting reasons that name why a workload is not ready, as the Ready condition's reason. ErrImagePull (a
 * pull that just failed) reads as ImagePullBackOff (the wait before the next try): the kubelet alternates the two,
 * and the status would flip with them.
 */
export const POD_WAIT_REASONS = [
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
] as const;

export const CONDITION_CATALOGUE = {
  Initialized: { origin: 'operator-sdk', reasons: [] },
  Deployed: { origin: 'operator-sdk', reasons: ['InstallSuccessful', 'UpgradeSuccessful', 'UninstallSuccessful'] },
  ReleaseFailed: { origin: 'operator-sdk', reasons: ['InstallError', 'UpgradeError', 'UninstallError'] },
  Irreconcilable: { origin: 'operator-sdk', reasons: ['ReconcileError'] },
  Reconciling: { origin: 'ours', reasons: ['HelmStillRunning'] },
  Ready: {
    origin: 'ours',
    // Then a not-ready workload's pod waiting with one of POD_WAIT_REASONS (readiness/pods.ts finds them).
    reasons: ['AllObjectsReady', '<Kind>NotReady', '<Kind>Failed', 'StatusUnknown', ...POD_WAIT_REASONS],
  },
  Paused: { origin: 'ours', reasons: ['PausedByAnnotation'] },
  ChartRollout: { origin: 'ours', reasons: ['Waiting', 'Halted'] },
  ValuesShadowed: { origin: 'ours', reasons: ['SpecOverridesValuesFrom'] },
} as const satisfies Record<string, { origin: 'operator-sdk' | 'ours'; reasons: readonly string[] }>;

type Catalogue = typeof CONDITION_CATALOGUE;
export type CatalogueType = keyof Catalogue;
/** The reasons of one type, as written (a `<Kind>` reason stands for any kind's). */
export type ReasonOf<T extends CatalogueType> = Catalogue[T]['reasons'][number];
/** Every catalogued reason but the `<Kind>` patterns (a Ready reason naming a kind is a plain string). */
export type CatalogueReason = Exclude<ReasonOf<CatalogueType>, `<Kind>${string}`>;

/** Whether `reason` is one the catalogue lists for `type` (a `<Kind>…` entry matches any kind's). */
export function isCatalogued(type: string, reason: string | undefined): boolean {
  const entry = (CONDITION_CATALOGUE as Record<string, { reasons: readonly string[] }>)[type];
  if (entry === undefined) return false;
  if (reason === undefined) return entry.reasons.length === 0;
  return entry.reasons.some((r) =>
    KIND_REASON.test(r) ? reason.endsWith(r.replace(KIND_REASON, '')) && reason !== r : r === reason,
  );
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A condition to set (conditions.ts's ConditionInput): no lastTransitionTime, which setCondition decides. */
export interface ConditionInput {
  readonly type: CatalogueType;
  readonly status: ConditionStatus;
  /** A catalogued reason, or a Ready reason that names a kind. */
  readonly reason?: CatalogueReason | string;
  readonly message?: string;
}

/** A condition input of one known type. */
type Typed<T extends CatalogueType> = ConditionInput & { readonly type: T };

const withMessage = (message: string | undefined) => (message ? { message } : {});

/** One constructor per condition type and reason. */
export const conditions = {
  initialized: (): ConditionInput => ({ type: 'Initialized', status: 'True' }),
  deployed: (reason: 'InstallSuccessful' | 'UpgradeSuccessful', notes?: string): ConditionInput => ({
    type: 'Deployed',
    status: 'True',
    reason,
    ...withMessage(notes),
  }),
  uninstalled: (message?: string): ConditionInput => ({
    type: 'Deployed',
    status: 'False',
    reason: 'UninstallSuccessful',
    ...withMessage(message),
  }),
  releaseFailed: (reason: ReasonOf<'ReleaseFailed'>, message: string): Typed<'ReleaseFailed'> => ({
    type: 'ReleaseFailed',
    status: 'True',
    reason,
    message,
  }),
  irreconcilable: (message: string): Typed<'Irreconcilable'> => ({
    type: 'Irreconcilable',
    status: 'True',
    reason: 'ReconcileError',
    message,
  }),
  reconciling: (message: string): ConditionInput => ({
    type: 'Reconciling',
    status: 'True',
    reason: 'HelmStillRunning',
    message,
  }),
  /**
   * Ready: the reason comes from the readiness rules (AllObjectsReady, `<Kind>NotReady`, `<Kind>Failed`,
   * StatusUnknown), or is a not-ready workload's pod's waiting reason (ImagePullBackOff, ...).
   */
  ready: (state: { status: ConditionStatus; reason: string; message: string }): ConditionInput => ({
    type: 'Ready',
    ...state,
  }),
  paused: (message: string): ConditionInput => ({
    type: 'Paused',
    status: 'True',
    reason: 'PausedByAnnotation',
    message,
  }),
  chartRollout: (reason: ReasonOf<'ChartRollout'>, message: string): ConditionInput => ({
    type: 'ChartRollout',
    status: 'True',
    reason,
    message,
  }),
  /** Keys the spec sets where a values-from reference sets them too: the spec's values win (key paths, no values). */
  valuesShadowed: (message: string): ConditionInput => ({
    type: 'ValuesShadowed',
    status: 'True',
    reason: 'SpecOverridesValuesFrom',
    message,
  }),
} as const;
