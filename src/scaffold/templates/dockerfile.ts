// The project's Dockerfile and .dockerignore: a self-contained multi-stage build (helm from Go modules, the
// helm-operator CLI from the package that `make docker-build` packs into bin/image/, Node.js) with the same runtime
// shape as this repository's own image, plus the project's watches.yaml and charts. Called by project.ts.
// Pure text; test/unit/dockerfile.test.ts checks the helm build equals the repository Dockerfile's.

/**
 * The helm the image builds: equal to the ARGs of this repository's Dockerfile (a unit test compares them), so that
 * a project's image runs the helm the operator was tested with, and podman or buildah reuse one cached helm layer.
 */
export const HELM_BUILD = { version: 'v3.22.0', k8sMajor: '1', k8sMinor: '36' } as const;

/** The base images, by tag; build args of the same names override them (mirrors). */
export const BASE_IMAGES = {
  GO_IMAGE: 'golang:1.26-bookworm',
  NODE_IMAGE: 'node:24-bookworm-slim',
  DEBIAN_IMAGE: 'debian:bookworm-slim',
} as const;

/** Where `make docker-build` packs the CLI for the image; the only part of bin/ in the build context. */
export const IMAGE_PACKAGE_DIR = 'bin/image';

/** The image's user: numeric, so that `runAsNonRoot: true` can be verified without /etc/passwd. */
export const IMAGE_USER = '65532:65532';

// The helm stage's instructions after FROM are character for character those of the repository's Dockerfile: the
// layer cache of podman and buildah is keyed on them, so one helm build serves both images.
const LDFLAGS = [
  '-s -w',
  `-X helm.sh/helm/v3/internal/version.version=\${HELM_VERSION}`,
  '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
  ...['pkg/chartutil', 'pkg/lint/rules'].flatMap((p) => [
    `-X helm.sh/helm/v3/${p}.k8sVersionMajor=\${HELM_K8S_MAJOR}`,
    `-X helm.sh/helm/v3/${p}.k8sVersionMinor=\${HELM_K8S_MINOR}`,
  ]),
].join(' ');

export function dockerfile(): string {
  return `# The operator image of this project: helm, Node.js and the helm-operator CLI, with this project's watches.yaml
# and charts under /opt/helm. Build it with "make docker-build IMG=<registry>/<name>:<tag>": it first packs the CLI
# that the Makefile runs ("helm-operator pack"; or HELM_OPERATOR_PACKAGE, when given, with npm pack) into
# ${IMAGE_PACKAGE_DIR}/, which the cli stage installs. The build's RUN steps reach the Go module proxy (helm) and the npm
# registry (the CLI's dependencies).
#
# The base images are pinned by tag; where you mirror them, pass their names as build args, e.g.
#   make docker-build CONTAINER_BUILD_FLAGS="--build-arg GO_IMAGE=<mirror>/${BASE_IMAGES.GO_IMAGE}"
# and add "@sha256:..." digests where your build has registry access.
ARG GO_IMAGE=${BASE_IMAGES.GO_IMAGE}
ARG NODE_IMAGE=${BASE_IMAGES.NODE_IMAGE}
ARG DEBIAN_IMAGE=${BASE_IMAGES.DEBIAN_IMAGE}

# The helm release the image ships, and the Kubernetes version helm assumes where no cluster answers (helm template,
# kubeVersion checks, lint), stamped in as helm's release build does: those the helm-operator CLI was tested with.
ARG HELM_VERSION=${HELM_BUILD.version}
ARG HELM_K8S_MAJOR=${HELM_BUILD.k8sMajor}
ARG HELM_K8S_MINOR=${HELM_BUILD.k8sMinor}

# ---- helm: built from Go modules (static, stripped, version stamped in) ----
FROM \${GO_IMAGE} AS helm
ARG HELM_VERSION
ARG HELM_K8S_MAJOR
ARG HELM_K8S_MINOR
# Static binary (no libc dependency), no VCS stamping (there is no repository in the module cache).
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
RUN go install -trimpath \\
      -ldflags "${LDFLAGS}" \\
      "helm.sh/helm/v3/cmd/helm@\${HELM_VERSION}"

# ---- cli: the helm-operator CLI that make docker-build packed, with its production dependencies only ----
FROM \${NODE_IMAGE} AS cli
# A plain install into this folder: node_modules/ (the CLI and its dependencies) and node_modules/.bin/helm-operator.
# Not --global --prefix, which would also move npm's global config away from the base image's (its registry, its CA).
WORKDIR /opt/helm-operator
# No package here? Build with make docker-build, which packs the CLI into ${IMAGE_PACKAGE_DIR}/ first.
COPY ${IMAGE_PACKAGE_DIR}/*.tgz /tmp/helm-operator/
RUN npm install --omit=dev --no-audit --no-fund /tmp/helm-operator/*.tgz

# ---- the operator image ----
# Debian's slim base with the cli stage's node binary alone: no npm, npx, corepack or yarn, which the entrypoint never
# runs. bash, coreutils' mkfifo and cat (the operator's post-renderer) and /usr/bin/env (the CLI's shebang) are in it.
FROM \${DEBIAN_IMAGE}
COPY --from=cli /usr/local/bin/node /usr/local/bin/node
ENV NODE_ENV=production
# A 1 MiB young generation: a smaller operator RSS at no measurable CPU cost; the Deployment's env can override it.
ENV NODE_OPTIONS=--max-semi-space-size=1
# Two malloc arenas instead of glibc's 8 per core: less RSS per CR; the operator's JavaScript runs on one thread.
ENV MALLOC_ARENA_MAX=2
# glibc's mmap and trim thresholds fixed: large buffers freed after a burst go back to the kernel.
ENV MALLOC_MMAP_THRESHOLD_=131072
ENV MALLOC_TRIM_THRESHOLD_=262144
COPY --from=helm /go/bin/helm /usr/local/bin/helm
COPY --from=cli /opt/helm-operator /opt/helm-operator
# \`helm-operator\` on PATH, as in operator-sdk's image (its ENTRYPOINT is the same command line).
RUN ln -s /opt/helm-operator/node_modules/.bin/helm-operator /usr/local/bin/helm-operator
WORKDIR /opt/helm
COPY watches.yaml ./watches.yaml
COPY charts ./charts
# The operator writes only under the temp dir (helm homes and caches, values files, the post-render script and FIFOs),
# and helm keeps its config under HOME: both on /tmp, so a read-only root filesystem with an emptyDir mounted on /tmp
# works (config/manager/manager.yaml).
ENV HOME=/tmp TMPDIR=/tmp
# Numeric, so that \`runAsNonRoot: true\` can be verified by the kubelet without /etc/passwd.
USER ${IMAGE_USER}
# The same command line as operator-sdk's helm-operator image; the Deployment's args are appended to it.
ENTRYPOINT ["helm-operator", "run", "--watches-file=./watches.yaml"]
`;
}

export const DOCKERIGNORE = `# The operator image needs only watches.yaml, charts/ and the CLI package make docker-build packs into ${IMAGE_PACKAGE_DIR}/
# (see Dockerfile), the bundle image only bundle/, the catalog image only catalog/: everything else stays out of the
# build context. Add a "!<path>" line for anything else you COPY.
*
!watches.yaml
!charts
!bundle
!catalog
!${IMAGE_PACKAGE_DIR}/*.tgz
`;
