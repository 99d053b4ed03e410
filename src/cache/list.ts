// A paginated LIST of one resource in one namespace scope: follows `continue` tokens until the last page and
// returns every item with the list's resourceVersion. Called by the Informer (cache/informer.ts) for each (re)list.
// Never touches a store and never retries: the informer decides what a failure means.
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';

export interface ListAllOptions {
  readonly client: Pick<KubeClient, 'list'>;
  readonly resource: ApiResource;
  /** '' lists all namespaces. */
  readonly namespace: string;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  readonly pageSize: number;
  readonly signal: AbortSignal;
}

export interface Listed {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly pages: number;
}

export async function listAll(o: ListAllOptions): Promise<Listed> {
  const { client, resource, namespace, labelSelector, fieldSelector, pageSize, signal } = o;
  const items: KubeObject[] = [];
  let resourceVersion = '';
  let pages = 0;
  let next: string | undefined;
  do {
    const page = await client.list(resource, {
      signal,
      namespace,
      limit: pageSize,
      ...(labelSelector === undefined ? {} : { labelSelector }),
      ...(fieldSelector === undefined ? {} : { fieldSelector }),
      ...(next === undefined ? {} : { continue: next }),
    });
    for (const item of page.items) items.push(item);
    resourceVersion = page.resourceVersion;
    next = page.continue;
    pages++;
  } while (next !== undefined);
  return { items, resourceVersion, pages };
}
