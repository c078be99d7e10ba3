# The image of the operator's custom scorecard tests (test/scorecard), which
# bundle/tests/scorecard/config.yaml runs in the suite "foo". `make scorecard-image-build`
# builds the program on the host first, as make docker-build does the manager.
FROM gcr.io/distroless/static:nonroot
ARG TARGETARCH
COPY bin/linux_${TARGETARCH}/foo-scorecard-tests /usr/local/bin/foo-scorecard-tests
USER 65532:65532

ENTRYPOINT ["/usr/local/bin/foo-scorecard-tests"]
