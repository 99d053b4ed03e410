// Kubernetes resource quantities ("500m", "1Gi", "1e3", 0.5) as exact integers of nano-units, so that values the API
// server canonicalised ("1000m" -> "1", 0.5 -> "500m") still compare equal. Used by drift/compare.ts.
// Pure: BigInt arithmetic only, never floating point, never throws on bad input (it returns undefined).

/** Powers of ten of the decimal SI suffixes; "" is the plain number. */
const DECIMAL_SUFFIX: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);

/** Powers of 1024 of the binary SI suffixes. */
const BINARY_SUFFIX: ReadonlyMap<string, bigint> = new Map([
  ['Ki', 1n],
  ['Mi', 2n],
  ['Gi', 3n],
  ['Ti', 4n],
  ['Pi', 5n],
  ['Ei', 6n],
]);

/** Exponents beyond this are not treated as quantities (keeps BigInt sizes bounded on hostile input). */
const MAX_EXPONENT = 100;

const NUMBER = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/;
const EXPONENT = /^[eE]([+-]?\d+)$/;

/** Divides, rounding away from zero like Kubernetes does when it rounds a quantity up to nano precision. */
function divideUp(n: bigint, d: bigint): bigint {
  return (n + d - 1n) / d;
}

/**
 * The value of a Kubernetes quantity in nano-units (1 = 1_000_000_000n), or undefined when `value` is not a
 * quantity. Accepts strings in the Kubernetes grammar and finite numbers; sub-nano values round up, as on the server.
 */
export function parseQuantity(value: unknown): bigint | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value); // "0.5", "1e+21", "5e-7": all in the grammar below
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return undefined;
  }
  const match = NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  const mantissa = BigInt(`${whole}${fraction}` || '0');
  let pow10 = 9 - fraction.length; // to nano-units, undoing the decimal point
  let multiplier = 1n;
  const binary = BINARY_SUFFIX.get(suffix);
  const decimal = DECIMAL_SUFFIX.get(suffix);
  if (binary !== undefined) {
    multiplier = 1024n ** binary;
  } else if (decimal !== undefined) {
    pow10 += decimal;
  } else {
    const exponent = EXPONENT.exec(suffix)?.[1];
    if (exponent === undefined) return undefined;
    const e = Number(exponent);
    if (Math.abs(e) > MAX_EXPONENT) return undefined;
    pow10 += e;
  }
  const scaled = mantissa * multiplier;
  const magnitude = pow10 >= 0 ? scaled * 10n ** BigInt(pow10) : divideUp(scaled, 10n ** BigInt(-pow10));
  return sign === '-' ? -magnitude : magnitude;
}

/** True when both values are quantities of the same amount ('1Gi' and 1073741824, '500m' and 0.5). */
export function sameQuantity(a: unknown, b: unknown): boolean {
  const x = parseQuantity(a);
  return x !== undefined && x === parseQuantity(b);
}
