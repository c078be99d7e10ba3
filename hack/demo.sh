#!/usr/bin/env bash
# The one-command demo: a local cluster with OLM, the operator installed from its catalog
# through a Subscription, and the sample Foo. `make demo-down` removes everything.
#
# DEMO_NODE picks the node: real (the default where this machine can run containers: the
# catalog, bundle and operator images built here, the operator in its pod, the sample Foo's
# nginx answering curl) or kwok (a simulated node: pods run nothing, so the operator's code
# runs as a local process with the service account OLM created for it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
work=$root/.kwok
kubeconfig=$work/kubeconfig
kubectl() { "$root/bin/kubectl" --kubeconfig "$kubeconfig" "$@"; }
step() { printf '\n==> %s\n' "$*"; }
ns=foo-operator-demo

node=${DEMO_NODE:-real}
if [ "$node" = real ] && ! why=$(hack/real-node.sh check 2>&1); then
	printf '\n==> This machine cannot run containers, so the demo falls back to the simulated node (kwok):\n    %s\n' "$why"
	node=kwok
	make --no-print-directory -j"$(nproc)" demo-tools DEMO_NODE=kwok
fi
export LOCAL_CLUSTER_NODE=$node
# metrics-server serves HPAs on the simulated node's usage, which the hints below try; the
# real node's demo has no HPA to serve.
[ "$node" = kwok ] || export LOCAL_CLUSTER_METRICS_SERVER=false

# install SOURCE: the CatalogSource foo-operator-catalog in namespace olm, serving from
# SOURCE (its spec's "image: ..." or "address: ..."), the namespace (Pod Security
# restricted), an OperatorGroup for it and a Subscription to the operator's stable channel;
# then wait for the CSV.
install() {
	kubectl apply --server-side -f - >/dev/null <<YAML
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata:
  name: foo-operator-catalog
  namespace: olm
spec:
  sourceType: grpc
  $1
  displayName: Foo Operator (local)
  grpcPodConfig: {securityContextConfig: restricted}
---
apiVersion: v1
kind: Namespace
metadata:
  name: $ns
  labels:
    pod-security.kubernetes.io/enforce: restricted
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata:
  name: foo-operator
  namespace: $ns
spec:
  targetNamespaces: [$ns]
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: foo-operator
  namespace: $ns
spec:
  name: foo-operator
  channel: stable
  source: foo-operator-catalog
  sourceNamespace: olm
  installPlanApproval: Automatic
YAML
	csv=""
	for _ in $(seq 1 300); do
		csv=$(kubectl get subscription foo-operator -n "$ns" -o jsonpath='{.status.installedCSV}' 2>/dev/null || true)
		phase=$(kubectl get csv "$csv" -n "$ns" -o jsonpath='{.status.phase}' 2>/dev/null || true)
		[ "$phase" = Succeeded ] && break
		sleep 1
	done
	[ "$phase" = Succeeded ] || { echo "CSV did not succeed: bin/kubectl --kubeconfig $kubeconfig get subscription,installplan,csv -n $ns -o yaml" >&2; exit 1; }
	echo "CSV $csv Succeeded"
}

if [ "$node" = real ]; then
	step "Starting the local cluster with a real node (kubelet, containerd), and OLM in it"
	hack/local-cluster.sh up
	hack/local-cluster.sh olm-up
	registry=$(cat "$work/registry")

	step "Building the operator, bundle and catalog images and pushing them to the node's registry ($registry)"
	# Under the names the bundle and catalog ship (quay.io/example/...): the registry mirrors quay.io.
	REGISTRY=$registry hack/images.sh operator quay.io/example/foo-operator:v0.1.0
	REGISTRY=$registry hack/images.sh build quay.io/example/foo-operator-bundle:v0.1.0 bundle.Dockerfile .
	REGISTRY=$registry hack/images.sh build quay.io/example/foo-operator-catalog:v0.1.0 catalog.Dockerfile .

	step "Installing the operator through OLM from the catalog image (CatalogSource, OperatorGroup, Subscription)"
	install "image: quay.io/example/foo-operator-catalog:v0.1.0"
	kubectl rollout status deployment/foo-operator-controller-manager -n "$ns" --timeout=180s

	step "Applying the sample Foo"
	kubectl apply -n "$ns" -f config/samples/samplecontroller_v1alpha1_foo.yaml
	kubectl wait foo/example-foo -n "$ns" --for=condition=Available --timeout=180s

	step "What a user sees"
	kubectl get csv,foo,deploy,pods -n "$ns" -o wide
	ip=$(kubectl get pods -n "$ns" -l controller=example-foo -o jsonpath='{.items[0].status.podIP}')
	step "curl http://$ip:8080/ (the sample Foo's nginx, from its pod IP)"
	curl -sS --max-time 5 "http://$ip:8080/"

	cat <<EOT

The demo cluster is running on a real node. Try:
  export KUBECONFIG=$kubeconfig
  bin/kubectl scale foo example-foo -n $ns --replicas=3
  bin/kubectl get pods -n $ns -l controller=example-foo -o wide   # curl each pod IP on port 8080
  bin/kubectl logs -n $ns deployment/foo-operator-controller-manager
  bin/kubectl describe foo example-foo -n $ns
