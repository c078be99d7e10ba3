#!/usr/bin/env bash
# Generates pkg/generated (clientset, listers, informers, apply configurations) for
# api/v1alpha1 with the k8s.io/code-generator binaries in bin/ (make codegen-tools).
set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "${ROOT}"
BIN="${BIN:-${ROOT}/bin}"
MODULE=github.com/example/foo-operator
OUT_DIR=pkg/generated
OUT_PKG="${MODULE}/${OUT_DIR}"
API_PKG="${MODULE}/api/v1alpha1"
HEADER=hack/boilerplate.go.txt

# Start from nothing, so that files of removed types do not linger.
rm -rf "${OUT_DIR}"

"${BIN}/applyconfiguration-gen" \
	--go-header-file "${HEADER}" \
	--output-dir "${OUT_DIR}/applyconfiguration" \
	--output-pkg "${OUT_PKG}/applyconfiguration" \
	"${API_PKG}"

"${BIN}/client-gen" \
	--go-header-file "${HEADER}" \
	--output-dir "${OUT_DIR}/clientset" \
	--output-pkg "${OUT_PKG}/clientset" \
	--clientset-name versioned \
	--apply-configuration-package "${OUT_PKG}/applyconfiguration" \
	--input-base "${MODULE}" \
	--input api/v1alpha1

"${BIN}/lister-gen" \
	--go-header-file "${HEADER}" \
	--output-dir "${OUT_DIR}/listers" \
	--output-pkg "${OUT_PKG}/listers" \
	"${API_PKG}"

"${BIN}/informer-gen" \
	--go-header-file "${HEADER}" \
	--output-dir "${OUT_DIR}/informers" \
	--output-pkg "${OUT_PKG}/informers" \
	--versioned-clientset-package "${OUT_PKG}/clientset/versioned" \
	--listers-package "${OUT_PKG}/listers" \
	"${API_PKG}"
