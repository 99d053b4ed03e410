// Converts a chart's values.schema.json (JSON Schema draft 4 to 2020-12) into a Kubernetes structural schema for the
// CRD's `spec`, so the API server validates CRs as helm would validate values. Called by crd.ts. Pure; whatever
// cannot be expressed structurally becomes `x-kubernetes-preserve-unknown-fields` on that node plus a warning, never
// an invalid CRD; objects keep undeclared keys unless `additionalProperties: false`. Defaults of values.yaml satisfy
// `required` (helm validates values merged over values.yaml).
import { isRecord } from '../../core/guards.js';
import {
  ANNOTATIONS,
  constToEnum,
  fits,
  K8S_FORMATS,
  KEYWORDS_BY_TYPE,
  PRESERVE,
  pick,
  resolvePointer,
  type SchemaProps,
  UNSUPPORTED,
  VALUE_ONLY,
} from './keywords.js';

export interface SchemaConversion {
  readonly schema: SchemaProps;
  /** One line per node that was loosened or keyword that was dropped, naming the path (`spec.image.tag`). */
  readonly warnings: string[];
}

/**
 * The structural schema for `spec` from a parsed values.schema.json. `defaults` is the parsed values.yaml: a
 * `required` property that it sets is not required of CRs (helm fills it in before validating).
 */
export function structuralSchema(valuesSchema: unknown, defaults: unknown): SchemaConversion {
  const warnings: string[] = [];
  const conv = new Converter(valuesSchema, warnings);
  let schema = conv.convert(valuesSchema, 'spec', defaults, []);
  if (schema.type !== 'object') {
    warnings.push(
      'spec: values.schema.json does not describe an object (helm values always are); spec accepts any fields',
    );
    schema = { type: 'object', [PRESERVE]: true };
  }
  return { schema, warnings };
}

class Converter {
  constructor(
    private readonly root: unknown,
    private readonly warnings: string[],
  ) {}

  private open(node: SchemaProps, path: string, why?: string): SchemaProps {
    if (why !== undefined) this.warnings.push(`${path}: ${why}; this field accepts any value`);
    return { ...pick(node, ['description']), ...(node.nullable === true ? { nullable: true } : {}), [PRESERVE]: true };
  }

  convert(node: unknown, path: string, defaults: unknown, refs: readonly string[]): SchemaProps {
    if (node === true || (isRecord(node) && isAnnotationsOnly(node))) {
      return this.open(isRecord(node) ? node : {}, path);
    }
    if (!isRecord(node)) return this.open({}, path, 'the schema is `false` or not an object');
    if (typeof node.$ref === 'string') return this.ref(node, node.$ref, path, defaults, refs);
    if (Array.isArray(node.allOf)) {
      const merged = this.mergeAllOf(node, refs);
      if (merged !== undefined) return this.convert(merged, path, defaults, refs);
    }
    for (const key of ['anyOf', 'oneOf'] as const) {
      const special = this.unionShortcut(node, key, path, defaults, refs);
      if (special !== undefined) return special;
    }
    const combinators = this.valueCombinators(node);
    if (combinators === undefined) {
      return this.open(node, path, 'allOf/anyOf/oneOf/not holding types or schemas cannot be expressed structurally');
    }
    for (const key of UNSUPPORTED) {
      if (node[key] !== undefined) this.warnings.push(`${path}: "${key}" has no structural equivalent and was dropped`);
    }
    return { ...this.typed(node, path, defaults, refs), ...combinators };
  }

  private ref(node: SchemaProps, ref: string, path: string, defaults: unknown, refs: readonly string[]): SchemaProps {
    if (refs.includes(ref)) return this.open(node, path, `$ref ${ref} is recursive`);
    const target = resolvePointer(this.root, ref);
    if (target === undefined) return this.open(node, path, `$ref ${ref} is not a local #/definitions or #/$defs ref`);
    const { $ref: _, ...siblings } = node;
    const merged = isRecord(target) ? { ...target, ...siblings } : target;
    return this.convert(merged, path, defaults, [...refs, ref]);
  }

