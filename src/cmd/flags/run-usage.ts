// The usage text of `helm-operator run`: a module of its own, importing nothing, so that `run --help` loads no
// part of the operator. Printed by cli.ts; the flags themselves are parsed by flags.ts (the defaults written here
// are checked against it by flags.test.ts).

export const RUN_USAGE = `Usage: helm-operator run [flags]

Flags (operator-sdk helm-operator names and defaults):
  --watches-file string              path to the watches file (default "./watches.yaml")
  --reconcile-period duration        default requeue period per CR, 0 disables (default 1m0s)
  --max-concurrent-reconciles int    reconciles in parallel per watched kind (default: number of CPUs)
  --max-uninstall-batch int          releases one helm uninstall takes when several CRs of a namespace are being
                                     deleted; 1 uninstalls each in its own helm process (default 50)
  --in-process-uninstall             uninstall a release with the operator's own API client, as helm's uninstall
                                     does, without a helm process; releases with delete hooks still run helm
                                     uninstall (default true; false: helm uninstall for every release)
  --compact-when-idle duration       one full garbage collection once no helm call has run for this long after a
                                     burst of them: the memory a burst took goes back (default 2s; 0 turns it off)
  --graceful-shutdown-timeout duration  on SIGTERM or SIGINT, how long the running reconciles (and their helm
                                     installs and upgrades) may take to finish; then helm is stopped (SIGTERM,
                                     SIGKILL 30 s later); 0 stops it at once (default 5m0s, helm's own timeout)
  --helm-binary string               helm to run (default $HELM_BINARY, else "helm" on PATH); helm >= 3.13
  --helm-openapi-validation          keep helm's client-side OpenAPI validation on install and upgrade (default
                                     false: --disable-openapi-validation; the API server validates, and its
                                     unknown-field warnings become UnknownField events)
  --zap-devel                        development logging: console encoder, debug level
  --zap-encoder json|console         log encoding (default json)
  --zap-log-level level              debug, info, error, or an integer verbosity (default info)
  --zap-stacktrace-level, --zap-time-encoding   accepted for compatibility; ignored
  --suppress-override-values         show overridden values as **** in OverrideValuesInUse events
  --status-manifest mode             what status.deployedRelease.manifest holds: full (the manifest), redacted
                                     (Secret values as sha256 digests) or none; a marker above 256 KiB
                                     (default redacted)
  --chart-rollout-max-concurrent int upgrades a changed chart (not a CR's own spec) causes per watch at once,
                                     after one canary CR succeeded; 0 upgrades all at once (default 2)
  --chart-rollout-max-failures int   failed upgrades of a chart rollout tolerated; one more halts it (default 0)
  --metrics-bind-address string      where GET /metrics is served, "0" disables (default ":8080");
                                     --metrics-addr is its older name
  --metrics-secure                   serve /metrics over HTTPS (a self-signed certificate unless
                                     --metrics-cert-path is set)
  --metrics-require-rbac             with --metrics-secure: /metrics needs "Authorization: Bearer <token>" whose
                                     user may get the non-resource URL /metrics (TokenReview + SubjectAccessReview)
  --metrics-cert-path string         directory with the metrics server's certificate and key
  --metrics-cert-name string         the certificate's file in --metrics-cert-path (default "tls.crt")
  --metrics-cert-key string          the key's file in --metrics-cert-path (default "tls.key")
  --health-probe-bind-address string where GET /healthz and /readyz are served, "0" disables (default ":8081")
  --leader-elect                     run controllers only while holding a coordination.k8s.io Lease, so that one
                                     of several replicas is active; --enable-leader-election is its older name
  --leader-election-id string        the Lease's name; required with --leader-elect (default $OPERATOR_NAME)
  --leader-election-namespace string the Lease's namespace (default: the pod's namespace when in-cluster)
  --leader-elect-lease-duration duration  how long a Lease stays valid after its last renew (default 15s)
  --leader-elect-renew-deadline duration  the holder gives up when no renew succeeded for this long (default 10s)
  --leader-elect-retry-period duration    the pause between acquire attempts and between renews (default 2s)
  --shard-count int                  split the CRs over this many shards by a hash of their uid; each replica
                                     reconciles the shards whose Lease (<leader-election-id>-shard-<i>) it holds
                                     and takes over a dead replica's shard when its Lease expires (default 1: off)
  --shard-index int                  this replica's own shard (default: the StatefulSet ordinal ending POD_NAME,
                                     else HOSTNAME)
  --kube-api-qps float               client-side limit of API requests per second; negative disables it, as
                                     controller-runtime v0.21 does (default -1: the API server's Priority and
                                     Fairness protects it); 0 means client-go's 5
  --kube-api-burst int               requests at once under --kube-api-qps; 0 means max(10, 1.5 x qps) (default 0)
Parsed for compatibility, not implemented yet (a warning is logged when set):
  --enable-http2
`;
