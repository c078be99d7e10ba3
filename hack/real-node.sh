#!/usr/bin/env bash
# A real node for the local control plane of hack/local-cluster.sh: containerd and runc
# (Debian's packages: no Go module builds a container runtime's setuid-free runc and its
# shim as Debian ships them), the kubelet and kube-proxy (built from k8s.io/kubernetes at
# the control plane's version), the CNI bridge and host-local plugins (Debian's
# containernetworking-plugins), cluster DNS (CoreDNS, from its module) and an image
# registry (distribution, from its module) that containerd uses as the mirror of every
# public registry the manifests name (hack/images.sh fills it).
#
#   hack/real-node.sh check   # what the host lacks to run containers, one line, exit 3
#   hack/real-node.sh up      # registry, then containerd + kubelet + kube-proxy, then DNS
#   hack/real-node.sh down    # everything up made: processes, containers, mounts, cgroups,
#                             # iptables chains, the bridge, the state directory
#   hack/real-node.sh leftovers # what of that is still there (exit 1 if anything)
#   hack/real-node.sh trust HOST:PORT CA # pull from the registry HOST:PORT directly (not through
#                             # the mirror), trusting CA, as a cluster admin sets up a
#                             # private registry; OLM v1 (olmv1-up after this) trusts CA too
#
# The host is left as it was. containerd, the kubelet and kube-proxy run in a mount
# namespace of their own (the "node"): the kernel settings the kubelet and kube-proxy write
# (vm.overcommit_memory, kernel.panic, kernel.panic_on_oops, ...) land in files mounted
# over them there, and the paths they insist on (/var/lib/kubelet, /var/log, /run/netns,
# /run/containerd) are the node directory's. Only one real node runs on a machine:
# kube-proxy's iptables chains and the kubelet's port are global.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bin
# shellcheck source=hack/ports.sh
. "$root/hack/ports.sh"
dir=${LOCAL_CLUSTER_DIR:-$root/.kwok}
node=$dir/node
kubeconfig=$dir/kubeconfig
kubectl=("$bin/kubectl" --kubeconfig "$kubeconfig")
owner=/run/foo-operator-real-node # which cluster directory the machine's real node is
name=real-node-0
bridge=foo0
pod_cidr=10.244.0.0/24
service_cidr=10.0.0.0/24 # kube-apiserver's default, which kwokctl keeps
dns_ip=10.0.0.10
runc=${RUNC:-/usr/sbin/runc} # Debian's; crun refuses hybrid cgroup layouts

fail() {
	echo "real node: $*" >&2
	exit 3
}

# check stops at the first thing the host lacks, saying how to get it.
check() {
	[ "$(uname -s)" = Linux ] || fail "containers need Linux; use the simulated node (LOCAL_CLUSTER_NODE=kwok)"
	[ "$(id -u)" = 0 ] || fail "containerd, the kubelet and iptables need root; run as root or use the simulated node (LOCAL_CLUSTER_NODE=kwok)"
	local cmd
	for cmd in containerd:containerd containerd-shim-runc-v2:containerd ctr:containerd podman:podman iptables:iptables unshare:util-linux nsenter:util-linux openssl:openssl; do
		command -v "${cmd%%:*}" >/dev/null || fail "${cmd%%:*} is missing: make node-packages (installs Debian's ${cmd#*:})"
	done
	[ -x "$runc" ] || fail "$runc is missing: make node-packages (installs Debian's runc)"
	[ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] ||
		fail "the CNI plugins are missing from /usr/lib/cni: make node-packages (installs Debian's containernetworking-plugins)"
	grep -qw overlay /proc/filesystems || fail "the kernel has no overlay filesystem (containerd's snapshotter): modprobe overlay"
	[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] || fail "no memory cgroup under /sys/fs/cgroup"
	# The owner file names the checkout whose real node this machine runs. One of another
	# checkout (a second run, or one whose checkout was deleted under it) blocks this one;
	# what a killed run left (none of its processes runs) goes as its own down would take it.
	local other
	other=$(cat "$owner" 2>/dev/null || true)
	if [ -n "$other" ] && [ "$other" != "$dir" ] && ! alive "$other/node"; then
		echo "real node: removing what an interrupted run left in $other" >&2
		LOCAL_CLUSTER_DIR=$other "$0" down >&2
		other=
	fi
	if [ -d /sys/fs/cgroup/memory/kubepods ] && [ -z "$other" ]; then
		fail "another kubelet runs on this machine (/sys/fs/cgroup/memory/kubepods is not ours)"
	fi
	if [ -n "$other" ] && [ "$other" != "$dir" ]; then
		[ -d "$other" ] || fail "the real node of $other runs on this machine, though that directory is gone; stop it first (LOCAL_CLUSTER_DIR=$other hack/real-node.sh down)"
		fail "the real node of $other runs on this machine; stop it first (LOCAL_CLUSTER_DIR=$other hack/local-cluster.sh down)"
	fi
	if [ -z "$other" ] && ip link show "$bridge" >/dev/null 2>&1; then
		fail "the bridge $bridge exists, but no real node of this project runs; if nothing else uses it, remove it (ip link del $bridge)"
	fi
}

