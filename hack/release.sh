#!/usr/bin/env bash
# make release: releases VERSION of the operator to the registry of IMAGE_TAG_BASE, in
# operator-sdk's order, on a copy of the tree in RELEASE_DIR (the committed bundle/ and
# catalog/ stay this project's):
#   1. the operator image IMAGE_TAG_BASE:vVERSION, built and pushed;
#   2. the custom scorecard tests' image IMAGE_TAG_BASE-scorecard-tests:vVERSION, the same;
#   3. the bundle generated for those images (by digest with USE_IMAGE_DIGESTS=true, resolved
#      in the registry after the pushes), then IMAGE_TAG_BASE-bundle:vVERSION built and pushed;
#   4. the catalog rendered by opm from the pushed bundle image and the template's other
#      bundles (config/catalog/template.yaml, its images moved from this project's registry to
#      IMAGE_TAG_BASE's), then IMAGE_TAG_BASE-catalog:vVERSION built and pushed.
# Every check that needs no registry runs before the first push; each image's digest is read
# back from the registry after its push, so that a push the registry did not keep stops the
# release; the catalog, the
# image users subscribe to, is pushed last: a failed release leaves no catalog naming an image
# that is not there. A failure is one line on stderr, the tools' output in RELEASE_DIR.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
: "${IMAGE_TAG_BASE:?}" "${PUBLISHED_IMAGE_TAG_BASE:?}" "${VERSION:?}" "${CONTAINER_TOOL:?}" \
	"${RELEASE_DIR:?}" "${LOCALBIN:?}" "${CRANE:?}" "${PACKAGE:?}" "${CATALOG_TEMPLATE:?}"
USE_IMAGE_DIGESTS=${USE_IMAGE_DIGESTS:-false}

csv=$PACKAGE.v$VERSION
operator=$IMAGE_TAG_BASE:v$VERSION
scorecard=$IMAGE_TAG_BASE-scorecard-tests:v$VERSION
bundle=$IMAGE_TAG_BASE-bundle:v$VERSION
catalog=$IMAGE_TAG_BASE-catalog:v$VERSION
stage=$RELEASE_DIR
log=${RELEASE_DIR%/}.log
pushed=()
logged= # set once the tools write to the log

fail() {
	local done="nothing was pushed" output=""
	[ ${#pushed[@]} -eq 0 ] || done="pushed so far: ${pushed[*]}; no catalog was pushed, so nothing is released"
	[ -z "$logged" ] || output="; the tools' output is in $log"
	echo "release: $1 ($done$output)" >&2
	exit 1
}

# run COMMAND...: COMMAND with its output appended to the log; true if it succeeded.
run() { "$@" >>"$log" 2>&1; }

# last_error: the log's last line that is not make's own, to quote in a failure.
last_error() { grep -v -e '^make' -e '^\s*$' "$log" | tail -1; }

# in_stage TARGET... VAR=VALUE...: make in the staged copy, with the tools of this tree.
in_stage() {
	run make -C "$stage" --no-print-directory LOCALBIN="$LOCALBIN" IMAGE_TAG_BASE="$IMAGE_TAG_BASE" \
		VERSION="$VERSION" CONTAINER_TOOL="$CONTAINER_TOOL" "$@"
}

# publish BUILD PUSH REF: builds and pushes REF with the stage's make targets BUILD and PUSH,
# then reads its digest back from the registry (crane, as operator-sdk resolves digests, with
# this machine's registry credentials and CAs) into digest, REF pinned by it.
publish() {
	local build=$1 push=$2 ref=$3
	echo "release: building $ref"
	in_stage "$build" || fail "building $ref failed: $(last_error)"
	echo "release: pushing $ref"
	in_stage "$push" || fail "the registry refused $ref: $(last_error); log in ($CONTAINER_TOOL login ${ref%%/*}) or check IMAGE_TAG_BASE, then run make release again"
	pushed+=("$ref")
	local sha
	sha=$("$CRANE" digest "$ref" 2>>"$log") ||
		fail "$ref is not in the registry after its push ($(last_error)); check the registry, then run make release again"
	digest=${ref%:*}@$sha
}

# pinned REF DIGEST_REF: DIGEST_REF when releasing by digest, else REF.
pinned() { if [ "$USE_IMAGE_DIGESTS" = true ]; then echo "$2"; else echo "$1"; fi; }

# Checks that need no registry.
command -v "${CONTAINER_TOOL%% *}" >/dev/null ||
	fail "${CONTAINER_TOOL%% *} is not installed: install docker or podman, or set CONTAINER_TOOL to the one you have"
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	fail "VERSION=$VERSION is not a semantic version: give x.y.z"
grep -Eq "^[[:space:]]*- name: $csv[[:space:]]*$" "$root/$CATALOG_TEMPLATE" ||
	fail "no channel of $CATALOG_TEMPLATE places $csv: add '- name: $csv' (with replaces: the release before, skipRange:) to the entries of each channel it ships in"

rm -rf "$stage" && mkdir -p "$stage" && : >"$log" && logged=1
tar -C "$root" --exclude=./bin --exclude=./.git --exclude='./.kwok*' --exclude=./.scaffold-test -cf - . | tar -C "$stage" -xf -

publish docker-build docker-push "$operator"
operator_digest=$digest
publish scorecard-image-build scorecard-image-push "$scorecard"
scorecard_digest=$digest

echo "release: generating the bundle"
in_stage bundle IMG="$(pinned "$operator" "$operator_digest")" SCORECARD_IMG="$(pinned "$scorecard" "$scorecard_digest")" \
	USE_IMAGE_DIGESTS="$USE_IMAGE_DIGESTS" || fail "make bundle failed: $(last_error)"
publish bundle-build bundle-push "$bundle"
bundle_ref=$(pinned "$bundle" "$digest")

# The template names this project's bundle images: the release's are in IMAGE_TAG_BASE's
# registry, and this version's is the one just pushed.
template=$stage/$CATALOG_TEMPLATE
sed -i "s|^\([[:space:]]*image: \)$PUBLISHED_IMAGE_TAG_BASE-bundle\([:@]\)|\1$IMAGE_TAG_BASE-bundle\2|" "$template"
if grep -q "^[[:space:]]*image: $bundle$" "$template"; then
	sed -i "s|^\([[:space:]]*image: \)$bundle$|\1$bundle_ref|" "$template"
else
	printf -- '- schema: olm.bundle\n  image: %s\n' "$bundle_ref" >>"$template"
fi
echo "release: rendering the catalog from $bundle_ref"
in_stage catalog CATALOG_SOURCE=registry BUNDLE_REF="$bundle_ref" ||
	fail "rendering the catalog failed: $(last_error); every bundle of $CATALOG_TEMPLATE must be pullable from IMAGE_TAG_BASE's registry"
publish catalog-build catalog-push "$catalog"

echo "release: $csv released: catalog $catalog, bundle $bundle_ref; bundle/ and catalog/ in $stage"
