// Type guards shared by every layer: `isRecord` is the one check for "a JSON-like mapping" (a non-null object that
// is not an array). Imported from anywhere in src/; imports nothing. Pure: never throws, never inspects prototypes
// (a caller that must reject Dates or class instances adds that check itself).

/** Whether `value` is a non-null object that is not an array, i.e. can be read as a string-keyed mapping. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
