//go:build e2e

/*
Copyright 2026 The Foo Operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/framework/suite"
)

// The monitoring OLM installs from the bundle: its ServiceMonitor and PrometheusRule.
const (
	serviceMonitorName = "foo-operator-controller-manager-metrics-monitor"
	prometheusRuleName = "foo-operator-controller-manager-alerts"
)

// serviceMonitor is what the spec reads of the installed ServiceMonitor: the fields of its
// one endpoint the scrape configuration is made of.
type serviceMonitor struct {
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		Endpoints []struct {
			Port, Path, Scheme string
			HonorLabels        bool `json:"honorLabels"`
			Authorization      struct {
				Type        string                   `json:"type"`
				Credentials corev1.SecretKeySelector `json:"credentials"`
			} `json:"authorization"`
			TLSConfig struct {
				ServerName string `json:"serverName"`
				CA         struct {
					Secret corev1.SecretKeySelector `json:"secret"`
				} `json:"ca"`
			} `json:"tlsConfig"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// installed reads the object name of kind (monitoring.coreos.com/v1) in ns into out.
func installed(ns, kind, name string, out any) {
	GinkgoHelper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: kind})
	Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
	raw, err := json.Marshal(u.Object)
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, out)).To(Succeed())
}

// secretKey waits until the Secret ref of ns has its key, and writes it to a file of dir.
func secretKey(ns string, ref corev1.SecretKeySelector, dir string) string {
	GinkgoHelper()
	var value []byte
	Eventually(func(g Gomega) {
		s := &corev1.Secret{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ref.Name}, s)).To(Succeed())
		value = s.Data[ref.Key]
		g.Expect(value).NotTo(BeEmpty(), "Secret %s has %s", ref.Name, ref.Key)
	}).Should(Succeed())
	path := filepath.Join(dir, ref.Name+"-"+ref.Key)
	Expect(os.WriteFile(path, value, 0o600)).To(Succeed())
	return path
}

// scrapeConfig is the Prometheus scrape configuration of the ServiceMonitor sm of ns, as
// Prometheus Operator generates it for a ServiceMonitor endpoint (its job name, endpoint
// slices of the namespace kept by the Service's labels and the port's name, the job label
// from the Service's name), with the files of its CA and credentials and a kubeconfig for
// the service discovery, which Prometheus Operator would have mounted.
func scrapeConfig(ns string, sm serviceMonitor, ca, token, kubeconfig string) map[string]any {
	e := sm.Spec.Endpoints[0]
	var relabel []map[string]any
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range sm.Spec.Selector.MatchLabels {
			if !yield(k) {
				return
			}
		}
	}) {
		relabel = append(relabel, map[string]any{
			"action": "keep", "regex": sm.Spec.Selector.MatchLabels[k],
			"source_labels": []string{"__meta_kubernetes_service_label_" + strings.NewReplacer(".", "_", "/", "_", "-", "_").Replace(k)},
		})
	}
	relabel = append(relabel,
		map[string]any{"action": "keep", "regex": e.Port, "source_labels": []string{"__meta_kubernetes_endpointslice_port_name"}},
		map[string]any{"source_labels": []string{"__meta_kubernetes_namespace"}, "target_label": "namespace"},
		map[string]any{"source_labels": []string{"__meta_kubernetes_pod_name"}, "target_label": "pod"},
		map[string]any{"source_labels": []string{"__meta_kubernetes_service_name"}, "target_label": "job"},
	)
	return map[string]any{
		"job_name":     fmt.Sprintf("serviceMonitor/%s/%s/0", ns, serviceMonitorName),
		"honor_labels": e.HonorLabels,
		"kubernetes_sd_configs": []map[string]any{{
			"role": "endpointslice", "kubeconfig_file": kubeconfig, "namespaces": map[string]any{"names": []string{ns}},
		}},
		"scheme":          e.Scheme,
		"metrics_path":    e.Path,
		"authorization":   map[string]any{"type": e.Authorization.Type, "credentials_file": token},
		"tls_config":      map[string]any{"ca_file": ca, "server_name": e.TLSConfig.ServerName},
		"relabel_configs": relabel,
	}
}

// promQuery is a Prometheus HTTP API answer: a query's vector, or the alerts.
type promQuery struct {
	Status string `json:"status"`
	Data   struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  []any             `json:"value"`
		} `json:"result"`
		Alerts []promAlert `json:"alerts"`
	} `json:"data"`
}

// promAlert is an alert Prometheus holds, pending or firing.
type promAlert struct {
	Labels map[string]string `json:"labels"`
	State  string            `json:"state"`
}

// prometheusAPI gets path (with query) from the Prometheus at addr.
func prometheusAPI(g Gomega, addr, path string, query url.Values) promQuery {
	resp, err := http.Get("http://" + addr + path + "?" + query.Encode()) //nolint:noctx // a test's short request
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	var answer promQuery
	g.Expect(json.NewDecoder(resp.Body).Decode(&answer)).To(Succeed())
	g.Expect(answer.Status).To(Equal("success"))
	return answer
}

// startPrometheus runs bin/prometheus with config in dir until the spec ends, on a free
// loopback port, and returns its address.
func startPrometheus(dir string, config map[string]any) string {
	GinkgoHelper()
	raw, err := yaml.Marshal(config)
	Expect(err).NotTo(HaveOccurred())
	file := filepath.Join(dir, "prometheus.yaml")
	Expect(os.WriteFile(file, raw, 0o600)).To(Succeed())
	addr := fmt.Sprintf("127.0.0.1:%d", suite.FreePort())
	suite.Start(dir, "prometheus", nil, filepath.Join(root, "bin", "prometheus"), "--config.file="+file,
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr)
	Eventually(func(g Gomega) {
		resp, err := http.Get("http://" + addr + "/-/ready") //nolint:noctx // a test's short request
		g.Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).Should(Succeed())
	return addr
}
