// A Map used as a least-recently-used cache: its insertion order is the order of use, oldest first. Used by the
// event correlator and the drift repairer's parsed manifests. Pure Map operations; never reads a clock.

/** Reads an entry and marks it most recently used. */
export function touch<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

/** Stores an entry as most recently used, evicting the least recently used beyond `max`. */
export function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done === true) break;
    map.delete(oldest.value);
  }
}
