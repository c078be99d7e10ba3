#!/usr/bin/env bash
# A local Kubernetes control plane (kwokctl, runtime "binary") with one node, and a real OLM,
# all from binaries the Makefile built into bin/. LOCAL_CLUSTER_NODE picks the node:
#   kwok (default)  a simulated node (kwok): pods run nothing; room for thousands of them
#                   (make bench, the chaos suite's load). OLM's olm-operator and
#                   catalog-operator run as local processes.
#   real            a node that runs containers (hack/real-node.sh: kubelet, kube-proxy,
#                   containerd, CoreDNS, a registry of the images hack/images.sh builds).
#                   OLM runs in the cluster as its release manifests deploy it.
#                   LOCAL_CLUSTER_SIMULATED_NODE=true adds the simulated node beside it
#                   for pods that need not run (the chaos suite's load: thousands of
#                   operands beside the operator's container), and taints the real node
#                   (foo-operator.example.com/real-node:NoSchedule) so that only pods that
#                   tolerate it run there. LOCAL_CLUSTER_IMAGES names the groups of
#                   hack/images.sh its registry holds beside base (olm unless set).
# State lives in .kwok/ of this checkout (LOCAL_CLUSTER_DIR overrides it: the e2e suite uses
# its own); the cluster name, derived from that folder, and random ports (free_ports) keep two
# checkouts (or the demo and the e2e suite) on one machine apart.
#
#   hack/local-cluster.sh up        # cluster + node, kubeconfig in .kwok/kubeconfig
#   hack/local-cluster.sh olm-up    # OLM CRDs (and Prometheus Operator's), namespaces, global OperatorGroup, OLM processes
#   hack/local-cluster.sh olmv1-up  # OLM v1 (catalogd, operator-controller) in the cluster (real node)
#   hack/local-cluster.sh down      # stop OLM, delete the cluster
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bin
export KWOK_WORKDIR=${LOCAL_CLUSTER_DIR:-$root/.kwok}
cluster=foo-$(printf '%s' "$KWOK_WORKDIR" | cksum | cut -d' ' -f1)
kubeconfig=$KWOK_WORKDIR/kubeconfig
kubectl=("$bin/kubectl" --kubeconfig "$kubeconfig")
node_kind=${LOCAL_CLUSTER_NODE:-kwok}
real_taint=foo-operator.example.com/real-node=:NoSchedule
mkdir -p "$KWOK_WORKDIR"
# shellcheck source=hack/ports.sh
. "$root/hack/ports.sh"

