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

demo: deps ## run the operator on a local control plane with the sample CR (Ctrl-C stops it)
	hack/demo.sh

run: build ## run the operator against the cluster in KUBECONFIG (like operator-sdk's make install run)
	node dist/cmd/main.js run

clean: ## remove build output (keeps the Go binary cache outside the repository)
	rm -rf dist coverage

.PHONY: bench
bench: deps ## benchmark the real operator on a local control plane: latency, idle cost, RSS (a few minutes)
	npm run bench