  /** allOf folded into its parent when the branches do not disagree on any keyword; otherwise undefined. */
  private mergeAllOf(node: SchemaProps, refs: readonly string[]): SchemaProps | undefined {
    const { allOf, ...rest } = node;
    let out: SchemaProps = rest;
    for (const raw of allOf as unknown[]) {
      const branch = this.deref(raw, refs);
      if (branch === undefined) return undefined;
      const next: SchemaProps = { ...out };
      for (const [k, v] of Object.entries(branch)) {
        if (k === 'properties' && isRecord(v) && isRecord(out.properties)) {
          const props: SchemaProps = { ...out.properties };
          for (const [p, s] of Object.entries(v)) props[p] = props[p] === undefined ? s : { allOf: [props[p], s] };
          next.properties = props;
        } else if (k === 'required' && Array.isArray(v) && Array.isArray(out.required)) {
          next.required = [...new Set([...out.required, ...v])];
        } else if (out[k] === undefined || JSON.stringify(out[k]) === JSON.stringify(v)) {
          next[k] = v;
        } else if (!ANNOTATIONS.has(k)) {
          return undefined;
        }
      }
      out = next;
    }
    return out;
  }

  private deref(raw: unknown, refs: readonly string[]): SchemaProps | undefined {
    let node = raw;
    const seen = [...refs];
    while (isRecord(node) && typeof node.$ref === 'string' && Object.keys(node).length === 1) {
      if (seen.includes(node.$ref)) return undefined;
      seen.push(node.$ref);
      node = resolvePointer(this.root, node.$ref);
    }
    return isRecord(node) && node.$ref === undefined ? node : undefined;
  }

  /** `anyOf: [X, {type: null}]` → X nullable; `anyOf: [{type: integer}, {type: string}]` → int-or-string. */
  private unionShortcut(
    node: SchemaProps,
    key: 'anyOf' | 'oneOf',
    path: string,
    defaults: unknown,
    refs: readonly string[],
  ): SchemaProps | undefined {
    const branches = node[key];
    if (!Array.isArray(branches) || node.type !== undefined) return undefined;
    const { [key]: _, ...rest } = node;
    const isNull = (b: unknown) => isRecord(b) && b.type === 'null' && Object.keys(b).length === 1;
    const others = branches.filter((b) => !isNull(b));
    if (others.length === 1 && others.length < branches.length) {
      const one = this.deref(others[0], refs) ?? others[0];
      const converted = this.convert(isRecord(one) ? { ...one, ...rest } : one, path, defaults, refs);
      return { ...converted, nullable: true };
    }
    const types = branches.map((b) =>
      isRecord(b) && Object.keys(b).every((k) => k === 'type' || ANNOTATIONS.has(k)) ? b.type : undefined,
    );
    if ([...types].sort().join() === 'integer,string') {
      return { ...pick(rest, ['description']), 'x-kubernetes-int-or-string': true };
    }
    return undefined;
  }

