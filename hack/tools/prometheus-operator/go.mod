// Tools module for Prometheus Operator's CRDs (monitoring.coreos.com ServiceMonitor and
// PrometheusRule, from the module's example/prometheus-operator-crd): the bundle ships those
// kinds, and test/e2e installs the CRDs on its clusters, as a cluster with Prometheus Operator
// has them. Nothing here is built, so `go mod tidy` would drop the requirement: edit by hand.
module github.com/example/foo-operator/hack/tools/prometheus-operator

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.93.1
