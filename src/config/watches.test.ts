// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests feed literal ${VAR} references to the loader
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.js';
import { checkChartDir } from './chart-dir.js';
import { labelSelectorString } from './label-selector.js';
import type { Env } from './overrides.js';
import { loadWatches, parseWatches } from './watches.js';

const CWD = '/op';
const CHARTS = new Set(['/op/charts/nginx', '/op/charts/redis', '/abs/chart']);
const fakeChartDir = (path: string) => (CHARTS.has(path) ? undefined : 'it does not exist');

function load(text: string, env: Env = {}) {
  return parseWatches(text, { file: 'watches.yaml', env, cwd: CWD, checkChartDir: fakeChartDir });
}

/** The problem lines of the WATCHES_INVALID error that `text` must produce. */
function problems(text: string, env: Env = {}): string[] {
  try {
    load(text, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'WATCHES_INVALID' });
    const [header = '', ...lines] = String((err as Error).message).split('\n');
    expect(header).toMatch(/^watches file watches\.yaml is invalid \(\d+ problems?\):$/);
    return lines;
  }
  throw new Error('expected the watches file to be rejected');
}

/** A valid entry for demo.example.com/v1alpha1 Nginx, plus `extra` lines (indented by two spaces). */
function entry(extra = '', kind = 'Nginx'): string {
  return `- group: demo.example.com\n  version: v1alpha1\n  kind: ${kind}\n  chart: charts/nginx\n${extra}`;
}

const NGINX = '(demo.example.com/v1alpha1, Kind=Nginx)';

