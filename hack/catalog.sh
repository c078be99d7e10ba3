#!/usr/bin/env bash
# Renders an opm basic catalog template into file-based catalog content, as a release does:
# `opm alpha render-template basic` reads each bundle of the template from its image, and
# --migrate-level=bundle-object-to-csv-metadata stores it as olm.csv.metadata (what OLM v1 and
# the console read) rather than as inline olm.bundle.object properties (deprecated).
#
#   hack/catalog.sh TEMPLATE OUTPUT IMAGE=CONTEXT...
#
# opm pulls each IMAGE, and nothing can be pulled from a public registry here. So each bundle
# image is built from CONTEXT (a directory holding bundle/) as bundle.Dockerfile says, by
# push_bundle, and pushed to a registry of its own on loopback, and opm runs with a
# registries.conf and the registry's certificate of its own (in a HOME of its own: opm reads
# no other setting for them) that send the images' repositories there. The catalog names
# the images as the template does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bin
# shellcheck source=hack/ports.sh
. "$root/hack/ports.sh"
template=$1 output=$2
shift 2

work=$(mktemp -d)
trap 'kill "$(cat "$work/registry.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT

# The registry, with TLS that opm verifies: a self-signed certificate, trusted in opm's HOME.
port=$(free_ports 1)
certs=$work/home/.config/containers/certs.d/127.0.0.1:$port
mkdir -p "$certs"
# The signature policy opm's containers/image requires before it pulls: Debian's
# containers-common installs one in /etc/containers, which a machine with only Go lacks. The
# same as that default: the images are this script's own, on loopback.
printf '{"default": [{"type": "insecureAcceptAnything"}]}\n' >"$work/home/.config/containers/policy.json"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=foo-operator catalog registry" \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$work/registry.key" -out "$certs/ca.crt" 2>/dev/null
cat >"$work/registry.yaml" <<EOF
version: 0.1
storage:
  filesystem: {rootdirectory: $work/registry}
http:
  addr: 127.0.0.1:$port
  tls: {certificate: $certs/ca.crt, key: $work/registry.key}
EOF
OTEL_TRACES_EXPORTER=none "$bin/registry" serve "$work/registry.yaml" >"$work/registry.log" 2>&1 &
echo $! >"$work/registry.pid"
for _ in $(seq 60); do
	curl -sf --cacert "$certs/ca.crt" "https://127.0.0.1:$port/v2/" >/dev/null && break
	sleep 0.5
done
curl -sf --cacert "$certs/ca.crt" "https://127.0.0.1:$port/v2/" >/dev/null ||
	{ echo "catalog: the registry did not start" >&2; cat "$work/registry.log" >&2; exit 1; }

# push_bundle IMAGE CONTEXT builds the bundle image of CONTEXT as bundle.Dockerfile describes
# it (FROM scratch: its COPYs as one layer, its LABELs) and pushes it to the registry under
# IMAGE's repository, with crane: no container engine, so make catalog needs no root.
push_bundle() {
	local image=$1 context=$2 layer=$work/layer ref=127.0.0.1:$port/${1#*/} labels=() verb arg dst
	rm -rf "$layer" && mkdir -p "$layer"
	while read -r verb arg dst; do
		case $verb in
		COPY) mkdir -p "$layer/$dst" && cp -R "$context/$arg/." "$layer/$dst" ;;
		LABEL) labels+=(--label "$arg") ;;
		esac
	done <"$root/bundle.Dockerfile"
	tar -C "$layer" -cf "$work/layer.tar" .
	SSL_CERT_FILE=$certs/ca.crt "$bin/crane" append -f "$work/layer.tar" -t "$ref" >/dev/null
	SSL_CERT_FILE=$certs/ca.crt "$bin/crane" mutate "$ref" "${labels[@]}" -t "$ref" >/dev/null
}

for arg in "$@"; do
	image=${arg%%=*} context=${arg#*=}
	push_bundle "$image" "$context"
	# Its repository only (containers/image matches a prefix against the name without the
	# tag): a bundle of another repository is pulled from where the template names it.
	repository=${image%:*}
	printf '[[registry]]\nprefix = "%s"\nlocation = "127.0.0.1:%s/%s"\n' "$repository" "$port" "${repository#*/}"
done >"$work/home/.config/containers/registries.conf"

HOME=$work/home "$bin/opm" alpha render-template basic "$template" \
	--migrate-level=bundle-object-to-csv-metadata --output=yaml >"$work/catalog.yaml"
mv "$work/catalog.yaml" "$output"
