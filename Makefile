# Every target runs with Node >= 22: hack/ensure-node.sh provisions Node 24 into .tools/ (from the npm registry's
# platform package) when the machine's Node is older, and prepends it to PATH here.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

NODE_BIN := $(shell hack/ensure-node.sh || echo ENSURE_NODE_FAILED)
ifeq ($(NODE_BIN),ENSURE_NODE_FAILED)
$(error hack/ensure-node.sh could not provide Node >= 22; see its message above)
endif
export PATH := $(if $(NODE_BIN),$(NODE_BIN):)$(PATH)

.PHONY: help deps build lint format typecheck test test-unit test-integration testenv-build testenv-up demo run clean
.PHONY: install uninstall deploy undeploy cleanup docker-build docker-push base-images image-test node-test bundle generate-rbac

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 20

deps: node_modules/.package-lock.json ## install the pinned npm dependencies (npm ci)
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

build: deps ## compile TypeScript to dist/
	npm run build

lint: deps ## biome lint + format check
	npm run lint

format: deps ## apply biome's formatting and safe fixes
	npm run format

typecheck: deps ## tsc --noEmit over src/ and test/
	npm run typecheck

test: ## everything, from a clean clone: deps, lint, types, unit, build, control plane, integration
	hack/test.sh

test-unit: deps ## unit tests only (no cluster)
	npm run test:unit

test-integration: deps ## integration tests only (TEST_CLUSTER=local|existing|k3s)
	npm run test:integration

testenv-build: ## build or reuse etcd, kube-apiserver, kube-controller-manager, kubectl and helm from Go modules
	hack/testenv.sh build

testenv-up: ## start a local control plane and print its folder (stop it with hack/testenv.sh down DIR)
	hack/testenv.sh up

demo: deps ## run the operator on a local control plane with the sample CR (Ctrl-C stops it); NODE=real: the whole workflow on a real node
	NODE="$(NODE)" hack/demo.sh

run: build ## run the operator against the cluster in KUBECONFIG (like operator-sdk's make install run)
	node dist/cmd/main.js run

clean: ## remove build output (keeps the Go binary cache outside the repository)
	rm -rf dist coverage

.PHONY: bench bench-scale bench-cli chaos soak
bench: deps ## benchmark the real operator and the direct helm/kubectl floors on a local control plane (a few minutes; BENCH_CRS=1000 for the scale run)
	npm run bench

bench-scale: build ## scale as a curve: BENCH_SCALE_CRS (1000,3000) CRs on BENCH_SCALE_REPLICAS (1,3) sharded replicas, 2 workers each, a fresh plane per point; per-replica watch events, cached objects, RSS, heap, CPU (long)
	node bench/scale.ts

bench-cli: build ## how fast the CLI answers: version, --help, run/init/create api --help, init + create api; median and p90 of BENCH_CLI_RUNS (10), no cluster
	node bench/cli-start.ts

chaos: build ## chaos suite: kills, API server/etcd restarts, network faults, leader kill, bad input; prints a table (CHAOS_ARGS=--short|--only=…; --only=node: the group on a real node)
	node chaos/run.ts $(CHAOS_ARGS)

soak: build ## SOAK_CRS CRs (500) for SOAK_MINUTES (60) under light churn; RSS and heap every minute and their slope
	node chaos/soak.ts

##@ Deployment (operator-sdk's targets; kustomize is kubectl's built-in one, no download)

IMG ?= controller:latest
VERSION ?= 0.0.1
CHANNELS ?= alpha
DEFAULT_CHANNEL ?= alpha
CONTAINER_TOOL ?= docker
KUBECTL ?= kubectl
UNDEPLOY_TIMEOUT ?= 5m
HELM_OPERATOR ?= node dist/cmd/main.js

install: ## install the CRDs into the cluster in KUBECONFIG
	$(KUBECTL) kustomize config/crd | $(KUBECTL) apply --server-side -f -

uninstall: ## delete the CRDs (and with them every CR: run undeploy first if an operator is deployed)
	$(KUBECTL) kustomize config/crd | $(KUBECTL) delete --ignore-not-found -f -

deploy: ## deploy the operator (config/default) with image IMG
	KUBECTL="$(KUBECTL)" hack/deploy.sh render "$(IMG)" | $(KUBECTL) apply --server-side -f -

undeploy: build ## delete every CR first (the running operator uninstalls the releases), then the operator, RBAC and CRDs
	KUBECTL="$(KUBECTL)" hack/deploy.sh render "$(IMG)" | $(HELM_OPERATOR) undeploy --timeout=$(UNDEPLOY_TIMEOUT) -f -

cleanup: build ## escape hatch when the operator is already gone: uninstall releases and free the CRs (asks first)
	$(HELM_OPERATOR) cleanup

# podman and buildah build without a daemon; their RUN steps reach the npm registry and the Go module proxy through
# the host's network, plus whatever runtime and ulimit flags this machine needs (hack/container-flags.sh). Docker's
# builder keeps its own defaults.
CONTAINER_BUILD_FLAGS ?= $(if $(filter podman buildah,$(notdir $(CONTAINER_TOOL))),--network=host $(shell hack/container-flags.sh))

docker-build: ## build the operator image IMG with CONTAINER_TOOL (docker, podman or buildah)
	$(CONTAINER_TOOL) build $(CONTAINER_BUILD_FLAGS) -t $(IMG) .

base-images: ## no registry? build local stand-ins for the Dockerfile's base images (root; podman or buildah)
	CONTAINER_TOOL="$(CONTAINER_TOOL)" hack/base-images.sh

image-test: ## build the image with podman and run it as a container against a local control plane
	hack/image-test.sh

node-test: deps ## the users' workflow on a real node: make docker-build, make deploy, the samples, make undeploy (root)
	hack/node-test.sh

docker-push: ## push the operator image IMG
	$(CONTAINER_TOOL) push $(IMG)

bundle: build ## generate the OLM bundle (bundle/, bundle.Dockerfile) for VERSION and validate it
	KUBECTL="$(KUBECTL)" hack/deploy.sh render-manifests "$(IMG)" | $(HELM_OPERATOR) generate bundle --version=$(VERSION) --channels=$(CHANNELS) --default-channel=$(DEFAULT_CHANNEL) --image=$(IMG) -f -

generate-rbac: build ## regenerate config/rbac/role.yaml from the charts in watches.yaml (after a chart changes)
	$(HELM_OPERATOR) generate rbac
