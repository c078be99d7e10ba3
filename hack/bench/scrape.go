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

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/example/foo-operator/test/framework"
)

// scrapeInterval is how often the benchmark's Prometheus scrapes the operator's metrics:
// kube-prometheus's interval (config/prometheus's ServiceMonitor sets none of its own).
const scrapeInterval = 30 * time.Second

// metricsClient reads the operator's authenticated metrics endpoint as Prometheus does:
// over HTTPS with the token of a ServiceAccount bound to the metrics-reader ClusterRole
// (config/rbac), which the operator checks with a TokenReview and a SubjectAccessReview.
type metricsClient struct {
	token string
}

// newMetricsClient makes the ServiceAccount of the benchmark's Prometheus in the cluster of
// kubeconfig, binds it to the metrics-reader ClusterRole, and asks for its token.
func newMetricsClient(kubeconfig string, kube kubernetes.Interface) (*metricsClient, error) {
	ctx := context.Background()
	if _, err := framework.Run(framework.Root(), nil, nil, "bin/kubectl", "--kubeconfig", kubeconfig, "apply", "--server-side", "-f", "config/rbac/metrics_reader_role.yaml"); err != nil {
		return nil, fmt.Errorf("install the metrics-reader ClusterRole: %w", err)
	}
	const name = "prometheus"
	if _, err := kube.CoreV1().ServiceAccounts(contenderNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: contenderNamespace}},
	}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	token, err := kube.CoreV1().ServiceAccounts(contenderNamespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(6 * 3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return &metricsClient{token: token.Status.Token}, nil
}

// loopbackTLS is the client of the metrics endpoints the benchmark reads on this machine,
// whose certificates are self-signed: the operator's (when no --metrics-cert-dir is given)
// and kube-controller-manager's.
var loopbackTLS = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback, self-signed

// get scrapes the metrics once.
func (m *metricsClient) get() (string, error) {
	return getMetrics("https://"+operatorMetrics+"/metrics", m.token)
}

// getMetrics reads a metrics endpoint on this machine (loopbackTLS), with a bearer token
// unless token is empty.
func getMetrics(url, token string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil) //nolint:noctx // bounded by the client's timeout
	if err != nil {
		return "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := loopbackTLS.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return string(body), err
}

// operatorMetricNames are the operator's metrics the benchmark reads.
var operatorMetricNames = func() []string {
	names := make([]string, 0, 5+len(goMetrics))
	names = append(names, "controller_runtime_reconcile_total", queueDuration+"_bucket", workDuration+"_bucket", queueDepth, maxWorkers)
	for _, m := range goMetrics {
		names = append(names, m.name)
	}
	return names
}()

// samples scrapes the metrics once and parses those of operatorMetricNames.
func (m *metricsClient) samples() ([]sample, error) {
	body, err := m.get()
	if err != nil {
		return nil, err
	}
	return parseSamples(body, operatorMetricNames...)
}

// scrapeEvery scrapes the metrics every interval until the returned function is called;
// a failed scrape (the operator restarting) is left for the next, as Prometheus does.
func (m *metricsClient) scrapeEvery(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_, _ = m.get()
			}
		}
	}()
	return func() { close(done) }
}

// goMetrics are the Go runtime's classes of its memory the report shows, as client_golang's
// Go collector exposes them (read from runtime/metrics), with the report's name for each.
var goMetrics = []struct{ name, label string }{
	{"go_memstats_heap_inuse_bytes", "heap in use"},
	{"go_memstats_heap_idle_bytes", "heap free"},
	{"go_memstats_heap_released_bytes", "of which returned to the OS"},
	{"go_memstats_stack_inuse_bytes", "stacks"},
	{"go_memstats_gc_sys_bytes", "GC metadata"},
	{"go_memstats_other_sys_bytes", "other runtime"},
	{"go_memstats_sys_bytes", "all the runtime holds"},
}

