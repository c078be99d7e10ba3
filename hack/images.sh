#!/usr/bin/env bash
# The container images of the local cluster's real node (hack/real-node.sh), built with
# podman (Debian's package) and pushed to the cluster's registry (distribution). Nothing can
# be pulled from a public registry on a machine without internet, so the images that
# operator-sdk, OLM and the operator refer to are built here from what the Makefile built
# into bin/ and from Debian's packages, and stored under the same repository and tag that
# the manifests name: the registry is the cluster's mirror of docker.io, quay.io and
# registry.k8s.io, as a disconnected cluster's mirror is.
#
#   hack/images.sh base                         # the stand-ins for public images (below)
#                                               # that every cluster runs, then by group:
#   hack/images.sh olm                          # OLM v0's and opm's (make demo's)
#   hack/images.sh olmv1                        # OLM v1's
#   hack/images.sh sdk                          # operator-sdk's: run bundle, scorecard (after olm)
#   hack/images.sh build REF DOCKERFILE CONTEXT # a project image (operator, bundle, catalog)
#   hack/images.sh operator REF                 # the operator image, as ./Dockerfile builds it
#   hack/images.sh podman ARGS...               # podman on this storage (a CONTAINER_TOOL for make)
#
# REGISTRY (host:port, from hack/real-node.sh) is where images are pushed; the repository
# is the reference's path without its registry host (quay.io/example/foo is example/foo).
#
# The stand-ins, and how each differs from the public image it replaces:
#   registry.k8s.io/pause:3.10.1          hack/images/pause, statically linked Go
#   docker.io/library/busybox:1.35.0      Debian's busybox-static 1.35.0
#   docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine and :1.29.1-alpine
#                                         Debian's nginx 1.22 with its libraries, uid 101,
#                                         port 8080, pid and temporary files in /tmp (as
#                                         nginx-unprivileged); the page names the tag, so
#                                         the two differ as an upgrade's operand does
#   quay.io/operator-framework/opm:v1.65.0 bin/opm (without cgo) + grpc_health_probe on busybox
#   quay.io/operator-framework/olm:v0.38.0 olm, catalog and cpb on busybox
#   quay.io/example/empty-index:v1.65.0   no public counterpart: an empty file-based catalog
#                                         on the opm image, operator-sdk run bundle's index
#   quay.io/operator-framework/catalogd:v1.2.0 and operator-controller:v1.2.0
#                                         OLM v1's binaries (make olmv1-tools) in the images of
#                                         their own Dockerfiles, on the distroless stand-in
#   quay.io/operator-framework/scorecard-test:v1.42.2
#                                         scorecard-test at operator-sdk's version
#   quay.io/operator-framework/scorecard-untar:v1.42.2 and scorecard-storage:v1.42.2
#                                         operator-sdk's Dockerfiles on the stand-ins above
#                                         (upstream, make scorecard's defaults pin them by digest)
#   registry.k8s.io/coredns/coredns:v1.13.1 CoreDNS built from its module
#   registry.access.redhat.com/ubi9/ubi:9.7 the busybox above (operator-sdk run bundle's
#                                         decompression image: sh, cat, gzip)
#   gcr.io/distroless/static:nonroot      /etc/passwd and /etc/group with nonroot (65532)
#                                         and the host's CA certificates
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bin
# podman's storage and the registry's. podman records this absolute path in its database: a bin/
# copied to another checkout needs its images/ removed (rm -rf bin/images), and built again.
state=$bin/images
mkdir -p "$state"

# podman with its own storage under bin/images and runc (crun refuses this machine's
# hybrid cgroups); rlimits cannot be raised here, so its defaults are lowered to what is.
cat >"$state/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "none"
[engine.runtimes]
runc = ["/usr/sbin/runc"]
EOF
podman() {
	CONTAINERS_CONF=$state/containers.conf command podman --root "$state/storage" \
		--runroot "$state/run" --storage-driver overlay "$@"
}

