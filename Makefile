# Foo Operator Makefile. Every tool it needs is built from pinned Go modules into bin/;
# nothing is downloaded from outside the Go module proxy and nothing must be pre-installed
# but Go.

# VERSION is the operator version (semver, no leading v).
VERSION ?= 0.1.0
# IMAGE_TAG_BASE is the image repository the operator image is pushed to.
IMAGE_TAG_BASE ?= quay.io/example/foo-operator
# IMG is the operator image.
IMG ?= $(IMAGE_TAG_BASE):v$(VERSION)

# CONTAINER_TOOL builds and pushes images (docker or podman).
CONTAINER_TOOL ?= docker

SHELL = /usr/bin/env bash -o pipefail
.SHELLFLAGS = -ec

GOBIN ?= $(shell go env GOPATH)/bin

##@ General

.PHONY: all
all: build

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "\nUsage:\n  make \033[36m<target>\033[0m\n"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2 } /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) } ' $(MAKEFILE_LIST)

##@ Development

.PHONY: manifests
manifests: controller-gen ## Generate the CRD and RBAC manifests from the markers in api/ and controllers/.
	$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths="./..." output:crd:artifacts:config=config/crd/bases

.PHONY: generate
generate: controller-gen ## Generate the DeepCopy methods of the API types.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."

.PHONY: fmt
fmt: ## Format the Go code.
	go fmt ./...

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: vet golangci-lint ## Run go vet, a gofmt check and golangci-lint (.golangci.yml).
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi
	$(GOLANGCI_LINT) run ./...

.PHONY: test
test: manifests generate lint envtest ## Run the unit tests and the envtest suite (real kube-apiserver and etcd).
	KUBEBUILDER_ASSETS="$(ENVTEST_ASSETS)" go test ./... -coverprofile cover.out -timeout 20m

##@ Build

.PHONY: build
build: manifests generate lint ## Build the manager binary.
	go build -o bin/manager .

.PHONY: run
run: manifests generate install ## Run the operator on this machine against the cluster in KUBECONFIG (installs the CRD first).
	go run .

.PHONY: docker-build
docker-build: ## Build the operator image (needs a container engine).
	@command -v $(CONTAINER_TOOL) >/dev/null || { echo "docker-build needs $(CONTAINER_TOOL); none found (set CONTAINER_TOOL)"; exit 1; }
	$(CONTAINER_TOOL) build -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the operator image (needs a container engine).
	@command -v $(CONTAINER_TOOL) >/dev/null || { echo "docker-push needs $(CONTAINER_TOOL); none found (set CONTAINER_TOOL)"; exit 1; }
	$(CONTAINER_TOOL) push $(IMG)

##@ Deployment

.PHONY: install
install: manifests kustomize kubectl ## Install the CRD into the cluster in KUBECONFIG.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) apply --server-side -f -

.PHONY: uninstall
uninstall: manifests kustomize kubectl ## Remove the CRD (and with it every Foo) from the cluster in KUBECONFIG.
	$(KUSTOMIZE) build config/crd | $(KUBECTL) delete --ignore-not-found -f -

.PHONY: deploy
deploy: manifests kustomize kubectl ## Deploy the operator (image IMG) to the cluster in KUBECONFIG.
	cd config/manager && $(KUSTOMIZE) edit set image controller=$(IMG)
	$(KUSTOMIZE) build config/default | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: kustomize kubectl ## Remove the operator from the cluster in KUBECONFIG.
	$(KUSTOMIZE) build config/default | $(KUBECTL) delete --ignore-not-found -f -

##@ Tools (built from pinned Go modules into bin/)

LOCALBIN ?= $(CURDIR)/bin
$(LOCALBIN):
	mkdir -p $(LOCALBIN)

CONTROLLER_TOOLS_VERSION ?= v0.20.1
KUSTOMIZE_VERSION ?= v5.8.2
GOLANGCI_LINT_VERSION ?= v2.15.0
# The Kubernetes and etcd versions are pinned by the tools modules under hack/tools.
KUBERNETES_VERSION := $(shell awk '$$1=="k8s.io/kubernetes" {print $$2; exit}' hack/tools/kube/go.mod)
KUBERNETES_MINOR := $(word 2,$(subst ., ,$(KUBERNETES_VERSION)))

CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
KUSTOMIZE ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)
KUBECTL ?= $(LOCALBIN)/kubectl
ENVTEST_ASSETS ?= $(LOCALBIN)/k8s
# Kubernetes binaries report this version; clients that parse the server version need it.
K8S_LDFLAGS := -s -w -X k8s.io/component-base/version.gitVersion=$(KUBERNETES_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(KUBERNETES_MINOR)

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN) ## Build controller-gen.
$(CONTROLLER_GEN): | $(LOCALBIN)
	$(call go-install-tool,$(CONTROLLER_GEN),sigs.k8s.io/controller-tools/cmd/controller-gen,$(CONTROLLER_TOOLS_VERSION))

.PHONY: kustomize
kustomize: $(KUSTOMIZE) ## Build kustomize.
$(KUSTOMIZE): | $(LOCALBIN)
	$(call go-install-tool,$(KUSTOMIZE),sigs.k8s.io/kustomize/kustomize/v5,$(KUSTOMIZE_VERSION))

.PHONY: golangci-lint
golangci-lint: $(GOLANGCI_LINT) ## Build golangci-lint.
$(GOLANGCI_LINT): | $(LOCALBIN)
	$(call go-install-tool,$(GOLANGCI_LINT),github.com/golangci/golangci-lint/v2/cmd/golangci-lint,$(GOLANGCI_LINT_VERSION))

.PHONY: envtest
envtest: $(ENVTEST_ASSETS)/kube-apiserver $(ENVTEST_ASSETS)/etcd ## Build kube-apiserver and etcd for envtest (once; about 3 minutes on a cold machine).

$(ENVTEST_ASSETS)/kube-apiserver: hack/tools/kube/go.mod hack/tools/kube/go.sum
	@echo "Building kube-apiserver $(KUBERNETES_VERSION) from Go modules (one-time, a few minutes on a cold machine)"
	cd hack/tools/kube && go build -ldflags "$(K8S_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(ENVTEST_ASSETS)/etcd: hack/tools/etcd/go.mod hack/tools/etcd/go.sum
	@echo "Building etcd from Go modules (one-time)"
	cd hack/tools/etcd && go build -ldflags "-s -w" -o $@ go.etcd.io/etcd/server/v3

.PHONY: kubectl
kubectl: $(KUBECTL) ## Build kubectl (version-stamped, like every Kubernetes binary here).
$(KUBECTL): hack/tools/kube/go.mod hack/tools/kube/go.sum
	cd hack/tools/kube && go build -ldflags "$(K8S_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kubectl

# go-install-tool installs package $2 at version $3 as $1 (a versioned file name, so that a
# version bump rebuilds it) and links bin/<tool> to it.
define go-install-tool
@[ -f "$(1)" ] || { \
set -e; \
echo "Building $(2)@$(3)"; \
GOBIN=$(LOCALBIN) go install $(2)@$(3); \
mv "$$(echo "$(1)" | sed "s/-$(3)$$//")" $(1); \
}; \
ln -sf $$(basename $(1)) "$$(echo "$(1)" | sed "s/-$(3)$$//")"
endef
