# The operator image: helm built from Go modules, the compiled operator, watches.yaml and charts/.
# Not yet built in CI (the development machines have no Docker engine); `make docker-build` arrives with the
# packaging issue.
ARG HELM_VERSION=v3.22.0

FROM golang:1.26-bookworm AS helm
ARG HELM_VERSION
RUN CGO_ENABLED=0 go install -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
      "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /opt/helm-operator
COPY --from=helm /go/bin/helm /usr/local/bin/helm
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json watches.yaml ./
COPY charts ./charts
# helm keeps its caches under HOME; the image runs as a non-root user with a writable HOME.
ENV HOME=/tmp NODE_ENV=production
USER 65532:65532
ENTRYPOINT ["node", "/opt/helm-operator/dist/cmd/main.js"]
CMD ["run", "--watches-file=/opt/helm-operator/watches.yaml"]