# alive NODE_DIR: whether any process the node in NODE_DIR started still runs. Each names a
# file of NODE_DIR on its command line, which outlives the directory and its pid files.
alive() {
	local pidfile
	for pidfile in "$1"/*.pid; do
		[ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && return 0
	done
	pgrep -f "$1/" >/dev/null
}

host_ip() {
	ip -4 -o addr show scope global | awk '{split($4, a, "/"); print a[1]; exit}'
}

# wait_for WHAT SECONDS COMMAND...: retry COMMAND every half second.
wait_for() {
	local what=$1 deadline=$((SECONDS + $2))
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || { echo "real node: $what did not come up; logs in $node/*.log" >&2; tail -n 20 "$node"/*.log >&2; return 1; }
		sleep 0.5
	done
}

up() {
	check
	[ -d "$node" ] && down >/dev/null # what a failed or interrupted run left
	local ip pki cluster_dir server registry_port proxy_ports
	ip=$(host_ip)
	[ -n "$ip" ] || fail "no global IPv4 address on this machine for the node"
	cluster_dir=$(ls -d "$dir"/clusters/*/ | head -1)
	pki=$cluster_dir/pki
	server=$(awk '/server:/ {print $2; exit}' "$kubeconfig")
	mkdir -p "$node"/{pki,containerd,certs.d,cni/net.d,cni/state,kubelet,log,netns,run-containerd,sysctl,registry}
	echo "$dir" >"$owner"

	# The kubelet's identity: system:node:<name> in system:nodes, so the Node authorizer
	# and NodeRestriction treat it as they treat a real node.
	openssl req -new -newkey rsa:2048 -nodes -keyout "$node/pki/kubelet.key" -out "$node/pki/kubelet.csr" \
		-subj "/O=system:nodes/CN=system:node:$name" 2>/dev/null
	openssl x509 -req -in "$node/pki/kubelet.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
		-out "$node/pki/kubelet.crt" -days 30 2>/dev/null
	"$bin/kubectl" config set-cluster local --server "$server" --certificate-authority "$pki/ca.crt" --embed-certs \
		--kubeconfig "$node/kubelet.kubeconfig" >/dev/null
	"$bin/kubectl" config set-credentials kubelet --client-certificate "$node/pki/kubelet.crt" \
		--client-key "$node/pki/kubelet.key" --embed-certs --kubeconfig "$node/kubelet.kubeconfig" >/dev/null
	"$bin/kubectl" config set-context local --cluster local --user kubelet --kubeconfig "$node/kubelet.kubeconfig" >/dev/null
	"$bin/kubectl" config use-context local --kubeconfig "$node/kubelet.kubeconfig" >/dev/null

	# The registry: the images of hack/images.sh, on the host's address so that pods
	# (operator-sdk's registry pod, OLM's unpack Jobs) reach it too.
	# It serves TLS, as registries do (operator-sdk checks an index image over HTTPS whatever
	# its --use-http says), with a certificate of a CA of its own: clients on the host trust
	# $dir/ca-bundle.crt (SSL_CERT_FILE), containerd the CA (hosts.toml).
	registry_port=$(free_ports 1)
	echo "$ip:$registry_port" >"$dir/registry"
	openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=foo-operator local registry CA" \
		-keyout "$node/pki/registry-ca.key" -out "$node/pki/registry-ca.crt" 2>/dev/null
	openssl req -new -newkey rsa:2048 -nodes -subj "/CN=$ip" -keyout "$node/pki/registry.key" \
		-out "$node/pki/registry.csr" 2>/dev/null
	openssl x509 -req -in "$node/pki/registry.csr" -CA "$node/pki/registry-ca.crt" -CAkey "$node/pki/registry-ca.key" \
		-CAcreateserial -days 30 -extfile <(printf 'subjectAltName=IP:%s\n' "$ip") -out "$node/pki/registry.crt" 2>/dev/null
	cat /etc/ssl/certs/ca-certificates.crt "$node/pki/registry-ca.crt" >"$dir/ca-bundle.crt"
	cat >"$node/registry.yaml" <<EOF
