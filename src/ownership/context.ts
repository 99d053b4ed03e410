// The per-call context of the post-renderer (which CR owns the release, the chart's name, the release namespace)
// as `--post-renderer-args` strings, and back. Pure; called by the reconciler (format) and the renderer (parse).
// Carries identities only: never values, which must not reach argv.
import { ConfigError } from '../core/errors.js';
import type { OwnershipContext } from './rules.js';

const FIELDS = ['owner-api-version', 'owner-kind', 'owner-namespace', 'owner-name', 'owner-uid', 'chart'] as const;
/** Written only when sharding is on: the CR's shard, which the rendered objects carry as a label. */
const SHARD = 'shard';

/** The args; an identity holding a tab or a line break (none can: they are API names) is refused. */
export function formatOwnershipArgs(ctx: OwnershipContext): string[] {
  const o = ctx.owner;
  const values = [o.apiVersion, o.kind, o.namespace, o.name, o.uid, ctx.chart];
  const fields: string[] = [...FIELDS];
  if (ctx.shard !== undefined) {
    fields.push(SHARD);
    values.push(ctx.shard);
  }
  return fields.map((f, i) => {
    const v = values[i] ?? '';
    // The post-renderer's request line separates fields by tabs and ends at its newline (fifo-script.ts).
    if (/[\t\n\r\0]/.test(v))
      throw new ConfigError(`post-render: --${f} ${JSON.stringify(v)} holds a control character`);
    return `--${f}=${v}`;
  });
}

/** Parses what formatOwnershipArgs wrote; the release namespace is the owner's (the CR's) namespace. */
export function parseOwnershipArgs(args: readonly string[]): OwnershipContext {
  const got = new Map<string, string>();
  for (const a of args) {
    const m = /^--([a-z-]+)=(.*)$/s.exec(a);
    if (!m?.[1] || !([...FIELDS, SHARD] as readonly string[]).includes(m[1])) {
      throw new ConfigError(`post-render: unexpected argument ${JSON.stringify(a)}`);
    }
    got.set(m[1], m[2] ?? '');
  }
  const need = (f: (typeof FIELDS)[number]) => {
    const v = got.get(f);
    if (!v) throw new ConfigError(`post-render: missing --${f}`);
    return v;
  };
  const owner = {
    apiVersion: need('owner-api-version'),
    kind: need('owner-kind'),
    namespace: need('owner-namespace'),
    name: need('owner-name'),
    uid: need('owner-uid'),
  };
  const shard = got.get(SHARD);
  return { owner, chart: need('chart'), releaseNamespace: owner.namespace, ...(shard ? { shard } : {}) };
}

/** The object whose post-render arguments ownershipArgsFor builds (a custom resource, as the reconciler reads it). */
export interface OwnerObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
}

/**
 * The post-renderer's arguments for each CR of a watch of `chart`: the CR owns what its release renders. With
 * `shardOf` (sharding on), the CR's shard too, so that its objects are watched by the replica holding it.
 */
export function ownershipArgsFor(
  chart: string,
  shardOf?: (cr: OwnerObject) => string | undefined,
): (cr: OwnerObject) => readonly string[] {
  return (cr) => {
    const shard = shardOf?.(cr);
    return formatOwnershipArgs({
      owner: {
        apiVersion: cr.apiVersion,
        kind: cr.kind,
        namespace: cr.metadata.namespace ?? '',
        name: cr.metadata.name,
        uid: cr.metadata.uid ?? '',
      },
      chart,
      releaseNamespace: cr.metadata.namespace ?? '',
      ...(shard === undefined ? {} : { shard }),
    });
  };
}
