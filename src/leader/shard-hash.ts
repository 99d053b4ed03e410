// Which shard a custom resource belongs to: FNV-1a (32-bit) of its metadata.uid's UTF-8 bytes, modulo the shard
// count, and the name of each shard's Lease. Pure; used by the shard set (shards.ts) and the manager's shard gate.
// Never hashes anything but the uid: names can be reused, a uid cannot, so a CR never changes shard.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a, 32-bit, of `text` as UTF-8: an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME) >>> 0;
  }
  return hash >>> 0;
}

/** The shard (0 … count − 1) of the CR with this uid. Throws a RangeError for a count that is no integer ≥ 1. */
export function shardOf(uid: string, count: number): number {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`shard count must be an integer ≥ 1: ${count}`);
  return fnv1a32(uid) % count;
}

/** The Lease of shard `index`: `<leader-election-id>-shard-<index>`. */
export function shardLeaseName(id: string, index: number): string {
  return `${id}-shard-${index}`;
}
