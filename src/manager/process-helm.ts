// The operator's process-wide helm client, the one place its middlewares are ordered: the release-record observer
// (outermost, so that it sees every outcome, and the metrics' own time excludes nothing it does), then the
// middlewares the CLI gives (the helm metrics), then the real adapter. Built once by manager/process.ts; every
// reconcile adds its own middlewares on top (reconciler/release/reconcile-helm.ts). Pure composition.
import { chain, type HelmMiddleware } from '../helm/middleware.js';
import type { HelmClient } from '../helm/types.js';
import type { CachedReleaseReader } from '../records/cached-reader.js';
import { recordObserver } from '../records/cached-reader.js';

export interface ProcessHelmOptions {
  /** The real helm adapter. */
  readonly helm: HelmClient;
  readonly records: Pick<CachedReleaseReader, 'observe'>;
  /** The CLI's middlewares (the helm metrics), outermost first. @default none */
  readonly middlewares?: readonly HelmMiddleware[] | undefined;
}

/** The process-wide middlewares, outermost first. */
export function processMiddlewares(o: Omit<ProcessHelmOptions, 'helm'>): HelmMiddleware[] {
  return [recordObserver(o.records), ...(o.middlewares ?? [])];
}

export function processHelm(o: ProcessHelmOptions): HelmClient {
  return chain(o.helm, processMiddlewares(o));
}