version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: $bin/images/registry}
  delete: {enabled: true}
http:
  addr: "$ip:$registry_port"
  tls: {certificate: $node/pki/registry.crt, key: $node/pki/registry.key}
EOF
	OTEL_TRACES_EXPORTER=none nohup "$bin/registry" serve "$node/registry.yaml" >"$node/registry.log" 2>&1 &
	echo $! >"$node/registry.pid"
	wait_for registry 30 curl -sf --cacert "$node/pki/registry-ca.crt" "https://$ip:$registry_port/v2/"
	# LOCAL_CLUSTER_IMAGES: the groups of hack/images.sh built beside base, in order (olm
	# unless set: what make demo and make olm use).
	local group
	for group in base ${LOCAL_CLUSTER_IMAGES-olm}; do
		REGISTRY=$ip:$registry_port "$root/hack/images.sh" "$group"
	done

	# containerd: every registry is mirrored by ours (_default: any registry not named here),
	# with no fallback to the real one, so that traffic stays on this machine.
	local reg
	for reg in _default docker.io quay.io registry.k8s.io gcr.io registry.access.redhat.com "$ip:$registry_port"; do
		mkdir -p "$node/certs.d/$reg"
		printf 'server = "https://%s"\n\n[host."https://%s"]\n  capabilities = ["pull", "resolve"]\n  ca = "%s"\n' \
			"$ip:$registry_port" "$ip:$registry_port" "$node/pki/registry-ca.crt" >"$node/certs.d/$reg/hosts.toml"
	done
	cat >"$node/containerd.toml" <<EOF
version = 2
root = "$node/containerd/root"
state = "$node/containerd/state"
[grpc]
  address = "/run/containerd/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$node/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10.1"
  disable_apparmor = true
  # The container's process may not lower its oom_score_adj here (no CAP_SYS_RESOURCE):
  # without this every sandbox fails with "can't get final child's PID from pipe".
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$runc"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$node/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$node/certs.d"
EOF
	# The pod network: a bridge of our own name, so that down removes only ours.
	cat >"$node/cni/net.d/10-foo.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "foo-pods",
  "plugins": [
    {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$pod_cidr"}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": "$node/cni/state"}},
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "loopback"}
  ]
}
EOF
	# Pods resolve through cluster DNS only; names it does not know fail here, without a
	# query leaving the machine.
	: >"$node/resolv.conf"
	cat >"$node/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# Kubernetes 1.35 refuses cgroup v1 unless told; this machine's controllers are v1.
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
failSwapOn: false
readOnlyPort: 0
address: $ip
healthzBindAddress: 127.0.0.1
healthzPort: 0
podLogsDir: /var/log/pods
resolvConf: $node/resolv.conf
clusterDNS: [$dns_ip]
clusterDomain: cluster.local
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
imageGCHighThresholdPercent: 100
evictionHard: {memory.available: 100Mi}
serializeImagePulls: false
EOF
	read -r -a proxy_ports <<<"$(free_ports 2)"
	cat >"$node/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: $kubeconfig}