  /** The node's combinators when they hold value validations only (allowed structurally), else undefined. */
  private valueCombinators(node: SchemaProps): SchemaProps | undefined {
    const out: SchemaProps = {};
    const valueOnly = (s: unknown): boolean =>
      isRecord(s) &&
      Object.entries(s).every(
        ([k, v]) =>
          VALUE_ONLY.has(k) &&
          (!['allOf', 'anyOf', 'oneOf', 'not'].includes(k) || (Array.isArray(v) ? v.every(valueOnly) : valueOnly(v))),
      );
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const v = node[key];
      if (v === undefined) continue;
      if (!Array.isArray(v) || !v.every(valueOnly)) return undefined;
      out[key] = v.map(constToEnum);
    }
    if (node.not !== undefined) {
      if (!valueOnly(node.not)) return undefined;
      out.not = constToEnum(node.not);
    }
    return out;
  }

  private typed(node: SchemaProps, path: string, defaults: unknown, refs: readonly string[]): SchemaProps {
    const declared = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    const nullable = declared.includes('null') || node.nullable === true;
    let types = declared.filter((t) => t !== 'null');
    // A missing type with object or array keywords is an omission in practice; anything else stays open.
    if (declared.length === 0)
      types = isRecord(node.properties) ? ['object'] : node.items !== undefined ? ['array'] : [];
    const base: SchemaProps = { ...pick(node, ['description']), ...(nullable ? { nullable: true } : {}) };
    for (const [k, v] of Object.entries(node)) if (k.startsWith('x-kubernetes-')) base[k] = v;
    if (types.length === 0) return { ...base, [PRESERVE]: true };
    if (types.length > 1) {
      if ([...types].sort().join() === 'integer,string') return { ...base, 'x-kubernetes-int-or-string': true };
      return this.open(node, path, `type ${JSON.stringify(node.type)} (a union of types) cannot be expressed`);
    }
    const type = String(types[0]);
    const out: SchemaProps = { type, ...base };
    this.scalarKeywords(node, out, type, nullable, path);
    if (type === 'array') this.array(node, out, path, refs);
    else if (type === 'object') this.object(node, out, path, defaults, refs);
    else if (!['string', 'integer', 'number', 'boolean'].includes(type)) {
      return this.open(node, path, `unknown type ${JSON.stringify(type)}`);
    }
    return out;
  }

  private scalarKeywords(node: SchemaProps, out: SchemaProps, type: string, nullable: boolean, path: string): void {
    Object.assign(out, pick(node, KEYWORDS_BY_TYPE[type] ?? []));
    for (const [excl, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      const v = node[excl];
      if (typeof v === 'boolean')
        out[excl] = v; // draft 4
      else if (typeof v === 'number') {
        // draft 6+: a number; it replaces `minimum`/`maximum` unless that bound is the stricter one.
        const other = out[bound];
        const stricter = typeof other !== 'number' || (bound === 'minimum' ? v >= other : v <= other);
        if (stricter) Object.assign(out, { [bound]: v, [excl]: true });
      }
    }
    const values = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
    if (values !== undefined) out.enum = nullable ? values : values.filter((v) => v !== null);
    if (typeof node.format === 'string') {
      if (K8S_FORMATS.has(node.format)) out.format = node.format;
      else this.warnings.push(`${path}: format "${node.format}" is not one Kubernetes validates and was dropped`);
    }
    if (node.uniqueItems === true)
      this.warnings.push(`${path}: uniqueItems is not allowed by Kubernetes and was dropped`);
    if (node.default !== undefined) {
      if (fits(node.default, type, out.enum, nullable)) out.default = node.default;
      else
        this.warnings.push(
          `${path}: default ${JSON.stringify(node.default)} was dropped (only defaults matching a scalar type and enum are kept)`,
        );
    }
  }

  private array(node: SchemaProps, out: SchemaProps, path: string, refs: readonly string[]): void {
    if (Array.isArray(node.items)) {
      this.warnings.push(`${path}: tuple "items" cannot be expressed; its items accept any value`);
      out.items = { [PRESERVE]: true };
    } else {
      out.items =
        node.items === undefined ? { [PRESERVE]: true } : this.convert(node.items, `${path}[*]`, undefined, refs);
    }
  }

  private object(node: SchemaProps, out: SchemaProps, path: string, defaults: unknown, refs: readonly string[]): void {
    const props = isRecord(node.properties) ? node.properties : undefined;
    const given = isRecord(defaults) ? defaults : {};
    if (props !== undefined) {
      const converted: SchemaProps = {};
      for (const [key, sub] of Object.entries(props))
        converted[key] = this.convert(sub, `${path}.${key}`, given[key], refs);
      out.properties = converted;
      const required = Array.isArray(node.required)
        ? node.required.filter((r): r is string => typeof r === 'string')
        : [];
      const needed = required.filter((r) => given[r] === undefined || given[r] === null);
      if (needed.length > 0) out.required = needed;
    }
    // JSON Schema accepts keys it does not declare unless additionalProperties is false: so must the CRD, or the API
    // server prunes (or, with strict field validation, rejects) values the chart accepts.
    const extra = node.additionalProperties;
    const anyKey = extra === undefined || extra === true || (isRecord(extra) && isAnnotationsOnly(extra));
    if (extra === false) {
      // Keys matching patternProperties stay allowed; structurally that can only be "any key" (dropped keyword warned).
      if (node.patternProperties !== undefined) out[PRESERVE] = true;
    } else if (anyKey || node.patternProperties !== undefined) {
      out[PRESERVE] = true;
    } else if (props === undefined) {
      out.additionalProperties = this.convert(extra, `${path}.*`, undefined, refs);
    } else {
      // A structural schema cannot hold both: keep the declared properties typed and let other keys through unchecked.
      this.warnings.push(
        `${path}: properties together with an additionalProperties schema cannot be expressed; other keys accept any value`,
      );
      out[PRESERVE] = true;
    }
  }
}

/** `{}` or a schema holding only annotations (title, description…): accepts any value, like `true`. */
function isAnnotationsOnly(node: SchemaProps): boolean {
  return Object.keys(node).every((k) => ANNOTATIONS.has(k));
}
