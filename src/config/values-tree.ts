// The values tree that overrides parse into, and the prototype-safe property helpers the override parser and the
// spec merge share (a key may be "__proto__"). Called by config/strvals.ts and config/overrides.ts only.
// Pure: never mutates anything but the object it is asked to write to.
import { isRecord } from '../core/guards.js';

/** A parsed override: strings, lists (holes are null, as in Helm) and nested maps. */
export type OverrideValue = string | null | OverrideValue[] | OverrideTree;
export interface OverrideTree {
  [key: string]: OverrideValue;
}

/** An own property of `obj`, never one inherited from its prototype. */
export function own<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets a property without ever touching the prototype (a key may be "__proto__"). */
export function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function isTree(value: OverrideValue | undefined): value is OverrideTree {
  return isPlainObject(value);
}

/** A mapping whose prototype is Object.prototype or null (not an array, Date or class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