hostnameOverride: $name
clusterCIDR: $pod_cidr
bindAddress: $ip
metricsBindAddress: 127.0.0.1:${proxy_ports[0]}
healthzBindAddress: 127.0.0.1:${proxy_ports[1]}
# Every Service connection is masqueraded, so that a pod reaching a Service backed by a pod
# on the same bridge gets its answer back through the host (no bridge sysctl to change).
iptables: {masqueradeAll: true, localhostNodePorts: false}
# Zero: kube-proxy leaves the host's conntrack settings alone.
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF

	# The node's mount namespace: its processes' writes to these paths stay in the node.
	cat >"$node/node.sh" <<EOF
set -eu
mount --make-rprivate /
for f in vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys \
	kernel/keys/root_maxbytes net/ipv4/ip_forward net/ipv4/conf/all/route_localnet net/bridge/bridge-nf-call-iptables \
	net/netfilter/nf_conntrack_max; do
	[ -e /proc/sys/\$f ] || continue
	copy=$node/sysctl/\$(echo \$f | tr / .)
	cat /proc/sys/\$f >\$copy
	mount --bind \$copy /proc/sys/\$f
done
mount --bind $node/kubelet /var/lib/kubelet
mount --bind $node/log /var/log
mount --bind $node/netns /run/netns
mount --bind $node/run-containerd /run/containerd
containerd --config $node/containerd.toml >$node/containerd.log 2>&1 &
echo \$! >$node/containerd.pid
for i in \$(seq 100); do [ -S /run/containerd/containerd.sock ] && break; sleep 0.2; done
$bin/k8s/kubelet --config $node/kubelet.yaml --kubeconfig $node/kubelet.kubeconfig --hostname-override $name \\
	--node-ip $ip --cert-dir $node/pki --root-dir /var/lib/kubelet >$node/kubelet.log 2>&1 &
echo \$! >$node/kubelet.pid
$bin/k8s/kube-proxy --config $node/kube-proxy.yaml >$node/kube-proxy.log 2>&1 &
echo \$! >$node/kube-proxy.pid
wait
EOF
	# Mount points for the node's directories; down removes those it made.
	local d
	for d in /var/lib/kubelet /run/netns /run/containerd; do
		[ -d "$d" ] || { mkdir -p "$d" && echo "$d" >>"$node/made-dirs"; }
	done
	# The pod network's bridge, made here so that forwarding is on for it alone: a pod that
	# reaches a Service backed by a pod on the same bridge is routed back out of it. The
	# host's ip_forward stays as it is (the CNI plugin's write to it lands in the node).
	ip link add "$bridge" type bridge
	ip addr add "${pod_cidr%.*}.1/${pod_cidr#*/}" dev "$bridge"
	ip link set "$bridge" up
	echo 1 >"/proc/sys/net/ipv4/conf/$bridge/forwarding"
	setsid unshare -m --propagation private bash "$node/node.sh" >"$node/node.log" 2>&1 </dev/null &
	echo $! >"$node/node.pid"

	# Service addresses reach only what kube-proxy rewrote (an address of the service range
	# without a Service would otherwise be routed off this machine), and pods reach only
	# this machine: the host (INPUT) and each other (the pod range).
	iptables -N FOO-NODE 2>/dev/null || iptables -F FOO-NODE
	iptables -A FOO-NODE -d "$service_cidr" -j REJECT
	iptables -A FOO-NODE -s "$pod_cidr" ! -d "$pod_cidr" -j REJECT
	iptables -A OUTPUT -j FOO-NODE
	iptables -A FORWARD -j FOO-NODE

	wait_for "the kubelet's node" 90 "${kubectl[@]}" wait --for=condition=Ready "node/$name" --timeout=1s
	dns
	echo "Real node $name is Ready (pods in $pod_cidr, registry $ip:$registry_port)"
}

