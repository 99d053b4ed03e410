// PromQL checking for tests: parses with Prometheus' own lezer grammar (strict, so a syntax error throws), then type
// checks the tree (range vs instant vectors, argument counts) and reports the metric names, label names and output
// labels an expression uses. The only module that imports @prometheus-io/lezer-promql. Used by the scaffold's
// alert-rule and dashboard tests; reads nothing from disk.
import { parser } from '@prometheus-io/lezer-promql';

const strict = parser.configure({ strict: true });
type Node = ReturnType<typeof parser.parse>['topNode'];
type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

export interface PromqlFacts {
  readonly type: ValueType;
  /** Metric names the selectors name (by identifier or `__name__="…"`). */
  readonly metrics: ReadonlySet<string>;
  /** Label names of matchers, and of by/without/on/ignoring/group_* clauses. */
  readonly labels: ReadonlySet<string>;
  /** The labels every result series is known to carry at most; 'any' when the selectors' own labels pass through. */
  readonly output: ReadonlySet<string> | 'any';
}

/** A function's argument types and result type. */
interface Signature {
  readonly args: readonly ValueType[];
  readonly returns: ValueType;
}
const RANGE_TO_VECTOR: Signature = { args: ['matrix'], returns: 'vector' };
/** The functions the checker knows: extend it when an expression needs another one. */
const FUNCTIONS: Readonly<Record<string, Signature>> = {
  rate: RANGE_TO_VECTOR,
  irate: RANGE_TO_VECTOR,
  increase: RANGE_TO_VECTOR,
  delta: RANGE_TO_VECTOR,
  deriv: RANGE_TO_VECTOR,
  changes: RANGE_TO_VECTOR,
  resets: RANGE_TO_VECTOR,
  avg_over_time: RANGE_TO_VECTOR,
  max_over_time: RANGE_TO_VECTOR,
  min_over_time: RANGE_TO_VECTOR,
  sum_over_time: RANGE_TO_VECTOR,
  absent_over_time: RANGE_TO_VECTOR,
  absent: { args: ['vector'], returns: 'vector' },
  abs: { args: ['vector'], returns: 'vector' },
  clamp_min: { args: ['vector', 'scalar'], returns: 'vector' },
  clamp_max: { args: ['vector', 'scalar'], returns: 'vector' },
  histogram_quantile: { args: ['scalar', 'vector'], returns: 'vector' },
  scalar: { args: ['vector'], returns: 'scalar' },
  vector: { args: ['scalar'], returns: 'vector' },
  time: { args: [], returns: 'scalar' },
};
const AGGREGATION_PARAMS: Readonly<Record<string, ValueType>> = {
  topk: 'scalar',
  bottomk: 'scalar',
  limitk: 'scalar',
  quantile: 'scalar',
  count_values: 'string',
};
const SET_OPS = new Set(['And', 'Or', 'Unless']);
const COMPARISONS = new Set(['Eql', 'Neq', 'Gtr', 'Lss', 'Gte', 'Lte']);

export class PromqlError extends Error {}

