// The Informer's public contract: its handlers, the diagnostics it emits, and its options with their defaults and
// why they are what they are. Types only: cache/informer.ts implements them, and its callers (event handlers, the
// values-from watch) import them from here, which keeps one import path per type.

import type { Clock } from '../core/clock.js';
import type { ApiResource, KubeClient, KubeObject } from '../kube/types.js';
import type { InformerCensus } from './census.js';
import type { WatchEndReason } from './watch-end.js';

export interface InformerHandler {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

/** What the informer is doing, for logs and metrics. */
export type InformerEvent =
  | { readonly type: 'list'; readonly resourceVersion: string; readonly items: number; readonly pages: number }
  | { readonly type: 'relist'; readonly reason: 'gone' }
  | { readonly type: 'watch-start'; readonly resourceVersion: string; readonly timeoutSeconds: number }
  | {
      readonly type: 'watch-end';
      readonly reason: WatchEndReason;
      readonly resourceVersion: string;
      readonly events: number;
      readonly durationMs: number;
    }
  | { readonly type: 'bookmark'; readonly resourceVersion: string }
  | {
      readonly type: 'error';
      readonly phase: 'list' | 'watch' | 'handler';
      readonly error: unknown;
      /** When the informer tries again (absent for handler errors, which do not interrupt it). */
      readonly retryInMs?: number;
    };

export interface InformerOptions {
  readonly client: Pick<KubeClient, 'list' | 'watch'>;
  readonly resource: ApiResource;
  /** '' watches all namespaces (and is the only value for cluster-scoped resources). @default '' */
  readonly namespace?: string;
  /** Server-side label selector: non-matching objects are never transferred or stored. @default none */
  readonly labelSelector?: string;
  /** @default none */
  readonly fieldSelector?: string;
  /** LIST page size. @default 500 */
  readonly pageSize?: number;
  /**
   * Server-side watch timeout, randomised ±10% per watch (as client-go's 5–10 min) so that many informers do
   * not reconnect in lockstep. Ending and resuming a watch is cheap (no relist), and a bounded watch also
   * bounds how long a half-dead connection that still passes keep-alives can hide. @default 480 (8 min)
   */
  readonly watchTimeoutSeconds?: number;
  /**
   * Abort and resume a watch that delivered nothing (bookmarks included) for this long. With bookmarks the API
   * server sends something about once a minute, so silence this long means a stalled connection (client-node
   * #364/#596). 150 s, 2.5 bookmark intervals: a connection a middlebox silently dropped (chaos/scenarios/network/hole.ts)
   * left the operator blind for 271 s after a 30 s outage with the earlier 5 min. @default 150_000
   */
  readonly inactivityTimeoutMs?: number;
  /** First retry delay after an error; doubles per consecutive error. @default 1_000 */
  readonly backoffBaseMs?: number;
  /**
   * Retry delay cap. 10 s, not client-go's 30 s: a watch retried against an API server that is away costs it
   * nothing, one that answers 429/5xx is protected by Priority and Fairness, and after a restart of the API server
   * (chaos/scenarios/restarts/index.ts) a 30 s cap alone could spend a 30 s recovery budget. @default 10_000
   */
  readonly backoffMaxMs?: number;
  /** @default realClock */
  readonly clock?: Clock;
  /** Source of jitter in [0, 1); tests pass () => 0.5 for none. @default Math.random */
  readonly random?: () => number;
  /** Where the informer counts its store and the watch events it receives, by kind. @default processCensus */
  readonly census?: InformerCensus;
  /** Observes the informer (throws are ignored). @default none */
  readonly onEvent?: (event: InformerEvent) => void;
}
