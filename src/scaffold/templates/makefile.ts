// The project's Makefile: operator-sdk's variables and targets, with kubectl's built-in kustomize instead of a
// downloaded kustomize, and helm-operator for run, undeploy, bundle, cleanup, RBAC generation and packing itself into
// the image (installed into bin/ with npm by `make helm-operator` when it is neither there nor on PATH).
// Called by src/scaffold/init/init.ts. Pure text; never names a download site.
import { VERSION } from '../../version.js';
import type { ScaffoldContext } from './context.js';
import { BASE_IMAGES, IMAGE_PACKAGE_DIR } from './dockerfile.js';

/** Every target, in the order of the Makefile (the ones `make help` lists, plus `all`). */
export const MAKE_TARGETS = [
  'all',
  'help',
  'run',
  'docker-build',
  'docker-push',
  'install',
  'uninstall',
  'deploy',
  'undeploy',
  'cleanup',
  'generate-rbac',
  'helm-operator',
  'bundle',
  'bundle-build',
  'bundle-push',
  'opm',
  'catalog-build',
  'catalog-push',
] as const;

// Recipe lines start with a tab: written as \t so that editors and formatters cannot turn it into spaces.
export function makefile({ projectName }: ScaffoldContext): string {
  return `# VERSION defines the project version for the bundle.
# Update this value when you upgrade the version of your project.
# To re-generate a bundle for another specific version without changing the standard setup, you can:
# - use the VERSION as arg of the bundle target (e.g make bundle VERSION=0.0.2)
# - use environment variables to overwrite this value (e.g export VERSION=0.0.2)
VERSION ?= 0.0.1

# CHANNELS define the bundle channels used in the bundle.
# To re-generate a bundle for other specific channels without changing the standard setup, you can:
# - use the CHANNELS as arg of the bundle target (e.g make bundle CHANNELS=candidate,fast,stable)
# - use environment variables to overwrite this value (e.g export CHANNELS="candidate,fast,stable")
ifneq ($(origin CHANNELS), undefined)
BUNDLE_CHANNELS := --channels=$(CHANNELS)
endif

# DEFAULT_CHANNEL defines the default channel used in the bundle.
# To re-generate a bundle for any other default channel without changing the default setup, you can:
# - use the DEFAULT_CHANNEL as arg of the bundle target (e.g make bundle DEFAULT_CHANNEL=stable)
# - use environment variables to overwrite this value (e.g export DEFAULT_CHANNEL="stable")
ifneq ($(origin DEFAULT_CHANNEL), undefined)
BUNDLE_DEFAULT_CHANNEL := --default-channel=$(DEFAULT_CHANNEL)
endif
BUNDLE_METADATA_OPTS ?= $(BUNDLE_CHANNELS) $(BUNDLE_DEFAULT_CHANNEL)

# Image URL to use all building/pushing image targets
IMG ?= controller:latest

# IMAGE_TAG_BASE defines the registry namespace and part of the image name for remote images: IMG's repository
# (IMG without its tag and digest; a ":" before the last "/" belongs to a registry host), so that
# "make docker-build docker-push bundle bundle-build bundle-push IMG=host:5000/team/${projectName}:v0.0.1" builds and
# pushes host:5000/team/${projectName}-bundle:v$(VERSION) with no other variable set.
#
# For example, running 'make bundle-build bundle-push catalog-build catalog-push' will build and push both
# $(IMAGE_TAG_BASE)-bundle:v$(VERSION) and $(IMAGE_TAG_BASE)-catalog:v$(VERSION).
IMG_NAME = $(firstword $(subst @, ,$(IMG)))
IMG_LAST = $(lastword $(subst /, ,$(IMG_NAME)))
IMAGE_TAG_BASE ?= $(patsubst %$(IMG_LAST),%$(firstword $(subst :, ,$(IMG_LAST))),$(IMG_NAME))

# BUNDLE_IMG defines the image:tag used for the bundle.
# You can use it as an arg. (E.g make bundle-build BUNDLE_IMG=<some-registry>/<project-name-bundle>:<tag>)
BUNDLE_IMG ?= $(IMAGE_TAG_BASE)-bundle:v$(VERSION)

# The OLM package: the bundle's package name (PROJECT's projectName) and the catalog's default channel.
PACKAGE_NAME ?= ${projectName}
CATALOG_CHANNELS = $(subst $(COMMA), ,$(or $(CHANNELS),alpha))
CATALOG_DEFAULT_CHANNEL = $(or $(DEFAULT_CHANNEL),$(firstword $(CATALOG_CHANNELS)))
COMMA := ,

# CONTAINER_TOOL defines the container tool to be used for building images.
# Be aware that the target commands are only tested with Docker which is
# scaffolded by default. However, you might want to replace it to use other
# tools. (i.e. podman)
CONTAINER_TOOL ?= docker
# CONTAINER_BUILD_FLAGS: extra flags for "$(CONTAINER_TOOL) build", e.g. --build-arg GO_IMAGE=<mirror>/${BASE_IMAGES.GO_IMAGE}
# (also NODE_IMAGE, DEBIAN_IMAGE) where you mirror the Dockerfile's base images. The build's RUN steps fetch helm's Go
# modules and the CLI's npm dependencies: with podman or buildah, "--network=host" lets them reach the network as the
# host does (proxy, DNS), and a host that refuses the default runtime or ulimits needs e.g. "--runtime runc" or
# "--ulimit nofile=N:N".
CONTAINER_BUILD_FLAGS ?=
KUBECTL ?= kubectl
# HELM_OPERATOR: the helm-operator CLI the targets run: bin/helm-operator when there is one, else helm-operator on
# PATH (e.g. installed with "npm install -g ./helm-operator-ts-X.Y.Z.tgz"), else bin/helm-operator, which
# "make helm-operator" (and every target that runs it) first installs into bin/ with npm from HELM_OPERATOR_PACKAGE:
# helm-operator-ts@HELM_OPERATOR_VERSION (the version that scaffolded this project) from your npm registry, or the
# path of a packed helm-operator-ts-X.Y.Z.tgz.
LOCALBIN ?= $(shell pwd)/bin
HELM_OPERATOR_VERSION ?= ${VERSION}
HELM_OPERATOR_PACKAGE ?= helm-operator-ts@$(HELM_OPERATOR_VERSION)
ifneq (,$(wildcard $(LOCALBIN)/helm-operator))
HELM_OPERATOR ?= $(LOCALBIN)/helm-operator
else ifneq (,$(shell command -v helm-operator 2>/dev/null))
HELM_OPERATOR ?= helm-operator
else
HELM_OPERATOR ?= $(LOCALBIN)/helm-operator
endif
# The targets that run helm-operator first install it into bin/, when that is the one they run.
ifeq ($(HELM_OPERATOR),$(LOCALBIN)/helm-operator)
HELM_OPERATOR_DEP = $(LOCALBIN)/helm-operator
endif
# The CLI "make docker-build" puts into the image: the one the targets run, which packs itself ("helm-operator pack",
# no registry needed); with HELM_OPERATOR_PACKAGE or HELM_OPERATOR_VERSION given (command line or environment), that
# package instead, packed by npm.
IMAGE_CLI_DIR = ${IMAGE_PACKAGE_DIR}
ifeq ($(origin HELM_OPERATOR_PACKAGE)$(origin HELM_OPERATOR_VERSION),filefile)
IMAGE_CLI_DEP = $(HELM_OPERATOR_DEP)
IMAGE_CLI = $(HELM_OPERATOR) pack --destination=$(IMAGE_CLI_DIR)
else
IMAGE_CLI = npm pack --pack-destination $(IMAGE_CLI_DIR) --loglevel=error $(HELM_OPERATOR_PACKAGE) || { $(NO_PACKAGE); }
endif
# OPM: operator-registry's catalog tool (v1.59.0 or later), which catalog-build runs: bin/opm when there is one, else
# opm on PATH. Nothing is downloaded: without either, catalog-build stops and says where to put one.
ifneq (,$(wildcard $(LOCALBIN)/opm))
OPM ?= $(LOCALBIN)/opm
else ifneq (,$(shell command -v opm 2>/dev/null))
OPM ?= opm
else
OPM ?= $(LOCALBIN)/opm
endif
# What to do when npm cannot get HELM_OPERATOR_PACKAGE (a registry that does not have helm-operator-ts).
NO_PACKAGE = echo "npm could not get $(HELM_OPERATOR_PACKAGE) (is it in your npm registry?): set HELM_OPERATOR_PACKAGE=path/to/helm-operator-ts-X.Y.Z.tgz (a packed CLI), or put helm-operator on PATH (npm install -g path/to/helm-operator-ts-X.Y.Z.tgz)" >&2; exit 1
# RBAC_VALUES: values files (space-separated; Kind=file for one kind's chart) that generate-rbac also renders the
# charts with, for what CRs will enable beyond the defaults and the samples (an ingress, say).
RBAC_VALUES ?=
# How long undeploy waits for the operator to uninstall the releases of the custom resources.
UNDEPLOY_TIMEOUT ?= 5m

# Setting SHELL to bash allows bash commands to be executed by recipes.
# Options are set to exit when a recipe line exits non-zero or a piped command fails.
SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

.PHONY: all
all: docker-build

##@ General

# The help target prints out all targets with their descriptions organized
# beneath their categories. The categories are represented by '##@' and the
# target descriptions by '##'.

.PHONY: help
help: ## Display this help.
\t@awk 'BEGIN {FS = ":.*##"; printf "\\nUsage:\\n  make \\033[36m<target>\\033[0m\\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \\033[36m%-15s\\033[0m %s\\n", $$1, $$2 } /^##@/ { printf "\\n\\033[1m%s\\033[0m\\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Build

.PHONY: run
run: $(HELM_OPERATOR_DEP) ## Run the operator locally against the cluster of the current kubeconfig (make install first).
\t$(HELM_OPERATOR) run

# The image installs the helm-operator CLI from a package in the build context: bin/image/ holds exactly one (IMAGE_CLI
# above writes it).
.PHONY: docker-build
docker-build: $(IMAGE_CLI_DEP) ## Build the operator image IMG (the CLI these targets run, packed into bin/image/ first).
\trm -rf $(IMAGE_CLI_DIR) && mkdir -p $(IMAGE_CLI_DIR)
\t$(IMAGE_CLI)
\t$(CONTAINER_TOOL) build $(CONTAINER_BUILD_FLAGS) -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the operator image IMG.
\t$(CONTAINER_TOOL) push $(IMG)

##@ Deployment

.PHONY: install
install: ## Install the CRDs into the cluster of the current kubeconfig.
\t$(KUBECTL) kustomize config/crd | $(KUBECTL) apply -f -

.PHONY: uninstall
uninstall: ## Uninstall the CRDs from the cluster (this deletes every custom resource of these kinds).
\t$(KUBECTL) kustomize config/crd | $(KUBECTL) delete --ignore-not-found -f -

# kubectl has no "kustomize edit": deploy builds config/default through a temporary overlay that sets the
# image (kustomize refuses absolute paths, so the overlay reaches config/ through a symbolic link). IMG is split as a
# container runtime reads it: name[:tag][@digest], where a ":" before the last "/" belongs to a registry host
# (host:5000/team/operator:v1).
.PHONY: deploy
deploy: ## Deploy the operator with image IMG to the cluster of the current kubeconfig.
\t@tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; ln -s "$(CURDIR)/config" "$$tmp/config"; \\
\timg='$(IMG)'; tag=''; digest=''; \\
\tcase "$$img" in *@*) digest="$\${img#*@}"; img="$\${img%%@*}";; esac; \\
\tcase "$\${img##*/}" in *:*) tag="$\${img##*:}"; img="$\${img%:*}";; esac; \\
\t{ echo 'resources:'; echo '- config/default'; \\
\t  echo 'images:'; echo '- name: controller'; echo "  newName: \\"$$img\\""; \\
\t  if [ -n "$$tag" ]; then echo "  newTag: \\"$$tag\\""; fi; \\
\t  if [ -n "$$digest" ]; then echo "  digest: \\"$$digest\\""; fi; } > "$$tmp/kustomization.yaml"; \\
\t$(KUBECTL) kustomize --load-restrictor LoadRestrictionsNone "$$tmp" > "$$tmp/manifests.yaml"; \\
\t$(KUBECTL) apply -f "$$tmp/manifests.yaml"

.PHONY: undeploy
undeploy: $(HELM_OPERATOR_DEP) ## Undeploy: delete the custom resources, wait until their releases are uninstalled, then delete the rest.
\t$(KUBECTL) kustomize config/default | $(HELM_OPERATOR) undeploy --timeout=$(UNDEPLOY_TIMEOUT) -f -

.PHONY: cleanup
cleanup: $(HELM_OPERATOR_DEP) ## Escape hatch when the operator is gone or stuck: helm-operator cleanup (see its --help).
\t$(HELM_OPERATOR) cleanup

.PHONY: generate-rbac
generate-rbac: $(HELM_OPERATOR_DEP) ## Regenerate the manager Role (config/rbac/role.yaml) from the charts, the samples and RBAC_VALUES files.
\t$(HELM_OPERATOR) generate rbac $(addprefix --values=,$(RBAC_VALUES))

##@ Tools

.PHONY: helm-operator
helm-operator: $(LOCALBIN)/helm-operator ## Install helm-operator (HELM_OPERATOR_PACKAGE, with npm) into bin/.
$(LOCALBIN)/helm-operator:
\tnpm install --prefix "$(LOCALBIN)/helm-operator-ts" --no-audit --no-fund --loglevel=error $(HELM_OPERATOR_PACKAGE) || { $(NO_PACKAGE); }
\tln -sf "$(LOCALBIN)/helm-operator-ts/node_modules/.bin/helm-operator" "$(LOCALBIN)/helm-operator"

##@ Bundle

.PHONY: bundle
bundle: $(HELM_OPERATOR_DEP) ## Generate the OLM bundle for VERSION, CHANNELS, DEFAULT_CHANNEL and IMG.
\t$(KUBECTL) kustomize config/manifests | $(HELM_OPERATOR) generate bundle --version=$(VERSION) $(BUNDLE_METADATA_OPTS) --image=$(IMG) -f -

.PHONY: bundle-build
bundle-build: ## Build the bundle image BUNDLE_IMG.
\t$(CONTAINER_TOOL) build -f bundle.Dockerfile -t $(BUNDLE_IMG) .

.PHONY: bundle-push
bundle-push: ## Push the bundle image BUNDLE_IMG.
\t$(CONTAINER_TOOL) push $(BUNDLE_IMG)

.PHONY: opm
opm: ## Check that opm (operator-registry's catalog tool, OPM) is there; catalog-build needs it.
\t@command -v "$(OPM)" >/dev/null 2>&1 || { echo "catalog-build needs opm (operator-registry's cmd/opm, v1.59.0 or later): no $(OPM) and no opm on PATH; put one in bin/ (or on PATH, or set OPM=path/to/opm)" >&2; exit 1; }

# A comma-separated list of bundle images (e.g. make catalog-build BUNDLE_IMGS=example.com/operator-bundle:v0.1.0,example.com/operator-bundle:v0.2.0).
# These images MUST exist in a registry and be pull-able. Each one's tag must be v<its VERSION> (as BUNDLE_IMG's):
# its bundle's ClusterServiceVersion is named $(PACKAGE_NAME).v<VERSION>, and each one replaces the one before it.
BUNDLE_IMGS ?= $(BUNDLE_IMG)

# The opm image the catalog image is built from (opm generate dockerfile's --base-image and --builder-image); empty:
# opm's default (its upstream image). Set it where that registry cannot be reached (e.g. OPM_IMAGE=localhost/opm:v1.59.0).
OPM_IMAGE ?=
# More flags for opm's render of the bundle images, e.g. --use-http for a registry that serves plain HTTP.
OPM_RENDER_FLAGS ?=

# The image tag given to the resulting catalog image (e.g. make catalog-build CATALOG_IMG=example.com/operator-catalog:v0.2.0).
CATALOG_IMG ?= $(IMAGE_TAG_BASE)-catalog:v$(VERSION)

# catalog-build writes a file-based catalog of BUNDLE_IMGS into catalog/ from a basic template (the package, one
# olm.channel per channel of CHANNELS with the bundles in order, each replacing the one before it), validates it with
# opm and builds it into the image CATALOG_IMG with the Dockerfile opm generates (catalog.Dockerfile).
.PHONY: catalog-build
catalog-build: opm ## Build the catalog image CATALOG_IMG holding BUNDLE_IMGS (a file-based catalog rendered by opm).
\trm -rf catalog catalog.Dockerfile && mkdir -p catalog
\t{ echo 'schema: olm.template.basic'; echo 'entries:'; \\
\t  echo '- schema: olm.package'; echo '  name: $(PACKAGE_NAME)'; echo '  defaultChannel: $(CATALOG_DEFAULT_CHANNEL)'; \\
\t  for channel in $(CATALOG_CHANNELS); do \\
\t    echo '- schema: olm.channel'; echo '  package: $(PACKAGE_NAME)'; echo "  name: $$channel"; echo '  entries:'; prev=; \\
\t    for img in $(subst $(COMMA), ,$(BUNDLE_IMGS)); do \\
\t      name="$(PACKAGE_NAME).v$\${img##*:v}"; echo "  - name: $$name"; \\
\t      if [ -n "$$prev" ]; then echo "    replaces: $$prev"; fi; prev=$$name; \\
\t    done; \\
\t  done; \\
\t  for img in $(subst $(COMMA), ,$(BUNDLE_IMGS)); do echo '- schema: olm.bundle'; echo "  image: $$img"; done; \\
\t} > catalog.template.yaml
\t$(OPM) alpha render-template basic catalog.template.yaml --output=yaml $(OPM_RENDER_FLAGS) > catalog/index.yaml
\t$(OPM) validate catalog
\t$(OPM) generate dockerfile catalog $(if $(OPM_IMAGE),--base-image=$(OPM_IMAGE) --builder-image=$(OPM_IMAGE))
\t$(CONTAINER_TOOL) build $(CONTAINER_BUILD_FLAGS) -f catalog.Dockerfile -t $(CATALOG_IMG) .

.PHONY: catalog-push
catalog-push: ## Push the catalog image CATALOG_IMG.
\t$(CONTAINER_TOOL) push $(CATALOG_IMG)
`;
}