describe('parseWatches', () => {
  describe('when the file is valid', () => {
    it('returns one watch per entry, with defaults and the chart resolved against the working directory', () => {
      expect(load(entry())).toEqual({
        watches: [
          {
            group: 'demo.example.com',
            version: 'v1alpha1',
            kind: 'Nginx',
            chart: '/op/charts/nginx',
            watchDependentResources: true,
            overrideValues: {},
          },
        ],
        warnings: [],
      });
    });

    it('reads every field', () => {
      const text = entry(
        [
          '  watchDependentResources: false',
          '  reconcilePeriod: 1m30s',
          '  maxConcurrentReconciles: 4',
          '  dryRunOption: server',
          '  overrideValues: {image.tag: "1.2"}',
          '  selector: {matchLabels: {app: nginx}}',
        ].join('\n'),
      );
      expect(load(text).watches[0]).toEqual({
        group: 'demo.example.com',
        version: 'v1alpha1',
        kind: 'Nginx',
        chart: '/op/charts/nginx',
        watchDependentResources: false,
        overrideValues: { 'image.tag': '1.2' },
        selector: { matchLabels: { app: 'nginx' } },
        labelSelector: 'app=nginx',
        reconcilePeriodMs: 90_000,
        maxConcurrentReconciles: 4,
        dryRunOption: 'server',
      });
    });

    it('reads several kinds, an empty (core) group and an absolute chart path', () => {
      const text = `${entry()}\n${entry('', 'Redis').replace('charts/nginx', 'charts/redis')}\n- group: ""\n  version: v1\n  kind: Thing\n  chart: /abs/chart\n`;
      const { watches } = load(text);
      expect(watches.map((w) => [w.group, w.version, w.kind, w.chart])).toEqual([
        ['demo.example.com', 'v1alpha1', 'Nginx', '/op/charts/nginx'],
        ['demo.example.com', 'v1alpha1', 'Redis', '/op/charts/redis'],
        ['', 'v1', 'Thing', '/abs/chart'],
      ]);
    });

    it('resolves a relative chart against the working directory, not the watches file', () => {
      const seen: string[] = [];
      parseWatches(entry(), {
        file: '/etc/operator/watches.yaml',
        env: {},
        cwd: '/opt/helm',
        checkChartDir: (path) => {
          seen.push(path);
          return undefined;
        },
      });
      expect(seen).toEqual(['/opt/helm/charts/nginx']);
    });

    it('follows YAML anchors and merge keys, as go-yaml does', () => {
      const text = `- &base\n  group: demo.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: charts/nginx\n- <<: *base\n  kind: Redis\n`;
      expect(load(text).watches.map((w) => `${w.kind}:${w.chart}`)).toEqual([
        'Nginx:/op/charts/nginx',
        'Redis:/op/charts/nginx',
      ]);
    });

    it('treats reconcilePeriod "0" as "use the flag" and keeps a negative period', () => {
      expect(load(entry('  reconcilePeriod: "0"')).watches[0]).not.toHaveProperty('reconcilePeriodMs');
      expect(load(entry('  reconcilePeriod: -1s')).watches[0]?.reconcilePeriodMs).toBe(-1000);
    });

    it.each([
      ['no', false],
      ['off', false],
      ['yes', true],
      ['true', true],
      ['~', true],
    ])('reads watchDependentResources: %s as %s (YAML 1.1 booleans, like go-yaml)', (yamlValue, expected) => {
      expect(load(entry(`  watchDependentResources: ${yamlValue}`)).watches[0]?.watchDependentResources).toBe(expected);
    });
  });

  describe('overrideValues', () => {
    it('expands $VAR and ${VAR} from the given environment; an unset variable becomes ""', () => {
      const text = entry('  overrideValues:\n    image: $IMAGE\n    tag: ${TAG}-x\n    missing: $NOPE\n');
      expect(load(text, { IMAGE: 'nginx', TAG: '1.27' }).watches[0]?.overrideValues).toEqual({
        image: 'nginx',
        tag: '1.27-x',
        missing: '',
      });
    });

    it('coerces scalars to strings as sigs.k8s.io/yaml does, and warns when the text changes', () => {
      const text = entry('  overrideValues:\n    replicaCount: 3\n    tag: 1.10\n    enabled: yes\n    empty: ~\n');
      const { watches, warnings } = load(text);
      expect(watches[0]?.overrideValues).toEqual({ replicaCount: '3', tag: '1.1', enabled: 'true', empty: '' });
      expect(warnings).toEqual([
        `watches.yaml:1: entry 1 ${NGINX}: overrideValues "tag": the unquoted YAML value 1.10 becomes "1.1" (as in operator-sdk); quote it to keep the text`,
        `watches.yaml:1: entry 1 ${NGINX}: overrideValues "enabled": the unquoted YAML value yes becomes "true" (as in operator-sdk); quote it to keep the text`,
        `watches.yaml:1: entry 1 ${NGINX}: overrideValues "empty": the unquoted YAML value ~ becomes "" (as in operator-sdk); quote it to keep the text`,
      ]);
    });

    it.each([
      ['  overrideValues: [a, b]', 'overrideValues: must be a mapping such as {image.tag: "1.2"}, not a list'],
      ['  overrideValues: {image: {tag: "1"}}', 'overrideValues "image": must be a single value, not a mapping'],
      ['  overrideValues: {tags: [a]}', 'overrideValues "tags": must be a single value, not a list'],
      ['  overrideValues: {image.tag: "{{ .Values.x }}"}', 'overrideValues "image.tag": Go templates'],
      [
        '  overrideValues: {hosts: "a,b"}',
        'overrideValues "hosts": Helm\'s --set parser rejects "key=value": key "b" has no value',
      ],
      ['  overrideValues: {a: x, a.b: y}', '"a" already holds a string, so it cannot also be a map'],
    ])('rejects %j', (extra, message) => {
      const lines = problems(entry(extra));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`watches.yaml:1: entry 1 ${NGINX}: `);
      expect(lines[0]).toContain(message);
    });
  });

  describe('selector', () => {
    it.each([
      ['{matchLabels: {app: x}}', 'app=x'],
      ['{matchLabels: {b: 2, a: yes}}', 'a=true,b=2'],
      ['{matchExpressions: [{key: tier, operator: In, values: [b, a]}]}', 'tier in (a,b)'],
      ['{matchExpressions: [{key: env, operator: NotIn, values: [dev]}]}', 'env notin (dev)'],
      ['{matchExpressions: [{key: canary, operator: Exists}]}', 'canary'],
      ['{matchExpressions: [{key: legacy, operator: DoesNotExist, values: []}]}', '!legacy'],
      [
        '{matchLabels: {app: x}, matchExpressions: [{key: tier, operator: In, values: [a, b]}, {key: legacy, operator: DoesNotExist}]}',
        'app=x,!legacy,tier in (a,b)',
      ],
      [
        '{matchLabels: {example.com/tier: "", app.kubernetes.io/name: web}}',
        'app.kubernetes.io/name=web,example.com/tier=',
      ],
    ])('renders %s as the labelSelector %j', (selector, query) => {
      const watch = load(entry(`  selector: ${selector}`)).watches[0];
      expect(watch?.labelSelector).toBe(query);
      expect(watch?.selector && labelSelectorString(watch.selector)).toBe(query);
    });

    it.each(['{}', '{matchLabels: {}, matchExpressions: []}', '~'])(
      'leaves out a selector that selects everything: %s',
      (s) => {
        const watch = load(entry(`  selector: ${s}`)).watches[0];
        expect(watch).not.toHaveProperty('selector');
        expect(watch).not.toHaveProperty('labelSelector');
      },
    );

    it.each([
      ['[app]', 'selector: must be a mapping with matchLabels and/or matchExpressions, not a list'],
      ['{matchLabels: [app]}', 'selector.matchLabels: must be a mapping such as {app: nginx}, not a list'],
      ['{matchLabels: {"a b": x}}', 'selector.matchLabels: "a b" is not a valid label key'],
      [
        '{matchLabels: {Example.com/x: y}}',
        'selector.matchLabels: "Example.com/x" is not a valid label key; a prefix is a lowercase DNS subdomain followed by one "/"',
      ],
      ['{matchLabels: {app: "-bad-"}}', 'selector.matchLabels "app": "-bad-" is not a valid label value'],
      ['{matchLabels: {app: {x: 1}}}', 'selector.matchLabels "app": must be a string, not a mapping'],
      [
        '{matchExpressions: {key: a}}',
        'selector.matchExpressions: must be a list of {key, operator, values}, not a mapping',
      ],
      ['{matchExpressions: [a]}', 'selector.matchExpressions[0]: must be a mapping with key, operator and values'],
      [
        '{matchExpressions: [{key: tier, operator: in, values: [a]}]}',
        'selector.matchExpressions[0].operator: "in" is not one of In, NotIn, Exists, DoesNotExist; write "In"',
      ],
      ['{matchExpressions: [{key: tier, values: [a]}]}', 'selector.matchExpressions[0].operator: "" is not one of'],
      [
        '{matchExpressions: [{key: tier, operator: In}]}',
        'selector.matchExpressions[0].values: operator In needs at least one value',
      ],
      [
        '{matchExpressions: [{key: tier, operator: NotIn, values: []}]}',
        'selector.matchExpressions[0].values: operator NotIn needs at least one value',
      ],
      [
        '{matchExpressions: [{key: tier, operator: Exists, values: [a]}]}',
        'selector.matchExpressions[0].values: operator Exists takes no values',
      ],
      [
        '{matchExpressions: [{key: tier, operator: In, values: a}]}',
        'selector.matchExpressions[0].values: must be a list of strings such as [a, b], not the string "a"',
      ],
      [
        '{matchExpressions: [{key: tier, operator: In, values: ["a b"]}]}',
        'selector.matchExpressions[0].values[0]: "a b" is not a valid label value',
      ],
      ['{matchExpressions: [{operator: Exists}]}', 'selector.matchExpressions[0].key: "" is not a valid label key'],
    ])('rejects the selector %s', (selector, message) => {
      const lines = problems(entry(`  selector: ${selector}`));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`watches.yaml:1: entry 1 ${NGINX}: ${message}`);
    });
  });

  describe('when an entry has no kind', () => {
    it('fails naming the file, entry and field', () => {
      expect(problems('- group: demo.example.com\n  version: v1alpha1\n  chart: charts/nginx\n')).toEqual([
        'watches.yaml:1: entry 1: kind: missing; set the kind of the custom resource, e.g. "Nginx"',
      ]);
    });
  });

  describe('when an entry has no version', () => {
    it('fails naming the file, entry and field', () => {
      expect(problems('- group: demo.example.com\n  kind: Nginx\n  chart: charts/nginx\n')).toEqual([
        'watches.yaml:1: entry 1: version: missing; set the API version of the custom resource, e.g. "v1alpha1"',
      ]);
    });
  });

  describe('when a required field is misspelt (operator-sdk ignores the unknown key, so the field is missing)', () => {
    it.each([
      ['verison', 'version', 'version: missing; set the API version of the custom resource, e.g. "v1alpha1"'],
      ['knid', 'kind', 'kind: missing; set the kind of the custom resource, e.g. "Nginx"'],
      ['chrat', 'chart', 'chart: missing; set it to the chart directory, e.g. "helm-charts/nginx"'],
    ])('says "did you mean" for %s in the missing error', (typo, field, missing) => {
      const text = entry().replace(`  ${field}:`, `  ${typo}:`);
      const lines = problems(text);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(missing);
      expect(lines[0]).toMatch(new RegExp(`; the entry has "${typo}": did you mean "${field}"\\?$`));
    });

    it('adds no hint when the unknown key is far from every field', () => {
      const text = '- group: demo.example.com\n  apiVersion: v1alpha1\n  kind: Nginx\n  chart: charts/nginx\n';
      expect(problems(text)).toEqual([
        'watches.yaml:1: entry 1: version: missing; set the API version of the custom resource, e.g. "v1alpha1"',
      ]);
    });
  });

  describe('when a field has a bad value', () => {
    it.each([
      ['group: Demo.Example.com', 'group: "Demo.Example.com" is not a valid API group; use a lowercase DNS subdomain'],
      ['group: demo_example', 'group: "demo_example" is not a valid API group'],
      ['version: V1', 'version: "V1" is not a valid API version; use lowercase letters, digits and "-"'],
      ['version: 1', 'version: "1" is not a valid API version'],
      [
        'kind: nginx',
        'kind: "nginx" is not a valid kind; start it with an uppercase letter and use only letters and digits, e.g. "Nginx"',
      ],
      ['kind: My-Kind', 'kind: "My-Kind" is not a valid kind'],
      ['version: [v1]', 'version: must be a string, not a list'],
      ['chart: {path: x}', 'chart: must be a string, not a mapping'],
      [
        'chart: ""',
        'chart: missing; set it to the chart directory, e.g. "helm-charts/nginx" (relative paths resolve against the working directory /op',
      ],
      [
        'chart: charts/missing',
        'chart: "charts/missing" (/op/charts/missing) is not a Helm chart directory: it does not exist; point it at an unpacked chart',
      ],
      ['chart: /nope', 'chart: "/nope" is not a Helm chart directory: it does not exist'],
      [
        'watchDependentResources: "true"',
        'watchDependentResources: must be true or false, not the string "true"; remove the quotes',
      ],
      ['watchDependentResources: 1', 'watchDependentResources: must be true or false, not the number 1'],
      [
        'reconcilePeriod: 30',
        'reconcilePeriod: must be a duration string with a unit, e.g. "30s", not the number 30 (as in operator-sdk)',
      ],
      [
        'reconcilePeriod: 1.5',
        'reconcilePeriod: must be a duration string with a unit, e.g. "1.5s", not the number 1.5',
      ],
      ['reconcilePeriod: ~', 'reconcilePeriod: must be a duration string with a unit, not null'],
      [
        'reconcilePeriod: 4x',
        'reconcilePeriod: invalid duration "4x": unknown unit "x"; use a Go duration such as "30s"',
      ],
      ['reconcilePeriod: "30"', 'reconcilePeriod: invalid duration "30": missing unit'],
      [
        'maxConcurrentReconciles: 0',
        'maxConcurrentReconciles: must be a positive integer such as 1 or 4, not the number 0',
      ],
      [
        'maxConcurrentReconciles: -2',
        'maxConcurrentReconciles: must be a positive integer such as 1 or 4, not the number -2',
      ],
      [
        'maxConcurrentReconciles: 1.5',
        'maxConcurrentReconciles: must be a positive integer such as 1 or 4, not the number 1.5',
      ],
      [
        'maxConcurrentReconciles: "2"',
        'maxConcurrentReconciles: must be a positive integer such as 1 or 4, not the string "2"',
      ],
      ['dryRunOption: {a: 1}', 'dryRunOption: must be a string, not a mapping'],
    ])('rejects %j, naming the file, entry and field', (line, message) => {
      const field = line.split(':')[0];
      const text = `${entry().replace(new RegExp(`^  ${field}:.*$`, 'm'), '')}  ${line}\n`;
      const lines = problems(text);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^watches\.yaml:1: entry 1( \(.*\))?: /);
      expect(lines[0]).toContain(message);
    });
  });

  describe('when two entries watch the same GVK', () => {
    it('fails on the second, naming the first', () => {
      expect(problems(`${entry()}\n${entry()}`)).toEqual([
        `watches.yaml:6: entry 2 ${NGINX}: group/version/kind: duplicate GVK, entry 1 on line 1 already watches demo.example.com/v1alpha1, Kind=Nginx; keep one entry`,
      ]);
    });
  });

  describe('when the YAML or its shape is wrong', () => {
    it('reports a syntax error with its line and column', () => {
      const lines = problems('- group: demo\n  version: [v1\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^watches\.yaml:\d+:\d+: YAML syntax error: .+; fix the YAML$/);
    });

    it('reports a tab used for indentation (operator-sdk "invalid overrides" case)', () => {
      expect(problems(`${entry('  overrideValues:\n\timage: x\n')}`)[0]).toMatch(
        /^watches\.yaml:\d+:\d+: YAML syntax error/,
      );
    });

    it.each([
      ['foo: bar', 'a mapping'],
      ['just text', 'the string "just text"'],
    ])('fails when the top level is not a list: %j', (text, what) => {
      expect(problems(text)).toEqual([
        `watches.yaml:1: the top level must be a list with one entry per kind ("- group: ..."), not ${what}; put "- " before the first key of each entry`,
      ]);
    });

    it.each([
      ['- just-a-string', 'the string "just-a-string"'],
      ['- [a, b]', 'a list'],
      ['-', 'null'],
    ])('fails when an entry is not a mapping: %j', (text, what) => {
      expect(problems(text)).toEqual([
        `watches.yaml:1: entry 1: must be a mapping with group, version, kind and chart, not ${what}`,
      ]);
    });
  });

  describe('when the file has no entries', () => {
    it.each(['', '# only a comment\n', '[]'])('returns no watches and a warning for %j', (text) => {
      const { watches, warnings } = load(text);
      expect(watches).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^watches\.yaml: .*watches nothing/);
    });
  });

  describe('when keys are spelled differently', () => {
    it('matches keys case-insensitively, like operator-sdk, and suggests the canonical spelling', () => {
      const text = '- Group: demo.example.com\n  VERSION: v1alpha1\n  kind: Nginx\n  Chart: charts/nginx\n';
      const { watches, warnings } = load(text);
      expect(watches[0]?.chart).toBe('/op/charts/nginx');
      expect(warnings).toEqual([
        `watches.yaml:1: entry 1 ${NGINX}: key "Group" is read as "group" (keys are case-insensitive, as in operator-sdk); write "group"`,
        `watches.yaml:1: entry 1 ${NGINX}: key "VERSION" is read as "version" (keys are case-insensitive, as in operator-sdk); write "version"`,
        `watches.yaml:1: entry 1 ${NGINX}: key "Chart" is read as "chart" (keys are case-insensitive, as in operator-sdk); write "chart"`,
      ]);
    });

    it('applies the same rule inside a selector', () => {
      const { watches, warnings } = load(entry('  selector: {MatchLabels: {app: x}}'));
      expect(watches[0]?.labelSelector).toBe('app=x');
      expect(warnings).toEqual([
        expect.stringContaining('key "selector.MatchLabels" is read as "selector.matchLabels"'),
      ]);
    });

    it('keeps the last of two spellings of one field and says so', () => {
      const { watches, warnings } = load(`${entry()}  Chart: charts/redis\n`);
      expect(watches[0]?.chart).toBe('/op/charts/redis');
      expect(warnings).toContainEqual(
        expect.stringContaining('"chart" and "Chart" set the same field; the last one wins'),
      );
    });

    it('keeps the last of two identical keys and warns with its line', () => {
      const { watches, warnings } = load(`${entry()}  chart: charts/redis\n`);
      expect(watches[0]?.chart).toBe('/op/charts/redis');
      expect(warnings).toEqual([
        'watches.yaml:5: key "chart" appears twice in one mapping; the last one wins (as in operator-sdk); remove the other',
      ]);
    });
  });

  describe('when an entry has a key operator-sdk does not know', () => {
    it('warns naming the key, entry and file, and still loads the entry', () => {
      const { watches, warnings } = load(entry('  finalizer: x\n'));
      expect(watches).toHaveLength(1);
      expect(warnings).toEqual([
        `watches.yaml:1: entry 1 ${NGINX}: unknown key "finalizer" is ignored (operator-sdk silently ignores it); remove it or fix its spelling`,
      ]);
    });

    it.each([
      ['overrideValue', 'overrideValues'],
      ['watch_dependent_resources', 'watchDependentResources'],
      ['reconcile-period', 'reconcilePeriod'],
    ])('suggests the field %s probably meant', (key, field) => {
      expect(load(entry(`  ${key}: x\n`)).warnings).toEqual([
        expect.stringContaining(`unknown key "${key}" is ignored`),
      ]);
      expect(load(entry(`  ${key}: x\n`)).warnings[0]).toContain(`did you mean "${field}"?`);
    });

    it.each([
      ['grup', 'group'],
      ['selectr', 'selector'],
      ['dryRunOpton', 'dryRunOption'],
      ['reconcilPeriod', 'reconcilePeriod'],
    ])('suggests the field within two edits of %s', (key, field) => {
      const { watches, warnings } = load(entry(`  ${key}: x\n`));
      expect(watches).toHaveLength(1);
      expect(warnings).toEqual([
        `watches.yaml:1: entry 1 ${NGINX}: unknown key "${key}" is ignored (operator-sdk silently ignores it); did you mean "${field}"?`,
      ]);
    });

    it('suggests a selector field within two edits', () => {
      expect(load(entry('  selector: {matchLabls: {app: x}}')).warnings).toEqual([
        expect.stringContaining(
          'unknown key "selector.matchLabls" is ignored (operator-sdk silently ignores it); did you mean "selector.matchLabels"?',
        ),
      ]);
    });

    it('warns about unknown keys inside a selector expression', () => {
      const { warnings } = load(entry('  selector: {matchExpressions: [{key: a, operator: Exists, value: [x]}]}'));
      expect(warnings).toEqual([
        expect.stringContaining('unknown key "selector.matchExpressions[0].value" is ignored'),
      ]);
    });
  });

  describe('helmTimeout, a key of this operator that operator-sdk ignores', () => {
    it("reads it as helm's --timeout for the kind, and warns that operator-sdk would keep helm's 5m", () => {
      const { watches, warnings } = load(entry('  helmTimeout: 2m\n'));
      expect(watches[0]?.helmTimeoutMs).toBe(120_000);
      expect(warnings).toEqual([
        `watches.yaml:1: entry 1 ${NGINX}: helmTimeout: operator-sdk's helm-operator ignores this key, so the project behaves differently there: helm keeps its default --timeout of 5m for hooks and waits`,
      ]);
    });

    it("leaves it out when absent (helm's default 5m applies)", () => {
      expect(load(entry()).watches[0]).not.toHaveProperty('helmTimeoutMs');
    });

    it.each([
      ['helmTimeout: 90', 'helmTimeout: must be a duration string with a unit, e.g. "90s", not the number 90'],
      ['helmTimeout: "90"', 'helmTimeout: invalid duration "90": missing unit'],
      ['helmTimeout: 0s', 'helmTimeout: invalid helm timeout "0s": it must be above zero'],
      ['helmTimeout: -1m', 'helmTimeout: invalid helm timeout "-1m": it must be above zero'],
      ['helmTimeout: 48h', 'helmTimeout: invalid helm timeout "48h": it must be at most 24h'],
      ['helmTimeout: [1m]', 'helmTimeout: must be a duration string with a unit, not a list'],
    ])('rejects %j, naming the file, entry and field', (line, message) => {
      const lines = problems(entry(`  ${line}\n`));
      expect(lines).toEqual([
        expect.stringMatching(/^watches\.yaml:1: entry 1 \(demo\.example\.com\/v1alpha1, Kind=Nginx\): /),
      ]);
      expect(lines[0]).toContain(message);
      expect(lines[0]).not.toContain('(as in operator-sdk)');
    });

    it('warns the same way about maxConcurrentReconciles, the other key operator-sdk ignores', () => {
      expect(load(entry('  maxConcurrentReconciles: 4\n')).warnings).toEqual([
        `watches.yaml:1: entry 1 ${NGINX}: maxConcurrentReconciles: operator-sdk's helm-operator ignores this key, so the project behaves differently there: every kind gets --max-concurrent-reconciles workers`,
      ]);
    });
  });

  describe('when dryRunOption is not a value Helm knows', () => {
    it('warns and keeps it', () => {
      const { watches, warnings } = load(entry('  dryRunOption: Server\n'));
      expect(watches[0]?.dryRunOption).toBe('Server');
      expect(warnings[0]).toContain('dryRunOption: Helm does not know "Server"');
    });
  });

  describe('when the file holds several YAML documents', () => {
    it('reads the first and warns that the rest are ignored', () => {
      const { watches, warnings } = load(`${entry()}---\n${entry('', 'Redis')}`);
      expect(watches.map((w) => w.kind)).toEqual(['Nginx']);
      expect(warnings).toEqual(['watches.yaml: only the first of its 2 YAML documents is read (as in operator-sdk)']);
    });
  });

  describe('when several entries have problems', () => {
    it('reports all of them together, one per line, in file order', () => {
      const text = [
        '- group: demo.example.com',
        '  version: v1alpha1',
        '  kind: nginx',
        '  chart: charts/missing',
        '  reconcilePeriod: 30',
        '- version: v1',
        '  kind: Ok',
        '  chart: charts/nginx',
        '- group: x',
        '',
      ].join('\n');
      expect(() => load(text)).toThrow(/invalid \(6 problems\):\n/);
      const fieldOf = (line: string) => /^(watches\.yaml:\d+: entry \d+(?: \([^)]*\))?: \w+):/.exec(line)?.[1];
      expect(problems(text).map(fieldOf)).toEqual([
        'watches.yaml:1: entry 1 (demo.example.com/v1alpha1, Kind=nginx): kind',
        'watches.yaml:1: entry 1 (demo.example.com/v1alpha1, Kind=nginx): chart',
        'watches.yaml:1: entry 1 (demo.example.com/v1alpha1, Kind=nginx): reconcilePeriod',
        'watches.yaml:9: entry 3: version',
        'watches.yaml:9: entry 3: kind',
        'watches.yaml:9: entry 3: chart',
      ]);
    });
  });
});

