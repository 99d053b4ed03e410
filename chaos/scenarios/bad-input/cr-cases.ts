// Bad-input cases about a CR itself: its spec, its name, its values, its size and its annotations (values-from
// included), each with the condition or event the docs (docs/*.md) document. A table for index.ts;
// every CR lives in the scenario's namespace, and nothing here touches the canary or another case's objects.
import { randomBytes } from 'node:crypto';
import {
  annotationCase,
  type BadCase,
  conditionCase,
  expectCondition,
  expectWithin,
  Missed,
  showCondition,
} from './case.ts';
import { cell, eventsOf, kindRef, NGINX, objects } from './kube.ts';

const LOOSE = 'Loose';
const VALUES_FROM = 'helm.sdk.operatorframework.io/values-from';
/** A value read from a Secret (values-from) that the API server rejects, so that helm's error would quote it. */
const SECRET_TEXT = 'Bogus-s3cr3t-Zq9xW4';

const irreconcilable = (match: RegExp) => ({ type: 'Irreconcilable', reason: 'ReconcileError', match }) as const;
const installFailed = (match: RegExp) => ({ type: 'ReleaseFailed', reason: 'InstallError', match }) as const;

export function crCases(): BadCase[] {
  return [
    conditionCase({
      name: 'spec is a string',
      bar: 'Irreconcilable/ReconcileError "spec must be an object"',
      short: true,
      kind: LOOSE,
      ref: kindRef(LOOSE),
      cr: 'spec-string',
      spec: 'just a string',
      expect: irreconcilable(/spec must be an object/),
    }),
    conditionCase({
      name: 'spec is a list',
      bar: 'Irreconcilable/ReconcileError "spec must be an object"',
      kind: LOOSE,
      ref: kindRef(LOOSE),
      cr: 'spec-list',
      spec: [1, 2, 3],
      expect: irreconcilable(/spec must be an object/),
    }),
    conditionCase({
      name: 'name of 54 characters',
      bar: 'Irreconcilable/ReconcileError "54 characters … at most 53"',
      short: true,
      cr: `n${'4'.repeat(52)}n`,
      spec: {},
      expect: irreconcilable(/is 54 characters; Helm allows at most 53/),
    }),
    conditionCase({
      name: 'values that break the template (image: a string)',
      bar: 'ReleaseFailed/InstallError (a first install, as operator-sdk), helm\'s "can\'t evaluate field"',
      short: true,
      cr: 'breaks-template',
      spec: { image: 'nginx:1.27' },
      expect: installFailed(/can't evaluate field repository/),
    }),
    conditionCase({
      name: 'value of the wrong type (replicaCount: "many")',
      bar: 'ReleaseFailed/InstallError naming spec.replicas',
      cr: 'wrong-type',
      spec: { replicaCount: 'many' },
      expect: installFailed(/cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas/),
    }),
    conditionCase({
      name: 'value out of range (replicaCount: -3)',
      bar: 'ReleaseFailed/InstallError "spec.replicas: Invalid value"',
      cr: 'negative-replicas',
      spec: { replicaCount: -3 },
      expect: installFailed(/spec\.replicas: Invalid value: -3/),
    }),
    bigSpec(),
    annotationCase({ key: 'reconcile-period', value: 'abc', cr: 'period-abc', short: true }),
    annotationCase({ key: 'reconcile-period', value: '-5m', cr: 'period-negative' }),
    annotationCase({ key: 'helm-timeout', value: '-1s', cr: 'timeout-negative' }),
    annotationCase({ key: 'helm-timeout', value: '48h', cr: 'timeout-48h' }),
    annotationCase({ key: 'upgrade-force', value: 'maybe', cr: 'force-maybe' }),
    annotationCase({ key: 'paused', value: 'perhaps', cr: 'paused-perhaps' }),
    conditionCase({
      name: 'values-from not YAML',
      bar: 'Irreconcilable/ReconcileError "values-from is not valid YAML"',
      short: true,
      cr: 'values-from-yaml',
      spec: {},
      annotations: { [VALUES_FROM]: '- kind: ConfigMap\n  name: [unclosed' },
      expect: irreconcilable(/values-from is not valid YAML or JSON/),
    }),
    conditionCase({
      name: 'values-from of kind Pod',
      bar: 'Irreconcilable/ReconcileError "kind must be ConfigMap or Secret"',
      cr: 'values-from-pod',
      spec: {},
      annotations: { [VALUES_FROM]: '- kind: Pod\n  name: web' },
      expect: irreconcilable(/kind must be ConfigMap or Secret/),
    }),
    conditionCase({
      name: 'values-from a missing Secret',
      bar: 'Irreconcilable/ReconcileError "… not found … nothing was installed"',
      cr: 'values-from-missing',
      spec: {},
      annotations: { [VALUES_FROM]: '- kind: Secret\n  name: absent-values' },
      expect: irreconcilable(/absent-values not found(?=.*nothing was installed or changed)/),
    }),
    secretValueRejected(),
  ];
}

/** A 1 MiB spec of random text: the API server may refuse it; if not, the release record is too large for etcd. */
function bigSpec(): BadCase {
  return {
    name: '1 MiB spec (random text)',
    bar: 'API server refuses it, or Deployed / ReleaseFailed naming the size',
    async run(e) {
      const blob = randomBytes(786_432).toString('base64'); // 1 MiB of text that does not compress
      try {
        await objects(e.k, NGINX, e.ns).create('big-spec', { blob });
      } catch (err) {
        const body = (err as { body?: unknown }).body;
        return cell(`API server refused it: ${typeof body === 'string' ? body : String(err)}`, 90);
      }
      const crs = objects(e.k, NGINX, e.ns);
      return expectWithin(e, 90_000, async () => {
        const [deployed, failed] = await Promise.all([
          crs.condition('big-spec', 'Deployed'),
          crs.condition('big-spec', 'ReleaseFailed'),
        ]);
        if (deployed?.status === 'True') return { ok: true, seen: 'accepted; Deployed' };
        const m =
          failed?.status === 'True'
            ? /(?<=Secret "sh\.helm\.release\.v1\.big-spec\.v1" is invalid: data: )Too long: [^;]*/.exec(
                failed.message ?? '',
              )
            : null;
        return m
          ? { ok: true, seen: `accepted; ReleaseFailed/${failed?.reason}: release Secret "${m[0]}"` }
          : { ok: false, seen: showCondition(failed ?? deployed) };
      });
    },
  };
}

/** A value from a Secret that the API server quotes in its refusal: helm's error must show it as `<redacted>`. */
function secretValueRejected(): BadCase {
  const cr = 'secret-service-type';
  return {
    name: 'values-from Secret value the API server rejects',
    bar: 'ReleaseFailed/InstallError, the value <redacted> everywhere',
    async run(e) {
      await e.k.core.createNamespacedSecret({
        namespace: e.ns,
        body: { metadata: { name: 'service-type' }, stringData: { type: SECRET_TEXT } },
      });
      const ref = '- kind: Secret\n  name: service-type\n  valuesKey: type\n  targetPath: service.type';
      await objects(e.k, NGINX, e.ns).create(cr, {}, { [VALUES_FROM]: ref });
      const seen = await expectCondition(e, NGINX, cr, installFailed(/Unsupported value: "<redacted>"/));
      const events = (await eventsOf(e.k, e.ns, cr)).map((x) => x.message).join('\n');
      const status = JSON.stringify((await objects(e.k, NGINX, e.ns).get(cr))?.status ?? {});
      const leaks = [
        ['status', status],
        ['events', events],
        ['operator log', e.op.output()],
      ].filter(([, text]) => text?.includes(SECRET_TEXT));
      if (leaks.length > 0) throw new Missed(`the Secret's value is printed in ${leaks.map(([w]) => w).join(', ')}`);
      return `${seen}; not in status, events or log`;
    },
  };
}