/** Parses and type checks `expr`; throws a PromqlError naming the position or the construct that is wrong. */
export function checkPromql(expr: string): PromqlFacts {
  let root: Node;
  try {
    root = strict.parse(expr).topNode;
  } catch (err) {
    throw new PromqlError(`syntax error in ${JSON.stringify(expr)}: ${(err as Error).message}`);
  }
  const metrics = new Set<string>();
  const labels = new Set<string>();
  const text = (n: Node) => expr.slice(n.from, n.to);
  const fail = (n: Node, why: string): never => {
    throw new PromqlError(`${why} at ${n.from} (${JSON.stringify(text(n))}) in ${JSON.stringify(expr)}`);
  };
  const kids = (n: Node): Node[] => {
    const out: Node[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) out.push(c);
    return out;
  };
  const grouping = (n: Node | undefined): string[] =>
    n ? kids(n).flatMap((c) => (c.name === 'GroupingLabels' ? kids(c).map(text) : [])) : [];
  const unquote = (s: string) => JSON.parse(s.startsWith("'") ? `"${s.slice(1, -1)}"` : s) as string;

  interface Typed {
    type: ValueType;
    output: Set<string> | 'any';
    /** A selector's equality matchers: absent() keeps only these labels. */
    equal?: Set<string>;
  }
  const selector = (n: Node): Typed => {
    const equal = new Set<string>();
    for (const c of kids(n)) {
      if (c.name === 'Identifier') metrics.add(text(c));
      for (const m of c.name === 'LabelMatchers' ? kids(c) : []) {
        const [name, op, value] = kids(m);
        if (!name || m.name !== 'UnquotedLabelMatcher') fail(m, 'only unquoted label matchers are checked');
        labels.add(text(name as Node));
        if (op && text(op) === '=') equal.add(text(name as Node));
        if (text(name as Node) === '__name__' && op && text(op) === '=' && value) metrics.add(unquote(text(value)));
      }
    }
    return { type: 'vector', output: 'any', equal };
  };
  const typeOf = (n: Node): Typed => {
    switch (n.name) {
      case 'PromQL':
      case 'ParenExpr':
        return typeOf(kids(n)[0] ?? fail(n, 'empty expression'));
      case 'NumberDurationLiteral':
        return { type: 'scalar', output: new Set() };
      case 'StringLiteral':
        return { type: 'string', output: new Set() };
      case 'VectorSelector':
        return selector(n);
      case 'MatrixSelector':
      case 'SubqueryExpr': {
        const inner = typeOf(kids(n)[0] ?? fail(n, 'empty range'));
        if (inner.type !== 'vector') fail(n, `a range needs an instant vector, not a ${inner.type}`);
        return { type: 'matrix', output: inner.output };
      }
      case 'OffsetExpr':
      case 'StepInvariantExpr':
        return typeOf(kids(n)[0] ?? fail(n, 'empty expression'));
      case 'UnaryExpr': {
        const inner = typeOf(kids(n)[1] ?? fail(n, 'empty expression'));
        if (inner.type !== 'scalar' && inner.type !== 'vector') fail(n, `unary minus of a ${inner.type}`);
        return inner;
      }
      case 'FunctionCall':
        return call(n);
      case 'AggregateExpr':
        return aggregate(n);
      case 'BinaryExpr':
        return binary(n);
      default:
        return fail(n, `unexpected ${n.name}`);
    }
  };
  const call = (n: Node): Typed => {
    const [id, body] = kids(n);
    const name = id ? text(id) : '';
    const sig = FUNCTIONS[name] ?? fail(n, `function ${name} is not in the checker's table`);
    const args = body ? kids(body).map((a) => ({ node: a, typed: typeOf(a) })) : [];
    if (args.length !== sig.args.length) fail(n, `${name} takes ${sig.args.length} argument(s), got ${args.length}`);
    args.forEach((a, i) => {
      if (a.typed.type !== sig.args[i]) fail(a.node, `${name} argument ${i + 1} must be a ${sig.args[i]}`);
    });
    const vectorArg = args.find((a) => a.typed.type === 'vector' || a.typed.type === 'matrix');
    if (name === 'absent') return { type: 'vector', output: new Set(vectorArg?.typed.equal) };
    const from = vectorArg?.typed.output ?? new Set<string>();
    const output =
      from === 'any' ? from : new Set([...from].filter((l) => name !== 'histogram_quantile' || l !== 'le'));
    return { type: sig.returns, output };
  };
  const aggregate = (n: Node): Typed => {
    const parts = kids(n);
    const op = text(parts[0] ?? fail(n, 'no operator'));
    const modifier = parts.find((p) => p.name === 'AggregateModifier');
    const body = parts.find((p) => p.name === 'FunctionCallBody') ?? fail(n, 'no body');
    const args = kids(body).map((a) => ({ node: a, typed: typeOf(a) }));
    const param = AGGREGATION_PARAMS[op];
    const want: ValueType[] = param ? [param, 'vector'] : ['vector'];
    if (args.length !== want.length) fail(n, `${op} takes ${want.length} argument(s), got ${args.length}`);
    args.forEach((a, i) => {
      if (a.typed.type !== want[i]) fail(a.node, `${op} argument ${i + 1} must be a ${want[i]}`);
    });
    const by = grouping(modifier);
    for (const l of by) labels.add(l);
    const without = modifier?.firstChild?.name === 'Without';
    return { type: 'vector', output: without ? 'any' : new Set(by) };
  };
  const binary = (n: Node): Typed => {
    const parts = kids(n);
    const [left, right] = [parts[0], parts.at(-1)];
    if (!left || !right || parts.length < 3) return fail(n, 'incomplete binary expression');
    const opNode = parts[1] as Node;
    const matching = parts.find((p) => p.name === 'MatchingModifierClause');
    for (const l of grouping(matching)) labels.add(l);
    const [l, r] = [typeOf(left), typeOf(right)];
    for (const [side, t] of [
      [left, l],
      [right, r],
    ] as const) {
      if (t.type !== 'scalar' && t.type !== 'vector') fail(side, `a binary operator cannot take a ${t.type}`);
    }
    if (SET_OPS.has(opNode.name) && (l.type !== 'vector' || r.type !== 'vector')) {
      fail(n, `${text(opNode)} needs instant vectors on both sides`);
    }
    const bool = parts.some((p) => p.name === 'BoolModifier');
    if (COMPARISONS.has(opNode.name) && l.type === 'scalar' && r.type === 'scalar' && !bool) {
      fail(n, 'a comparison of two scalars needs bool');
    }
    if (l.type === 'scalar' && r.type === 'scalar') return { type: 'scalar', output: new Set() };
    return { type: 'vector', output: l.type === 'vector' ? l.output : r.output };
  };

  const typed = typeOf(root);
  return { type: typed.type, metrics, labels, output: typed.output };
}