# dns runs CoreDNS for cluster.local at $dns_ip, answering nothing else. It listens on 1053:
# as a non-root user without the file capability its public image carries, it may not bind 53.
dns() {
	"${kubectl[@]}" apply --server-side -f - >/dev/null <<EOF
apiVersion: v1
kind: ServiceAccount
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
data:
  Corefile: |
    .:1053 {
        errors
        health :8080
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
        }
        cache 30
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      containers:
      - name: coredns
        image: registry.k8s.io/coredns/coredns:v1.13.1
        args: [-conf, /etc/coredns/Corefile]
        ports:
        - {name: dns, containerPort: 1053, protocol: UDP}
        - {name: dns-tcp, containerPort: 1053, protocol: TCP}
        securityContext:
          capabilities: {drop: [ALL]}
          readOnlyRootFilesystem: true
          allowPrivilegeEscalation: false
        readinessProbe: {httpGet: {path: /ready, port: 8181}}
        livenessProbe: {httpGet: {path: /health, port: 8080}}
        volumeMounts: [{name: config, mountPath: /etc/coredns, readOnly: true}]
      volumes: [{name: config, configMap: {name: coredns}}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: $dns_ip
  selector: {k8s-app: kube-dns}
  ports:
  - {name: dns, port: 53, targetPort: dns, protocol: UDP}
  - {name: dns-tcp, port: 53, targetPort: dns-tcp, protocol: TCP}
EOF
	wait_for "cluster DNS" 120 "${kubectl[@]}" -n kube-system rollout status deployment/coredns --timeout=1s
}

# down removes what up made, whatever state a failed or interrupted run left it in.
down() {
	local pid pidfile
	# The node's processes, and every container: they run in the kubepods cgroups and under
	# the shims that our containerd started.
	for pidfile in "$node"/{kube-proxy,kubelet}.pid; do
		[ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
	done
	# The containers' processes are in the kubelet's kubepods cgroups (check refuses to
	# start where another kubelet made them); our shims work in our containerd's state.
	for pid in $(find /sys/fs/cgroup/{memory,pids}/kubepods -name cgroup.procs -exec cat {} + 2>/dev/null); do
		kill -9 "$pid" 2>/dev/null || true
	done
	for pid in $(pgrep containerd-shim 2>/dev/null); do
		case $(readlink "/proc/$pid/cwd" 2>/dev/null) in "$node"/*) kill -9 "$pid" 2>/dev/null || true ;; esac
	done
	for pidfile in "$node"/{containerd,node,registry}.pid; do
		[ -f "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null || true
	done
	# Without pid files (a checkout deleted under a running node), by command line (alive).
	for pid in $(pgrep -f "$node/" 2>/dev/null); do
		kill -9 "$pid" 2>/dev/null || true
	done
	sleep 0.5
	# The kubelet's cgroups (cgroupfs driver), deepest first.
	find /sys/fs/cgroup/*/kubepods -depth -type d -exec rmdir {} + 2>/dev/null || true
	# iptables: kube-proxy removes its own rules; the kubelet's, the CNI plugins' and ours go
	# by name.
	"$bin/k8s/kube-proxy" --cleanup >/dev/null 2>&1 || true
	local ipt table chain
	for ipt in iptables ip6tables; do
		for table in filter nat mangle; do
			"$ipt-save" -t "$table" 2>/dev/null | grep -E '^-A (INPUT|OUTPUT|FORWARD|PREROUTING|POSTROUTING) .*-j (KUBE-|CNI-|FOO-NODE)' |
				sed 's/^-A/-D/' | while read -r rule; do eval "$ipt -t $table $rule" 2>/dev/null || true; done || true
			for chain in $("$ipt-save" -t "$table" 2>/dev/null | awk -F'[: ]' '/^:(KUBE-|CNI-|FOO-NODE)/ {print $2}'); do
				"$ipt" -t "$table" -F "$chain" 2>/dev/null || true
			done
			for chain in $("$ipt-save" -t "$table" 2>/dev/null | awk -F'[: ]' '/^:(KUBE-|CNI-|FOO-NODE)/ {print $2}'); do
				"$ipt" -t "$table" -X "$chain" 2>/dev/null || true
			done
		done
	done
	ip link del "$bridge" 2>/dev/null || true
	[ -f "$node/made-dirs" ] && xargs -r rmdir <"$node/made-dirs" 2>/dev/null || true
	rm -rf "$node" "$dir/registry" "$dir/ca-bundle.crt"
	[ -f "$owner" ] && [ "$(cat "$owner")" = "$dir" ] && rm -f "$owner"
	echo "Real node $name is gone"
}

# leftovers lists what up makes that is still there (one line each), and fails if anything is:
# the check that down removed it all.
leftovers() {
	local found=() ipt table chains pid
	[ ! -e "$node" ] || found+=("the node directory $node")
	[ ! -f "$owner" ] || [ "$(cat "$owner")" != "$dir" ] || found+=("$owner")
	! ip link show "$bridge" >/dev/null 2>&1 || found+=("the bridge $bridge")
	for ipt in iptables ip6tables; do
		for table in filter nat mangle; do
			chains=$("$ipt-save" -t "$table" 2>/dev/null | awk -F'[: ]' '/^:(KUBE-|CNI-|FOO-NODE)/ {print $2}' | tr '\n' ' ')
			[ -z "$chains" ] || found+=("$ipt chains in $table: $chains")
		done
	done
	for d in /sys/fs/cgroup/*/kubepods; do
		[ ! -d "$d" ] || found+=("the cgroup $d")
	done
	for pid in $(pgrep -f "$node/" 2>/dev/null) $(pgrep containerd-shim 2>/dev/null); do
		case "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) $(readlink "/proc/$pid/cwd" 2>/dev/null)" in
		*"$node/"*) found+=("process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")") ;;
		esac
	done
	! grep -q " $node/" /proc/self/mountinfo || found+=("mounts under $node")
	[ ${#found[@]} -eq 0 ] || { printf '%s\n' "${found[@]}"; return 1; }
}

# trust HOST:PORT CA: containerd pulls images named HOST:PORT/... from HOST:PORT itself,
# verifying its certificate with CA; the CA goes into $node/pki/trusted-cas.crt, which
# olmv1-up gives catalogd and operator-controller.
trust() {
	[ -d "$node" ] || fail "no real node in $dir: hack/real-node.sh up first"
	mkdir -p "$node/certs.d/$1"
	cp "$2" "$node/certs.d/$1/ca.crt"
	printf 'server = "https://%s"\n\n[host."https://%s"]\n  capabilities = ["pull", "resolve"]\n  ca = "%s"\n' \
		"$1" "$1" "$node/certs.d/$1/ca.crt" >"$node/certs.d/$1/hosts.toml"
	cat "$2" >>"$node/pki/trusted-cas.crt"
}

case "${1:-}" in
check) check ;;
trust) trust "$2" "$3" ;;
up) up ;;
down) down ;;
leftovers) leftovers ;;
*) echo "usage: $0 check|up|down|leftovers|trust HOST:PORT CA" >&2; exit 2 ;;
esac