// heapCategories attribute the operator's in-use heap to what holds it: each sample of the
// heap profile goes to the first category a function of its stack starts with.
var heapCategories = []struct {
	name     string
	prefixes []string
}{
	// A watch's objects are decoded on its StreamWatcher's goroutine, outside the informer's.
	{"informer caches (the Foos and Deployments it watches)", []string{"k8s.io/client-go/tools/cache.", "k8s.io/apimachinery/pkg/watch.", "k8s.io/client-go/rest/watch."}},
	{"metrics endpoint's authentication and authorisation (metrics_auth.go)", []string{"main.(*metricsAuth).", "main.metricsAuthFilter"}},
	{"Prometheus metrics registry", []string{"github.com/prometheus/"}},
	{"HTTP connections (HTTP/2, TLS)", []string{"golang.org/x/net/http2.", "net/http.", "crypto/tls."}},
	{"events", []string{"k8s.io/client-go/tools/events.", "k8s.io/client-go/tools/record."}},
	{"server-side apply's type converter (the Deployment's schema)", []string{"sigs.k8s.io/structured-merge-diff/", "k8s.io/apimachinery/pkg/util/managedfields."}},
	{"scheme (the API types it registers)", []string{"k8s.io/apimachinery/pkg/runtime.(*Scheme)"}},
	{"the operator's own packages", []string{"github.com/example/foo-operator/"}},
	{"package initialisation (other global variables)", []string{"runtime.doInit"}},
	{"goroutines (their descriptors; stacks are apart)", []string{"runtime.malg"}},
}

// heapShare is the in-use heap one category holds.
type heapShare struct {
	category string
	bytes    int64
}

// memProfileRate is the average number of bytes allocated per heap profile sample when the
// benchmark profiles the operator's heap.
const memProfileRate = 4096

// goMemory is the Go runtime's memory figures of a scrape of the operator's metrics.
func goMemory(samples []sample) (map[string]float64, error) {
	figures := map[string]float64{}
	for _, s := range samples {
		if slices.ContainsFunc(goMetrics, func(m struct{ name, label string }) bool { return m.name == s.name }) {
			figures[s.name] = s.value
		}
	}
	if len(figures) != len(goMetrics) {
		return nil, fmt.Errorf("the operator's metrics lack some of %v", goMetrics)
	}
	return figures, nil
}

// heapProfile reads the operator's heap profile (saved in dir) and returns its top in-use
// allocation sites and its in-use heap by category.
func heapProfile(dir string) (string, []heapShare, error) {
	resp, err := http.Get("http://" + operatorPprof + "/debug/pprof/heap") //nolint:noctx // a local endpoint
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	path := filepath.Join(dir, "heap.pb.gz")
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return "", nil, err
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-inuse_space", "-nodecount=12", manager, path).Output()
	if err != nil {
		return "", nil, fmt.Errorf("go tool pprof: %w", err)
	}
	p, err := profile.ParseData(raw)
	if err != nil {
		return "", nil, fmt.Errorf("heap profile: %w", err)
	}
	shares, err := heapByCategory(p)
	return string(top), shares, err
}

// heapByCategory sums a heap profile's in-use bytes by heapCategories, in their order, and
// what none of them matched last.
func heapByCategory(p *profile.Profile) ([]heapShare, error) {
	inuse := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "inuse_space" })
	if inuse < 0 {
		return nil, fmt.Errorf("the heap profile has no inuse_space")
	}
	shares := make([]heapShare, len(heapCategories)+1)
	for i, c := range heapCategories {
		shares[i].category = c.name
	}
	shares[len(heapCategories)].category = "other"
	for _, s := range p.Sample {
		shares[category(s)].bytes += s.Value[inuse]
	}
	return shares, nil
}

// category is the index in heapCategories of the first category a function of the sample's
// stack belongs to, or len(heapCategories).
func category(s *profile.Sample) int {
	for i, c := range heapCategories {
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function != nil && slices.ContainsFunc(c.prefixes, func(prefix string) bool { return strings.HasPrefix(line.Function.Name, prefix) }) {
					return i
				}
			}
		}
	}
	return len(heapCategories)
}
