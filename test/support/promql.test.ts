// checkPromql: the PromQL check the scaffold's alert and dashboard tests rely on must really reject bad queries.
import { describe, expect, it } from 'vitest';
import { checkPromql, PromqlError } from './promql.js';

describe('checkPromql', () => {
  it('reports the metrics, labels and output labels of a valid alert expression', () => {
    const facts = checkPromql(
      'sum by (namespace, controller) (rate(controller_runtime_reconcile_errors_total{job="x"}[5m])) ' +
        '/ on (namespace, controller) sum by (namespace, controller) (rate(controller_runtime_reconcile_total[5m])) > 0.1',
    );
    expect(facts.type).toBe('vector');
    expect([...facts.metrics].sort()).toEqual([
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_total',
    ]);
    expect([...facts.labels].sort()).toEqual(['controller', 'job', 'namespace']);
    expect(facts.output).toEqual(new Set(['namespace', 'controller']));
  });

  it('keeps only the equality matchers as the labels of absent()', () => {
    expect(checkPromql('absent(helm_operator_build_info{job="a", pod=~"b.*"})').output).toEqual(new Set(['job']));
  });

  it('drops le from histogram_quantile and keeps a selector without aggregation open', () => {
    const q = checkPromql('histogram_quantile(0.9, sum by (action, le) (rate(x_bucket[5m])))');
    expect(q.output).toEqual(new Set(['action']));
    expect(checkPromql('workqueue_depth > 10').output).toBe('any');
    expect(checkPromql('sum without (pod) (workqueue_depth)').output).toBe('any');
  });

  it('reads the metric name of a __name__ matcher', () => {
    expect([...checkPromql('{__name__="workqueue_depth"}').metrics]).toEqual(['workqueue_depth']);
  });

  it.each([
    ['an unclosed call', 'rate(foo[5m]'],
    ['a by clause without parentheses', 'sum by controller (foo)'],
    ['a matcher without value', 'foo{a=}'],
    ['a dangling operator', 'foo +'],
    ['a Grafana variable left in a range', 'rate(foo[$__rate_interval])'],
    ['an unknown function', 'rates(foo[5m])'],
  ])('rejects %s as a syntax error', (_name, expr) => {
    expect(() => checkPromql(expr)).toThrow(/syntax error/);
  });

  it.each([
    ['rate of an instant vector', 'rate(foo)', /rate argument 1 must be a matrix/],
    ['an aggregation of a range', 'sum(foo[5m])', /sum argument 1 must be a vector/],
    ['sum with two arguments', 'sum(foo, bar)', /sum takes 1 argument/],
    ['histogram_quantile without its quantile', 'histogram_quantile(foo)', /takes 2 argument/],
    ['arithmetic on a range', 'foo[5m] * 2', /cannot take a matrix/],
    ['a set operator with a scalar', 'foo and 1', /needs instant vectors/],
    ['a scalar comparison without bool', '1 > 2', /needs bool/],
    ['a function outside the table', 'predict_linear(foo[5m], 60)', /not in the checker's table/],
  ])('rejects %s as a type error', (_name, expr, why) => {
    expect(() => checkPromql(expr)).toThrow(PromqlError);
    expect(() => checkPromql(expr)).toThrow(why);
  });
});