# build REF DOCKERFILE CONTEXT: build offline (no pull, no network) and push to REGISTRY.
build() {
	local ref=$1 dockerfile=$2 context=$3
	podman build --quiet --pull=never --network=none -t "$ref" -f "$dockerfile" "$context" >/dev/null
	if [ -n "${REGISTRY:-}" ]; then
		podman push --quiet --tls-verify=false "$ref" "docker://$REGISTRY/${ref#*/}"
	fi
}

# stage DIR: an empty build context.
stage() {
	rm -rf "$1" && mkdir -p "$1"
}

# deb PACKAGE=VERSION DIR: the files of Debian's package at that version extracted into DIR.
deb() {
	local debs=$state/debs version=${1#*=}
	# The file's name, as apt-get download writes it: an epoch's colon as %3a.
	local file=${1%%=*}_${version//:/%3a}_$(dpkg --print-architecture).deb
	mkdir -p "$debs"
	[ -f "$debs/$file" ] || (cd "$debs" && apt-get download "$1" >/dev/null 2>&1) ||
		{ echo "apt-get download $1 failed" >&2; exit 1; }
	dpkg-deb -x "$debs/$file" "$2"
}

# libs BINARY ROOTFS: the shared libraries BINARY loads, copied from the host into ROOTFS.
libs() {
	ldd "$1" | awk '/=>/ {print $3} /^\t\// {print $1}' | while read -r lib; do
		mkdir -p "$2$(dirname "$lib")"
		cp -L "$lib" "$2$lib"
	done
}

base() {
	local ctx=$state/ctx

	stage "$ctx/pause"
	(cd "$root" && CGO_ENABLED=0 go build -ldflags "-s -w" -o "$ctx/pause/pause" ./hack/images/pause)
	printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$ctx/pause/Dockerfile"
	build registry.k8s.io/pause:3.10.1 "$ctx/pause/Dockerfile" "$ctx/pause"

	stage "$ctx/busybox"
	deb busybox-static=1:1.35.0-4+deb12u1+b1 "$ctx/busybox/deb"
	mkdir -p "$ctx/busybox/rootfs/bin" "$ctx/busybox/rootfs/tmp" "$ctx/busybox/rootfs/etc"
	chmod 1777 "$ctx/busybox/rootfs/tmp"
	cp "$ctx/busybox/deb/bin/busybox" "$ctx/busybox/rootfs/bin/"
	for applet in $("$ctx/busybox/rootfs/bin/busybox" --list); do
		[ "$applet" = busybox ] || ln -sf busybox "$ctx/busybox/rootfs/bin/$applet"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$ctx/busybox/rootfs/etc/passwd"
	printf 'root:x:0:\nnobody:x:65534:\n' >"$ctx/busybox/rootfs/etc/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$ctx/busybox/rootfs/etc/hosts"
	printf 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/local/bin:/usr/bin:/bin\nCMD ["sh"]\n' >"$ctx/busybox/Dockerfile"
	build docker.io/library/busybox:1.35.0 "$ctx/busybox/Dockerfile" "$ctx/busybox"

	stage "$ctx/distroless"
	mkdir -p "$ctx/distroless/rootfs/etc/ssl/certs" "$ctx/distroless/rootfs/tmp"
	chmod 1777 "$ctx/distroless/rootfs/tmp"
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$ctx/distroless/rootfs/etc/passwd"
	printf 'root:x:0:\nnonroot:x:65532:\n' >"$ctx/distroless/rootfs/etc/group"
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/distroless/rootfs/etc/ssl/certs/"
	printf 'FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n' >"$ctx/distroless/Dockerfile"
	build gcr.io/distroless/static:nonroot "$ctx/distroless/Dockerfile" "$ctx/distroless"

	local tag
	for tag in 1.28.0-alpine 1.29.1-alpine; do
		stage "$ctx/nginx"
		deb nginx=1.22.1-9+deb12u7 "$ctx/nginx/deb"
		local rootfs=$ctx/nginx/rootfs
		mkdir -p "$rootfs/usr/sbin" "$rootfs/etc/nginx" "$rootfs/usr/share/nginx/html" "$rootfs/tmp"
		chmod 1777 "$rootfs/tmp"
		cp "$ctx/nginx/deb/usr/sbin/nginx" "$rootfs/usr/sbin/"
		libs "$rootfs/usr/sbin/nginx" "$rootfs"
		printf 'root:x:0:0:root:/root:/sbin/nologin\nnginx:x:101:101:nginx:/nonexistent:/sbin/nologin\n' >"$rootfs/etc/passwd"
		printf 'root:x:0:\nnginx:x:101:\n' >"$rootfs/etc/group"
		cat >"$rootfs/etc/nginx/nginx.conf" <<'EOF'
worker_processes 1;
pid /tmp/nginx.pid;
error_log stderr notice;
events { worker_connections 256; }
http {
    client_body_temp_path /tmp/client_temp;
    proxy_temp_path /tmp/proxy_temp;
    fastcgi_temp_path /tmp/fastcgi_temp;
    uwsgi_temp_path /tmp/uwsgi_temp;
    scgi_temp_path /tmp/scgi_temp;
    access_log /dev/stdout;
    default_type text/html;
    server {
        listen 8080;
        root /usr/share/nginx/html;
        location / { index index.html; }
    }
}
EOF
		printf '<!DOCTYPE html>\n<title>nginx-unprivileged %s</title>\n<p>Served by nginx-unprivileged:%s (a stand-in built by hack/images.sh).</p>\n' \
			"$tag" "$tag" >"$rootfs/usr/share/nginx/html/index.html"
		printf 'FROM scratch\nCOPY rootfs/ /\nEXPOSE 8080\nUSER 101:101\nSTOPSIGNAL SIGQUIT\nENTRYPOINT ["/usr/sbin/nginx", "-e", "stderr", "-g", "daemon off;"]\n' >"$ctx/nginx/Dockerfile"
		build "docker.io/nginxinc/nginx-unprivileged:$tag" "$ctx/nginx/Dockerfile" "$ctx/nginx"
	done

	stage "$ctx/coredns"
	cp "$bin/coredns" "$ctx/coredns/"
	printf 'FROM scratch\nCOPY coredns /coredns\nUSER 65532:65532\nENTRYPOINT ["/coredns"]\n' >"$ctx/coredns/Dockerfile"
	build registry.k8s.io/coredns/coredns:v1.13.1 "$ctx/coredns/Dockerfile" "$ctx/coredns"
}

# olm: OLM v0 and opm (the catalog images' base).
olm() {
	local ctx=$state/ctx
	stage "$ctx/opm"
	cp "$bin/opm" "$bin/grpc_health_probe" "$ctx/opm/"
	printf 'FROM docker.io/library/busybox:1.35.0\nCOPY opm grpc_health_probe /bin/\nUSER 1001\nENTRYPOINT ["/bin/opm"]\nCMD ["--help"]\n' >"$ctx/opm/Dockerfile"
	build quay.io/operator-framework/opm:v1.65.0 "$ctx/opm/Dockerfile" "$ctx/opm"

	stage "$ctx/olm"
	cp "$bin/olm" "$bin/catalog" "$bin/cpb" "$ctx/olm/"
	printf 'FROM docker.io/library/busybox:1.35.0\nCOPY olm catalog cpb /bin/\nUSER 1001\n' >"$ctx/olm/Dockerfile"
	build quay.io/operator-framework/olm:v0.38.0 "$ctx/olm/Dockerfile" "$ctx/olm"
}

# olmv1: OLM v1, each binary in the image its module's own Dockerfile builds.
olmv1() {
	local ctx=$state/ctx olmv1 version component
	olmv1=$(cd "$root/hack/tools/operator-controller" && go list -m -f '{{.Dir}} {{.Version}}' github.com/operator-framework/operator-controller)
	read -r olmv1 version <<<"$olmv1"
	for component in catalogd operator-controller; do
		stage "$ctx/$component"
		cp "$bin/$component" "$ctx/$component/"
		build "quay.io/operator-framework/$component:$version" "$olmv1/Dockerfile.$component" "$ctx/$component"
	done
}

# sdk: what operator-sdk run bundle and scorecard run.
sdk() {
	local ctx=$state/ctx
	# run bundle's default --index-image.
	build quay.io/operator-framework/opm:latest "$ctx/opm/Dockerfile" "$ctx/opm"
	# An empty file-based catalog on the opm image: what `operator-sdk run bundle` takes as
	# --index-image where its default (opm:latest, pulled from quay.io by the CLI itself to
	# read its labels) cannot be reached. Without the configs label, the CLI would take the
	# image for a deprecated SQLite index.
	mkdir -p "$ctx/opm/configs"
	printf 'FROM quay.io/operator-framework/opm:v1.65.0\nCOPY configs /configs\nLABEL operators.operatorframework.io.index.configs.v1=/configs\n' >"$ctx/opm/index.Dockerfile"
	build quay.io/example/empty-index:v1.65.0 "$ctx/opm/index.Dockerfile" "$ctx/opm"
	# run bundle's --decompression-image default: its registry pod's init container needs
	# sh, cat and gzip, which busybox has.
	printf 'FROM docker.io/library/busybox:1.35.0\n' >"$ctx/busybox/ubi.Dockerfile"
	build registry.access.redhat.com/ubi9/ubi:9.7 "$ctx/busybox/ubi.Dockerfile" "$ctx/busybox"

	stage "$ctx/scorecard"
	cp "$bin/scorecard-test" "$ctx/scorecard/"
	printf 'FROM docker.io/library/busybox:1.35.0\nCOPY scorecard-test /usr/local/bin/\nUSER 1001\nENTRYPOINT ["/usr/local/bin/scorecard-test"]\n' >"$ctx/scorecard/Dockerfile"
	build quay.io/operator-framework/scorecard-test:v1.42.2 "$ctx/scorecard/Dockerfile" "$ctx/scorecard"
	# The scorecard pod's init container and storage sidecar (make scorecard's
	# SCORECARD_UNTAR_IMAGE, SCORECARD_STORAGE_IMAGE), from operator-sdk's own Dockerfiles: uid
	# 1001, as Pod Security restricted needs. The storage one's busybox is our 1.35.0.
	local sdk
	sdk=$(cd "$root/hack/tools/operator-sdk" && go list -m -f '{{.Dir}}' github.com/operator-framework/operator-sdk)
	build quay.io/operator-framework/scorecard-untar:v1.42.2 "$sdk/images/scorecard-untar/Dockerfile" "$ctx/scorecard"
	sed 's|^FROM docker.io/busybox:1.36|FROM docker.io/library/busybox:1.35.0|' "$sdk/images/scorecard-storage/Dockerfile" >"$ctx/scorecard/storage.Dockerfile"
	build quay.io/operator-framework/scorecard-storage:v1.42.2 "$ctx/scorecard/storage.Dockerfile" "$ctx/scorecard"
}

# operator REF: the operator image, as make docker-build builds it.
operator() {
	(cd "$root" && make --no-print-directory docker-build IMG="$1" CONTAINER_TOOL="$0 podman" >/dev/null)
	if [ -n "${REGISTRY:-}" ]; then
		podman push --quiet --tls-verify=false "$1" "docker://$REGISTRY/${1#*/}"
	fi
}

case "${1:-}" in
base) base ;;
olm) olm ;;
olmv1) olmv1 ;;
sdk) sdk ;;
build) build "$2" "$3" "$4" ;;
operator) operator "$2" ;;
podman) shift && podman "$@" ;;
*) echo "usage: $0 base | olm | olmv1 | sdk | build REF DOCKERFILE CONTEXT | operator REF | podman ARGS..." >&2; exit 2 ;;
esac