Remove it all: make demo-down
EOT
	exit 0
fi

step "Starting the local cluster (kwok, simulated node) and OLM"
hack/local-cluster.sh up
hack/local-cluster.sh olm-up

step "Serving the operator's catalog with opm"
catalog=$work/catalog
rm -rf "$catalog"
mkdir -p "$catalog/foo-operator"
cp catalog/foo-operator/package.yaml "$catalog/foo-operator/"
# The committed catalog names the bundle by its image, which a simulated node cannot unpack:
# its channels, with the bundle rendered from its directory (no image, its objects inline,
# which OLM installs without unpacking).
awk 'BEGIN { RS = "---\n" } /schema: olm\.(channel|deprecations)\n/ { printf "---\n%s", $0 }' \
	catalog/foo-operator/foo-operator.yaml >"$catalog/foo-operator/channels.yaml"
bin/opm render bundle --output=yaml >"$catalog/foo-operator/bundle.yaml"
bin/opm validate "$catalog"
# A loopback port no one listens on, starting from one derived from this checkout.
port=$((20000 + $(printf '%s' "$root" | cksum | cut -d' ' -f1) % 20000))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
if [ -f "$work/opm.pid" ]; then kill "$(cat "$work/opm.pid")" 2>/dev/null || true; fi
nohup bin/opm serve "$catalog" --port "$port" --pprof-addr "" >"$work/opm.log" 2>&1 &
echo $! >"$work/opm.pid"

step "Installing the operator through OLM (CatalogSource, OperatorGroup, Subscription)"
install "address: 127.0.0.1:$port"

step "Running the operator's code with the service account and environment OLM gave it"
go build -o bin/manager .
deploy=foo-operator-controller-manager
kubectl rollout status deployment/$deploy -n "$ns" --timeout=120s >/dev/null
targets=$(kubectl get deployment $deploy -n "$ns" -o jsonpath="{.spec.template.metadata.annotations['olm\.targetNamespaces']}")
image=$(kubectl get deployment $deploy -n "$ns" -o jsonpath='{.spec.template.spec.containers[0].env[?(@.name=="RELATED_IMAGE_NGINX")].value}')
token=$(kubectl create token "$deploy" -n "$ns" --duration=24h)
server=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$work/ca.crt"
opkubeconfig=$work/operator.kubeconfig
KUBECONFIG=$opkubeconfig "$root/bin/kubectl" config set-cluster local --server="$server" --certificate-authority="$work/ca.crt" --embed-certs >/dev/null
KUBECONFIG=$opkubeconfig "$root/bin/kubectl" config set-credentials operator --token="$token" >/dev/null
KUBECONFIG=$opkubeconfig "$root/bin/kubectl" config set-context local --cluster=local --user=operator --namespace="$ns" >/dev/null
KUBECONFIG=$opkubeconfig "$root/bin/kubectl" config use-context local >/dev/null
if [ -f "$work/operator.pid" ]; then kill "$(cat "$work/operator.pid")" 2>/dev/null || true; fi
WATCH_NAMESPACE=$targets RELATED_IMAGE_NGINX=$image nohup bin/manager --kubeconfig="$opkubeconfig" \
	--leader-elect --leader-election-namespace="$ns" --metrics-bind-address=0 --health-probe-bind-address=0 \
	>"$work/operator.log" 2>&1 &
echo $! >"$work/operator.pid"

step "Applying the sample Foo"
kubectl apply -n "$ns" -f config/samples/samplecontroller_v1alpha1_foo.yaml
kubectl wait foo/example-foo -n "$ns" --for=condition=Available --timeout=120s

step "What a user sees"
kubectl get csv,foo,deploy,pods -n "$ns"

cat <<EOT

The demo cluster is running. Try:
  export KUBECONFIG=$kubeconfig
  bin/kubectl scale foo example-foo -n $ns --replicas=3
  bin/kubectl get foo example-foo -n $ns -w
  bin/kubectl describe foo example-foo -n $ns
  go run ./examples/foo-watch --namespace $ns   # the Ready condition of each Foo, as it changes

Scale it with a HorizontalPodAutoscaler (metrics-server serves the CPU kwok simulates):
  bin/kubectl apply -n $ns -f config/samples/autoscaling_v2_horizontalpodautoscaler.yaml
  # load: every simulated pod uses 30m CPU, 3 times what a Foo's pods request
  bin/kubectl patch clusterresourceusage simulated-usage --type=merge -p '{"spec":{"usages":[{"usage":{"cpu":{"value":"30m"},"memory":{"value":"16Mi"}}}]}}'
  bin/kubectl get hpa,foo -n $ns -w   # 1 -> 5 replicas within about a minute
  # idle again: back to 1 replica after the HPA's 5-minute scale-down stabilization
  bin/kubectl patch clusterresourceusage simulated-usage --type=merge -p '{"spec":{"usages":[{"usage":{"cpu":{"value":"1m"},"memory":{"value":"16Mi"}}}]}}'
Operator log: $work/operator.log
Remove it all: make demo-down
EOT
