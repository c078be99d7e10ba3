#!/usr/bin/env bash
# operator-sdk's scaffolding (`create api`, `create webhook`) on this tree.
#
# The project keeps the layout it was designed with: main.go, api/ and controllers/ at the
# top. PROJECT declares the go.kubebuilder.io/v4 layout, the only Go layout operator-sdk
# v1.42 has, whose scaffolding writes to cmd/main.go and internal/controller/. This script
# moves main.go (with manager.go, its manager wiring) and controllers/ there, runs `bin/operator-sdk "$@"`, and moves them back
# with what it added (package controller renamed controllers, main.go's import of it
# restored); webhooks stay in internal/webhook/, where the v4 layout puts them. Then
# `make generate manifests` (operator-sdk's own `make generate` would run in the moved tree). `make test-scaffold` runs it on a copy of the tree.
#
#   hack/scaffold.sh create api --group samplecontroller --version v1beta1 --kind Bar --resource --controller
#   hack/scaffold.sh create webhook --group samplecontroller --version v1beta1 --kind Bar --defaulting
set -euo pipefail
cd "$(dirname "$0")/.."
module=$(go list -m)

[ ! -e cmd ] && [ ! -e internal/controller ] || { echo "cmd/ or internal/controller/ exists: a scaffold was interrupted? Move them back first." >&2; exit 1; }
mkdir -p cmd internal
mv main.go manager.go cmd/
mv controllers internal/controller
# Every importer of the package follows it (operator-sdk runs go mod tidy).
importers=$(grep -rl --include='*.go' --exclude-dir=bin "\"$module/controllers\"" . || true)
sed -i "s#\"$module/controllers\"#\"$module/internal/controller\"#" $importers

# `create webhook` loads the v4 layout's test/e2e/e2e_test.go to add webhook checks at its
# markers; the e2e suite here has no such file (its checks are OLM's), so an empty one
# stands in while the scaffold runs.
placeholder=
if [ ! -e test/e2e/e2e_test.go ]; then
	placeholder=test/e2e/e2e_test.go
	mkdir -p test/e2e
	printf '//go:build e2e\n\npackage e2e\n' >"$placeholder"
fi

restore() {
	[ -z "$placeholder" ] || rm -f "$placeholder"
	mv cmd/main.go cmd/manager.go .
	rmdir cmd
	mv internal/controller controllers
	rmdir internal 2>/dev/null || true # kept when it holds webhooks
	sed -i 's/^package controller$/package controllers/' controllers/*.go
	# The scaffold imports the controllers package a second time, as "controller", and
	# uses that name for the reconcilers it sets up.
	importers=${importers//.\/cmd\//.\/}
	sed -i "s#\"$module/internal/controller\"#\"$module/controllers\"#" $importers
	sed -i 's/(&controller\.\([A-Za-z0-9]*Reconciler\){/(\&controllers.\1{/' main.go
	sed -i "s#^\tcontrollers \"$module/controllers\"#\t\"$module/controllers\"#" main.go
	awk -v imp="\"$module/controllers\"" '$NF == imp { if (seen++) next } { print }' main.go >main.go.new && mv main.go.new main.go
	# operator-sdk v1.42 scaffolds webhooks for controller-runtime v0.21; v0.23's builder
	# takes the object as an argument and names the untyped validator and defaulter
	# WithCustom* (deprecated there: move them to the typed admission.Validator[T] and
	# Defaulter[T] when you make the scaffold your own).
	for f in internal/webhook/*/*.go; do
		[ -e "$f" ] || continue
		sed -i -e 's/NewWebhookManagedBy(mgr)\.For(\(&[A-Za-z0-9.]*{}\))\./NewWebhookManagedBy(mgr, \1)./' \
			-e 's/\bWithValidator(&/WithCustomValidator(\&/; s/\bWithDefaulter(&/WithCustomDefaulter(\&/' "$f"
	done
}
trap restore EXIT
# Generation runs once the tree has its own layout again.
bin/operator-sdk "$@" --make=false
trap - EXIT
restore
make generate manifests
