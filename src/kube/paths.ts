// Pure URL building for the Kubernetes REST API: resource paths (collection, item, subresource), query strings,
// discovery paths and patch content types. Used by kube/rest.ts; never performs I/O or reads configuration.
// Must never build a path with an unescaped name or an empty path segment.

import { TerminalError } from '../core/errors.js';
import type { ApiResource, GroupVersionKind, PatchType } from './types.js';

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  if (version === '') throw new TerminalError('a Kubernetes API version must not be empty');
  return group === '' ? `/api/${seg(version)}` : `/apis/${seg(group)}/${seg(version)}`;
}

/** The discovery document (an APIResourceList) that lists the resources of a group/version. */
export function discoveryPath(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return groupVersionPath(gvk.group, gvk.version);
}

/** Splits `apps/v1` into { group: 'apps', version: 'v1' } and `v1` into { group: '', version: 'v1' }. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The inverse of parseApiVersion. */
export function apiVersionOf(gv: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

export interface ResourcePathParts {
  /** '' or absent means all namespaces (collections) and is required to be non-empty for namespaced items. */
  readonly namespace?: string;
  /** Absent addresses the collection. */
  readonly name?: string;
  /** e.g. `status`; needs a name. */
  readonly subresource?: string;
}

/**
 * The path of a collection, an item or an item's subresource. The namespace is ignored for cluster-scoped
 * resources (as kubectl does for cluster-scoped objects that carry one). Throws a TerminalError for an item of a
 * namespaced resource without a namespace, an empty name, or a subresource without a name.
 */
export function resourcePath(res: ApiResource, parts: ResourcePathParts = {}): string {
  const { namespace = '', name, subresource } = parts;
  let path = groupVersionPath(res.group, res.version);
  if (res.namespaced && namespace !== '') path += `/namespaces/${seg(namespace)}`;
  else if (res.namespaced && name !== undefined) {
    throw new TerminalError(`${res.kind} ${JSON.stringify(name)} is namespaced, but no namespace was given`);
  }
  path += `/${seg(res.plural)}`;
  if (name !== undefined) {
    if (name === '') throw new TerminalError(`a ${res.kind} name must not be empty`);
    path += `/${seg(name)}`;
  }
  if (subresource !== undefined) {
    if (name === undefined) throw new TerminalError(`subresource ${subresource} of ${res.plural} needs a name`);
    path += `/${seg(subresource)}`;
  }
  return path;
}

/** `?a=1&b=x` from the defined, non-empty entries (booleans and numbers stringified); '' when none remain. */
export function queryString(params: Readonly<Record<string, string | number | boolean | undefined>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === '') continue;
    search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // JSON is YAML, so an apply patch is sent as JSON with the apply content type.
  apply: 'application/apply-patch+yaml',
};

export function patchContentType(type: PatchType): string {
  return PATCH_CONTENT_TYPES[type];
}

function seg(value: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new TerminalError(`invalid Kubernetes API path segment ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}
