// YAML scalar → Go string coercion, as sigs.k8s.io/yaml decodes a scalar into a Go string field (so `1.10` becomes
// "1.1"). Called by the watches loader for every field and override value it reads as text.
// Pure: never throws and never mutates its input.

/**
 * Turns a YAML scalar into the string Go would get (sigs.k8s.io/yaml target-aware conversion into a string field):
 * strings as is, booleans as "true"/"false", null as "", integers (as bigint) in decimal, and floats (as number)
 * in Go's `FormatFloat(v, 'g', -1, 32)` form, so `1.10` becomes "1.1" and `1e6` becomes "1e+06".
 * Returns undefined for anything that is not a scalar (maps, lists, dates, ...).
 */
export function yamlScalarToString(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return String(value);
    case 'undefined':
      return '';
    case 'bigint': // go-yaml keeps int64 and uint64 exact and reads anything larger as a float
      return value >= -(1n << 63n) && value < 1n << 64n ? String(value) : goFloat32String(Number(value));
    case 'number':
      return goFloat32String(value);
    default:
      return value === null ? '' : undefined;
  }
}

function goFloat32String(n: number): string {
  const f = Math.fround(n);
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  let sci = f.toExponential(8);
  for (let p = 0; p < 8; p++) {
    const candidate = f.toExponential(p);
    if (Math.fround(Number(candidate)) === f) {
      sci = candidate;
      break;
    }
  }
  const [mantissa = '', expText = '0'] = sci.split('e');
  const exp = Number(expText);
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = f < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${rest}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const point = exp + 1;
  const whole = point > 0 ? digits.slice(0, point).padEnd(point, '0') : '0';
  let fraction = '';
  for (let i = point; i < digits.length; i++) fraction += i < 0 ? '0' : digits[i];
  return `${sign}${whole}${fraction && `.${fraction}`}`;
}
