# The operator image: the manager on distroless/static, which has no shell and runs as uid
# 65532. `make docker-build` builds the manager on the host first (statically linked, for
# linux/$TARGETARCH, with the Go toolchain and module cache the rest of the project uses), so
# the image build itself needs no network and no builder image.
FROM gcr.io/distroless/static:nonroot
ARG TARGETARCH
WORKDIR /
COPY bin/linux_${TARGETARCH}/manager .
USER 65532:65532

ENTRYPOINT ["/manager"]