up() {
	# metrics-server serves metrics.k8s.io from the pods' usage kwok simulates (the
	# ClusterResourceUsage below), for HorizontalPodAutoscalers; LOCAL_CLUSTER_METRICS_SERVER=false
	# leaves it out (make bench and make test-chaos, whose figures it would only disturb).
	local metrics=()
	if [ "${LOCAL_CLUSTER_METRICS_SERVER:-true}" = true ]; then
		metrics=(--enable metrics-server --metrics-server-binary "$bin/metrics-server" --enable-crds ClusterResourceUsage,ResourceUsage)
	fi
	if "$bin/kwokctl" get clusters 2>/dev/null | grep -qx "$cluster" &&
		{ [ ${#metrics[@]} -eq 0 ] || [ -f "$KWOK_WORKDIR/clusters/$cluster/pids/metrics-server.pid" ]; }; then
		"$bin/kwokctl" start cluster --name "$cluster" >/dev/null 2>&1 || true
	else
		"$bin/kwokctl" delete cluster --name "$cluster" >/dev/null 2>&1 || true # made without metrics-server
		# kwokctl would give each component the first free port below 32768: two clusters
		# created at once (make ci runs the e2e and chaos suites side by side) took the same
		# ones, and one's kubeconfig pointed at the other's API server. So the ports are chosen
		# here (hack/ports.sh).
		local ports
		read -r -a ports <<<"$(free_ports 7)"
		# hack/kwokctl.yaml: the admission plugins of production clusters.
		# LOCAL_CLUSTER_AUDIT_POLICY: an audit policy file for kube-apiserver (make bench).
		# kwokctl runs `kubectl kustomize` on metrics-server's manifests (for its APIService),
		# and would download kubectl and the manifests were they not given; only the first
		# KwokctlConfiguration counts, so the manifests' path joins hack/kwokctl.yaml's.
		{
			cat "$root/hack/kwokctl.yaml"
			if [ "$node_kind" = real ]; then
				# More of kube-apiserver's extraArgs (the file ends with them), then kwok's: the API
				# server reaches the kubelet (logs, exec) at its address with a client certificate,
				# and kwok leaves every node without its annotation alone.
				local pki=$KWOK_WORKDIR/clusters/$cluster/pki
				printf '  - key: %s\n    value: "%s"\n' kubelet-preferred-address-types InternalIP,Hostname \
					kubelet-client-certificate "$pki/admin.crt" kubelet-client-key "$pki/admin.key"
				printf -- '- name: kwok-controller\n  extraArgs:\n'
				printf '  - key: %s\n    value: "%s"\n' manage-all-nodes false \
					manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake
			fi
			# kube-controller-manager and kube-scheduler without leader election: one of each runs,
			# and nothing restarts them, as the kubelet does the static pods of a cluster's control
			# plane. With it, either exits when a renewal of its Lease misses its deadline (10 s),
			# as under the load of suites side by side on 2 cores, and the cluster has no
			# Deployment or HPA controller, or no scheduler, from then on.
			# LOCAL_CLUSTER_KCM_QPS: kube-controller-manager's --kube-api-qps, and twice it its burst
			# (make bench: thousands of Deployments roll out in minutes); its defaults otherwise.
			printf -- '- name: kube-controller-manager\n  extraArgs:\n'
			printf '  - key: %s\n    value: "%s"\n' leader-elect false
			if [ -n "${LOCAL_CLUSTER_KCM_QPS:-}" ]; then
				printf '  - key: %s\n    value: "%s"\n' kube-api-qps "$LOCAL_CLUSTER_KCM_QPS" kube-api-burst "$((2 * LOCAL_CLUSTER_KCM_QPS))"
			fi
			printf -- '- name: kube-scheduler\n  extraArgs:\n'
			printf '  - key: %s\n    value: "%s"\n' leader-elect false
			printf 'options:\n  metricsServerManifests:\n  - %s/manifests/base\n' \
				"$(cd "$root/hack/tools/metrics-server" && go list -m -f '{{.Dir}}' sigs.k8s.io/metrics-server)"
			printf '  %s: %s\n' kubeApiserverPort "${ports[0]}" etcdPort "${ports[1]}" etcdPeerPort "${ports[2]}" \
				kubeControllerManagerPort "${ports[3]}" kubeSchedulerPort "${ports[4]}" kwokControllerPort "${ports[5]}" \
				metricsServerPort "${ports[6]}"
			# Pods reach the API server at the kubernetes Service's address (kube-proxy).
			[ "$node_kind" != real ] || printf '  kubeApiserverCertSANs:\n  - 10.0.0.1\n'
		} >"$KWOK_WORKDIR/kwokctl.yaml"
		PATH="$bin:$PATH" "$bin/kwokctl" create cluster --name "$cluster" --runtime binary "${metrics[@]}" \
			--config "$KWOK_WORKDIR/kwokctl.yaml" ${LOCAL_CLUSTER_AUDIT_POLICY:+--kube-audit-policy "$LOCAL_CLUSTER_AUDIT_POLICY"} \
			--kube-apiserver-binary "$bin/k8s/kube-apiserver" \
			--kube-controller-manager-binary "$bin/k8s/kube-controller-manager" \
			--kube-scheduler-binary "$bin/k8s/kube-scheduler" \
			--etcd-binary "$bin/k8s/etcd" \
			--kwok-controller-binary "$bin/kwok" \
			--kubeconfig "$kubeconfig" \
			--wait 2m >"$KWOK_WORKDIR/kwokctl.log" 2>&1 || { cat "$KWOK_WORKDIR/kwokctl.log" >&2; exit 1; }
	fi
	"$bin/kwokctl" get kubeconfig --name "$cluster" > "$kubeconfig"
	components_up "${#metrics[@]}"
	if [ "$node_kind" = real ]; then
		"$root/hack/real-node.sh" up
		if [ "${LOCAL_CLUSTER_SIMULATED_NODE:-false}" = true ]; then
			kwok_node 0
			"${kubectl[@]}" taint node real-node-0 "$real_taint" --overwrite >/dev/null
		fi
	else
		kwok_node "${#metrics[@]}"
	fi
	echo "Cluster $cluster is up; kubeconfig: $kubeconfig"
}

# components_up METRICS: starts again every process of the control plane that exited, until
# they all run and (METRICS > 0) metrics-server serves. kwokctl starts them all at once, and
# metrics-server exits when kube-apiserver does not accept connections yet; nothing restarts a
# process that exited, and kwokctl takes one that is a zombie (this machine's init does not reap
# them) for one that runs, so its pid file goes before `kwokctl start cluster`.
components_up() {
	local attempt pidfile state exited
	for attempt in 1 2 3; do
		exited=()
		for pidfile in "$KWOK_WORKDIR/clusters/$cluster/pids/"*.pid; do
			state=$(sed 's/.*) //' "/proc/$(cat "$pidfile")/stat" 2>/dev/null | cut -d' ' -f1) || true
			if [ -z "$state" ] || [ "$state" = Z ]; then
				exited+=("$(basename "$pidfile" .pid)")
				rm -f "$pidfile"
			fi
		done
		if [ ${#exited[@]} -gt 0 ]; then
			echo "Starting ${exited[*]} again: exited (attempt $attempt)" >&2
			"$bin/kwokctl" start cluster --name "$cluster" >/dev/null 2>&1
		fi
		[ "$1" -gt 0 ] || return 0
		metrics_served && return 0
	done
	echo "metrics-server does not serve; its log:" >&2
	tail -20 "$KWOK_WORKDIR/clusters/$cluster/logs/metrics-server.log" >&2
	return 1
}

# metrics_served: waits up to 60 s for the metrics API to answer through the aggregator. The
# APIService's Available condition does not tell: the aggregator probes metrics-server every 30 s,
# so the condition stays True for a while after metrics-server exited, and while the one started
# again is not listening yet.
metrics_served() {
	for _ in $(seq 60); do
		"${kubectl[@]}" get --raw /apis/metrics.k8s.io/v1beta1/nodes >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

# kwok_node METRICS: the simulated node, and (METRICS > 0) the usage its pods report.
kwok_node() {
	"${kubectl[@]}" apply --server-side -f - >/dev/null <<NODE
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations:
    kwok.x-k8s.io/node: fake
    metrics.k8s.io/resource-metrics-path: /metrics/nodes/kwok-node-0/metrics/resource
  labels:
    kubernetes.io/hostname: kwok-node-0
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
spec:
  taints: []
status:
  # Room for LOCAL_CLUSTER_NODE_PODS pods of a Foo (10m CPU, 32Mi each): the pod count is the limit.
  allocatable: {cpu: "1k", memory: 4Ti, pods: "${LOCAL_CLUSTER_NODE_PODS:-110}"}
  capacity: {cpu: "1k", memory: 4Ti, pods: "${LOCAL_CLUSTER_NODE_PODS:-110}"}
NODE
	"${kubectl[@]}" wait --for=condition=Ready node/kwok-node-0 --timeout=60s >/dev/null
	if [ "$1" -gt 0 ]; then
		# What every simulated container uses; patch it to simulate load (make demo says how).
		"${kubectl[@]}" apply --server-side -f - >/dev/null <<USAGE
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata:
  name: simulated-usage
spec:
  usages:
  - usage:
      cpu: {value: 1m}
      memory: {value: 16Mi}
USAGE
	fi
}

olm_up() {
	local crds
	crds=$(cd "$root/hack/tools/olm" && go list -m -f '{{.Dir}}' github.com/operator-framework/operator-lifecycle-manager)/deploy/chart/crds
	"${kubectl[@]}" apply --server-side --force-conflicts -f "$crds" >/dev/null
	# Prometheus Operator's ServiceMonitor and PrometheusRule CRDs (make monitoring-crds): the
	# bundle ships those kinds, and OLM installs a bundle only where their CRDs exist, as on
	# OpenShift and on clusters running Prometheus Operator.
	"${kubectl[@]}" apply --server-side --force-conflicts -f "$bin/monitoring-crds" >/dev/null
	"${kubectl[@]}" wait --for=condition=Established crd --all --timeout=60s >/dev/null
	"${kubectl[@]}" apply --server-side -f - >/dev/null <<OLM
apiVersion: v1
kind: Namespace
metadata:
  name: olm
---
apiVersion: v1
kind: Namespace
metadata:
  name: operators
---
apiVersion: operators.coreos.com/v1
kind: OperatorGroup
metadata:
  name: global-operators
  namespace: operators
OLM
	if [ "$node_kind" = real ]; then
		olm_in_cluster "$(dirname "$crds")/../upstream/quickstart/olm.yaml"
		return
	fi
	# With CI set, the olm-operator's client panics on objects without the olm.managed label.
	start_process olm env -u CI KUBECONFIG="$kubeconfig" "$bin/olm" --namespace olm --writeStatusName ""
	start_process catalog env -u CI KUBECONFIG="$kubeconfig" "$bin/catalog" --namespace olm --kubeconfig "$kubeconfig"
	echo "OLM is running; logs in $KWOK_WORKDIR/olm.log and $KWOK_WORKDIR/catalog.log"
}

# olm_in_cluster MANIFEST: OLM deployed from its release manifest (quickstart/olm.yaml of the
# OLM module the Makefile builds) with three changes. Its images are named by tag, not by the
# digest of the public image: hack/images.sh builds them here under those tags, and its
# catalog-operator gets the opm image of the opm the Makefile builds. Its catalog-operator's
# flags are written with one dash ('-namespace'), which that version's command line refuses:
# they get two. The packageserver CSV and the operatorhub.io CatalogSource are left out: the
# first serves the packagemanifests API that no workflow here needs, the second a catalog
# from the internet.
olm_in_cluster() {
	local olm opm
	olm=$(awk '$1=="github.com/operator-framework/operator-lifecycle-manager" {print $2; exit}' "$root/hack/tools/olm/go.mod")
	opm=$(awk '$1=="github.com/operator-framework/operator-registry" {print $2; exit}' "$root/hack/tools/opm/go.mod")
	awk 'BEGIN {RS = "---\n"; ORS = "---\n"} !/\nkind: (ClusterServiceVersion|CatalogSource)\n/' "$1" |
		sed -e "s|quay.io/operator-framework/olm@sha256:[0-9a-f]*|quay.io/operator-framework/olm:$olm|g" \
			-e "s|^\( *\)- -configmapServerImage=.*|&\n\1- --opmImage=quay.io/operator-framework/opm:$opm|" \
			-e "s|^\( *- \)'\?-\([a-zA-Z][a-zA-Z-]*\)'\?\(=.*\)\?$|\1--\2\3|" |
		"${kubectl[@]}" apply --server-side --force-conflicts -f - >/dev/null
	"${kubectl[@]}" -n olm rollout status deployment/olm-operator deployment/catalog-operator --timeout=3m >/dev/null
	echo "OLM $olm runs in the cluster (namespace olm)"
}

# olmv1_up: OLM v1, catalogd and operator-controller, deployed in the cluster as their release
# manifest deploys them: config/overlays/cert-manager of the module the Makefile builds, with
# the release's substitutions (the operator-controller Makefile's quickstart target), and
# the images hack/images.sh builds from their Dockerfiles. What the release takes from
# elsewhere is stood in for:
# - cert-manager: the certificates its olmv1-ca ClusterIssuer would issue are made here with
#   openssl (an ECDSA P-256 CA of this cluster's own) into the Secrets the Certificates
#   name, and the CA goes into catalogd's webhook as cert-manager's cainjector puts it.
# - the mirror of a disconnected cluster: catalogd and operator-controller pull catalogs and
#   bundles themselves (containers/image), not through the node's containerd, so each gets
#   a registries.conf (/etc/containers) that sends every public registry to the local one,
#   and the local registry's CA (with those of registries the node trusts) beside the CA in
#   its --pull-cas-dir.
# OLMV1_FEATURE_GATES, when set, is operator-controller's --feature-gates (for example
# SingleOwnNamespaceInstallSupport=true); olmv1-up again applies a change.
olmv1_up() {
	[ "$node_kind" = real ] || { echo "OLM v1 pulls images itself: it needs the real node (LOCAL_CLUSTER_NODE=real)" >&2; exit 2; }
	local mod version work=$KWOK_WORKDIR/olmv1 ns=olmv1-system registry reg
	read -r mod version < <(cd "$root/hack/tools/operator-controller" && go list -m -f '{{.Dir}} {{.Version}}' github.com/operator-framework/operator-controller)
	registry=$(cat "$KWOK_WORKDIR/registry")
	mkdir -p "$work"
	if [ ! -f "$work/ca.crt" ]; then
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj "/CN=olmv1-ca" \
			-keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
		olmv1_cert "$work" catalogd-service-cert "DNS:localhost,DNS:catalogd-service.$ns.svc,DNS:catalogd-service.$ns.svc.cluster.local"
		olmv1_cert "$work" olmv1-cert "DNS:operator-controller-service.$ns.svc,DNS:operator-controller-service.$ns.svc.cluster.local"
	fi
	{
		printf 'unqualified-search-registries = []\n'
		for reg in docker.io quay.io registry.k8s.io gcr.io registry.access.redhat.com; do
			printf '[[registry]]\nprefix = "%s"\nlocation = "%s"\n' "$reg" "$registry"
		done
	} >"$work/registries.conf"
	"${kubectl[@]}" create namespace "$ns" --dry-run=client -o yaml | "${kubectl[@]}" apply --server-side -f - >/dev/null
	olmv1_secret "$work" "$ns" "catalogd-service-cert-$version" catalogd-service-cert
	olmv1_secret "$work" "$ns" olmv1-cert olmv1-cert
	# The mirror's CA, and those of the registries the node was told to trust (real-node.sh trust).
	cat "$KWOK_WORKDIR/node/pki/registry-ca.crt" "$KWOK_WORKDIR/node/pki/trusted-cas.crt" 2>/dev/null >"$work/registry-cas.crt" || true
	"${kubectl[@]}" -n "$ns" create configmap olmv1-mirror --from-file=registries.conf="$work/registries.conf" \
		--from-file=registry-ca.crt="$work/registry-cas.crt" --dry-run=client -o yaml |
		"${kubectl[@]}" apply --server-side -f - >/dev/null

	# The release manifest without cert-manager's objects, and the changes above as patches.
	"$bin/kustomize" build "$mod/config/overlays/cert-manager" |
		sed -e "s/cert-git-version/cert-$version/g" -e "s/:devel/:$version/g" |
		awk 'BEGIN {RS = "---\n"; ORS = "---\n"} !/\nkind: (Certificate|Issuer|ClusterIssuer)\n/' >"$work/release.yaml"
	{
		printf 'resources: [release.yaml]\npatches:\n'
		printf -- '- target: {kind: MutatingWebhookConfiguration, name: catalogd-mutating-webhook-configuration}\n'
		printf '  patch: |\n    - {op: add, path: /webhooks/0/clientConfig/caBundle, value: %s}\n' "$(base64 -w0 <"$work/ca.crt")"
		olmv1_mirror_patch catalogd-controller-manager "catalogd-service-cert-$version" '[{key: ca.crt, path: olm-ca.crt}]'
		olmv1_mirror_patch operator-controller-controller-manager olmv1-cert \
			'[{key: ca.crt, path: olm-ca.crt}, {key: tls.crt, path: tls.cert}, {key: tls.key, path: tls.key}]'
		if [ -n "${OLMV1_FEATURE_GATES:-}" ]; then
			printf -- '- target: {kind: Deployment, name: operator-controller-controller-manager}\n'
			printf '  patch: |\n    - {op: add, path: /spec/template/spec/containers/0/args/-, value: --feature-gates=%s}\n' "$OLMV1_FEATURE_GATES"
		fi
	} >"$work/kustomization.yaml"
	"$bin/kustomize" build "$work" | "${kubectl[@]}" apply --server-side --force-conflicts -f - >/dev/null
	"${kubectl[@]}" -n "$ns" rollout status deployment/catalogd-controller-manager deployment/operator-controller-controller-manager --timeout=3m >/dev/null
	echo "OLM v1 $version runs in the cluster (namespace $ns)"
}

# olmv1_cert DIR NAME SANS: a serving certificate of the OLM v1 CA in DIR for SANS, in
# DIR/NAME.crt and DIR/NAME.key.
olmv1_cert() {
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$2" \
		-keyout "$1/$2.key" -out "$1/$2.csr" 2>/dev/null
	openssl x509 -req -in "$1/$2.csr" -CA "$1/ca.crt" -CAkey "$1/ca.key" -CAcreateserial -days 30 \
		-extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$3") -out "$1/$2.crt" 2>/dev/null
}

# olmv1_secret DIR NAMESPACE SECRET CERT: the Secret cert-manager would write for CERT.
olmv1_secret() {
	"${kubectl[@]}" -n "$2" create secret generic "$3" --type kubernetes.io/tls --from-file=ca.crt="$1/ca.crt" \
		--from-file=tls.crt="$1/$4.crt" --from-file=tls.key="$1/$4.key" --dry-run=client -o yaml |
		"${kubectl[@]}" apply --server-side -f - >/dev/null
}

# olmv1_mirror_patch DEPLOYMENT SECRET ITEMS: a patch that mounts the mirror's
# registries.conf into DEPLOYMENT and adds the registry's CA to its certificate volume (the
# directory of --pull-cas-dir), which otherwise holds ITEMS of SECRET.
olmv1_mirror_patch() {
	cat <<PATCH
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: $1, namespace: olmv1-system}
    spec:
      template:
        spec:
          containers:
          - name: manager
            volumeMounts:
            - {name: mirror, mountPath: /etc/containers, readOnly: true}
          volumes:
          - name: olmv1-certificate
            secret: null
            projected:
              sources:
              - secret: {name: $2, items: $3}
              - configMap: {name: olmv1-mirror, items: [{key: registry-ca.crt, path: registry-ca.crt}]}
          - name: mirror
            configMap: {name: olmv1-mirror, items: [{key: registries.conf, path: registries.conf}]}
PATCH
}

# start_process NAME CMD...: run CMD in the background unless it already runs, with its pid
# in .kwok/NAME.pid and its output in .kwok/NAME.log.
start_process() {
	local name=$1 pidfile=$KWOK_WORKDIR/$1.pid
	shift
	if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
		return
	fi
	nohup "$@" >"$KWOK_WORKDIR/$name.log" 2>&1 &
	echo $! >"$pidfile"
}

stop_process() {
	local pidfile=$KWOK_WORKDIR/$1.pid
	if [ -f "$pidfile" ]; then
		kill "$(cat "$pidfile")" 2>/dev/null || true
		rm -f "$pidfile"
	fi
}

down() {
	for p in operator opm olm catalog; do stop_process "$p"; done
	[ ! -d "$KWOK_WORKDIR/node" ] || "$root/hack/real-node.sh" down
	"$bin/kwokctl" delete cluster --name "$cluster" >/dev/null 2>&1 || true
	rm -rf "$KWOK_WORKDIR"
	echo "Cluster $cluster is gone"
}

case "${1:-}" in
up) up ;;
olm-up) olm_up ;;
olmv1-up) olmv1_up ;;
down) down ;;
*) echo "usage: $0 up|olm-up|olmv1-up|down" >&2; exit 2 ;;
esac
