# The operator image: helm built from Go modules, the compiled operator with its production dependencies only,
# and this repository's sample watches.yaml + charts/ under /opt/helm (operator-sdk's layout). A scaffolded project's
# Dockerfile (src/scaffold/templates/dockerfile.ts) has the same helm stage and runtime shape, with the CLI installed
# from its npm package and the project's own watches.yaml and charts. Checked without a Docker engine by
# test/unit/dockerfile.test.ts (structure, hadolint-style rules, both Dockerfiles) and
# test/integration/packaging/image-stages.test.ts (each stage's steps, run on this machine).
#
# Base images are pinned by tag, not by digest: a digest cannot be looked up offline (the development machines reach
# no container registry). Add `@sha256:…` to each FROM where the build has registry access.

# The helm release the image ships; keep it equal to HELM3_VERSION in hack/testenv/build.sh (a unit test compares
# them) so that the image runs the helm the integration tests ran, and to HELM_BUILD in
# src/scaffold/templates/dockerfile.ts, the scaffolded projects' (compared too: both builds share one cached layer).
ARG HELM_VERSION=v3.22.0
# The Kubernetes version helm assumes where no cluster answers (`helm template`, kubeVersion checks, lint), stamped
# in as helm's release build does (left out, helm 3 assumes v1.20 and refuses charts that need more). Keep it the
# test plane's version, KUBE_VERSION in hack/testenv/build.sh (the same unit test compares them).
ARG HELM_K8S_MAJOR=1
ARG HELM_K8S_MINOR=36

# ---- helm: the same `go install` as hack/testenv/build.sh (static, stripped, version stamped in) ----
FROM golang:1.26-bookworm AS helm
ARG HELM_VERSION
ARG HELM_K8S_MAJOR
ARG HELM_K8S_MINOR
# Static binary (no libc dependency), no VCS stamping (there is no repository in the module cache).
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
RUN go install -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.gitTreeState=clean -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${HELM_K8S_MAJOR} -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${HELM_K8S_MINOR} -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=${HELM_K8S_MAJOR} -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${HELM_K8S_MINOR}" \
      "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"

# ---- build: compile dist/ with the dev dependencies, then keep the production dependencies only ----
FROM node:24-bookworm-slim AS build
WORKDIR /src
# The lockfile alone first, so the dependency layer is reused while only src/ changes.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# tsc writes main.js without the executable bit; the helm-operator symlink on PATH needs it (main.js starts with
# `#!/usr/bin/env node`). No dependency needs an install script at run time, hence --ignore-scripts.
RUN npm run build \
 && chmod 0755 dist/cmd/main.js \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# ---- the operator image ----
# Debian's slim base with the build stage's node binary alone: no npm, npx, corepack or yarn, which the entrypoint
# never runs (they were ~20 MB of node:24-bookworm-slim). bash, coreutils' mkfifo and cat (the post-renderer) and
# /usr/bin/env (main.js's shebang) are in the base. Node 24 is the current LTS (package.json accepts >= 22.19).
FROM debian:bookworm-slim
COPY --from=build /usr/local/bin/node /usr/local/bin/node
ENV NODE_ENV=production
# A 1 MiB young generation: at 100 CRs the operator's RSS is ~105 MiB instead of ~145 MiB, with no measurable CPU cost
# (docs/user-guide.md, "The operator's image"). Scaffolded projects' images set it too; a Deployment's env can override it.
ENV NODE_OPTIONS=--max-semi-space-size=1
# Two malloc arenas instead of glibc's 8 per core: the RSS each CR adds falls from ~65 to ~42 KiB (heap snapshots and
# RSS at 100 and 500 CRs, docs/operations.md "Measured"); the operator's JavaScript runs on one thread anyway.
ENV MALLOC_ARENA_MAX=2
# glibc's mmap and trim thresholds fixed (128 and 256 KiB) instead of growing with the largest buffer freed: a burst's
# large buffers go back to the kernel when freed instead of staying in the arenas (1000 CRs: 120-122 MiB RSS settled
# instead of 125-136, docs/operations.md "The burst's memory, given back").
ENV MALLOC_MMAP_THRESHOLD_=131072
ENV MALLOC_TRIM_THRESHOLD_=262144
COPY --from=helm /go/bin/helm /usr/local/bin/helm
COPY --from=build /src/package.json /opt/helm-operator/package.json
COPY --from=build /src/node_modules /opt/helm-operator/node_modules
COPY --from=build /src/dist /opt/helm-operator/dist
# `helm-operator` on PATH, as in operator-sdk's image (its ENTRYPOINT is the same command line).
RUN ln -s /opt/helm-operator/dist/cmd/main.js /usr/local/bin/helm-operator
WORKDIR /opt/helm
COPY watches.yaml ./watches.yaml
COPY charts ./charts
# The operator writes only under the temp dir (helm homes and caches, values files, KUBECACHEDIR, the post-render
# script and FIFOs), and helm keeps its config under HOME: both on /tmp, so a read-only root filesystem with an emptyDir
# mounted on /tmp works.
ENV HOME=/tmp TMPDIR=/tmp
# Numeric, so that `runAsNonRoot: true` can be verified by the kubelet without /etc/passwd.
USER 65532:65532
# The same command line as operator-sdk's helm-operator image; the Deployment's args are appended to it.
ENTRYPOINT ["helm-operator", "run", "--watches-file=./watches.yaml"]