describe('loadWatches', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'watches-test-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("loads the repository's own watches.yaml with its real chart", () => {
    const repo = fileURLToPath(new URL('../..', import.meta.url));
    const { watches, warnings } = loadWatches('watches.yaml', { env: {}, cwd: repo });
    expect(warnings).toEqual([]);
    expect(watches).toEqual([expect.objectContaining({ kind: 'Nginx', chart: join(repo, 'charts/nginx') })]);
  });

  it('reads through the injected readFile, with the path resolved against cwd', () => {
    const read: string[] = [];
    const readFile = (path: string) => {
      read.push(path);
      return entry();
    };
    const { watches } = loadWatches('config/watches.yaml', {
      env: {},
      cwd: CWD,
      readFile,
      checkChartDir: fakeChartDir,
    });
    expect(read).toEqual(['/op/config/watches.yaml']);
    expect(watches).toHaveLength(1);
  });

  describe('when the file cannot be read', () => {
    it('fails with WATCHES_NOT_FOUND naming the path and the --watches-file flag', () => {
      const attempt = () => loadWatches('nope.yaml', { env: {}, cwd: tmp });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(expect.objectContaining({ code: 'WATCHES_NOT_FOUND' }));
      expect(attempt).toThrow(`cannot read the watches file nope.yaml (${join(tmp, 'nope.yaml')}): it does not exist`);
      expect(attempt).toThrow('--watches-file');
    });

    it('says so when the path is a directory', () => {
      expect(() => loadWatches(tmp, { env: {}, cwd: '/' })).toThrow(
        `cannot read the watches file ${tmp}: it is a directory`,
      );
    });

    it('says so when permission is denied', () => {
      const readFile = () => {
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      };
      expect(() => loadWatches('w.yaml', { env: {}, cwd: CWD, readFile })).toThrow(
        /w\.yaml \(\/op\/w\.yaml\): permission denied/,
      );
    });
  });

  describe('with charts on a real filesystem', () => {
    const chart = (name: string, chartYaml?: string) => {
      const dir = join(tmp, name);
      mkdirSync(dir, { recursive: true });
      if (chartYaml !== undefined) writeFileSync(join(dir, 'Chart.yaml'), chartYaml);
      return dir;
    };

    it('accepts a directory whose Chart.yaml has a name, resolving the relative chart path', () => {
      chart('charts/good', 'apiVersion: v2\nname: good\nversion: 0.1.0\n');
      writeFileSync(join(tmp, 'watches.yaml'), entry().replace('charts/nginx', 'charts/good'));
      expect(loadWatches('watches.yaml', { env: {}, cwd: tmp }).watches[0]?.chart).toBe(join(tmp, 'charts/good'));
    });

    it.each([
      ['a missing directory', () => join(tmp, 'absent'), 'it does not exist'],
      ['a directory without Chart.yaml', () => chart('empty'), 'it has no Chart.yaml'],
      [
        'a Chart.yaml without a name',
        () => chart('nameless', 'apiVersion: v2\nversion: 0.1.0\n'),
        'its Chart.yaml has no "name"',
      ],
      [
        'a packed chart',
        () => {
          writeFileSync(join(tmp, 'nginx-0.1.0.tgz'), '');
          return join(tmp, 'nginx-0.1.0.tgz');
        },
        'it is a packed chart; unpack it',
      ],
      [
        'a plain file',
        () => {
          writeFileSync(join(tmp, 'plain'), '');
          return join(tmp, 'plain');
        },
        'it is a file, not a directory',
      ],
    ])('rejects %s', (_name, makePath, problem) => {
      const path = makePath();
      expect(checkChartDir(path)).toContain(problem);
      const text = entry().replace('charts/nginx', path);
      expect(() => parseWatches(text, { file: 'w.yaml', env: {}, cwd: tmp })).toThrow(
        `chart: "${path}" is not a Helm chart directory: ${problem}`,
      );
    });
  });
});
