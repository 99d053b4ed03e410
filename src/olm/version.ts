// The OLM version `helm-operator olm install` installs when --version is not given (operator-sdk pins one too), and
// the one hack/olm/build-olm.sh builds. A module of its own so that the CLI's flag parsing loads nothing else.
// Imported by cmd/olm.ts and olm/manifests.ts; holds no logic.
export const DEFAULT_OLM_VERSION = '0.31.0';
