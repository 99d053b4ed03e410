// The deployed manifest as the dependents port gets it: with this operator's ownership marks (chart label,
// ownerReference or primary-resource annotations) even when helm stored it without them (a release adopted from
// operator-sdk, adoption.ts), so that drift repair keeps those marks on the live objects and recreates a deleted one
// with them, as operator-sdk's client injects them. Called by settle.ts; one rendering per CR and revision.
import { CHART_LABEL } from '../../ownership/rules.js';
import type { HelmReconcilerOptions } from '../options.js';
import type { CustomResource } from '../types.js';

export class OwnedManifestMemo {
  readonly #mark: HelmReconcilerOptions['ownedManifest'];
  readonly #memo = new Map<string, { readonly revision: number; readonly manifest: string }>();

  constructor(mark: HelmReconcilerOptions['ownedManifest']) {
    this.#mark = mark;
  }

  /**
   * `manifest` when it carries the marks already (every manifest this operator's post-renderer wrote does) or there
   * is no post-renderer; otherwise the marked copy, made once for this revision.
   */
  async get(key: string, cr: CustomResource, revision: number, manifest: string, signal: AbortSignal) {
    if (!this.#mark || manifest.includes(`${CHART_LABEL}:`)) return manifest;
    const hit = this.#memo.get(key);
    if (hit?.revision === revision) return hit.manifest;
    const marked = await this.#mark(cr, manifest, signal);
    this.#memo.set(key, { revision, manifest: marked });
    return marked;
  }

  forget(key: string): void {
    this.#memo.delete(key);
  }
}
