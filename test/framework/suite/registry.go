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

package suite

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/example/foo-operator/test/framework"
)

// StartRegistry starts a user's registry (framework.StartRegistry) in dir on this machine's
// address, stopped when the spec, container or suite that started it ends, and makes the node trust its CA for its host:port.
func (e *Env) StartRegistry(dir string, readOnly bool) *framework.Registry {
	ginkgo.GinkgoHelper()
	gomega.Expect(os.MkdirAll(dir, 0o755)).To(gomega.Succeed())
	host, _, err := net.SplitHostPort(e.Registry)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	r, err := framework.StartRegistry(dir, host, readOnly)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(r.Stop)
	_, err = framework.Run(framework.Root(), nil, []string{"LOCAL_CLUSTER_DIR=" + e.Cluster.Dir}, "hack/real-node.sh", "trust", r.Host, r.CA)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return r
}

// Tags is the tags a registry whose certificate cas verifies holds of repository
// (host:port/path), none if it has none.
func Tags(repository, cas string) string {
	ginkgo.GinkgoHelper()
	host, path, _ := strings.Cut(repository, "/")
	resp := RegistryRequest(http.MethodGet, "https://"+host+"/v2/"+path+"/tags/list", cas)
	body, err := io.ReadAll(resp.Body)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(resp.Body.Close()).To(gomega.Succeed())
	if resp.StatusCode == http.StatusNotFound {
		return ""
	}
	gomega.Expect(resp.StatusCode).To(gomega.Equal(http.StatusOK), string(body))
	return string(body)
}

// RegistryRequest sends a request to a registry's API, verifying its certificate with cas.
func RegistryRequest(method, url, cas string, accept ...string) *http.Response {
	ginkgo.GinkgoHelper()
	pem, err := os.ReadFile(cas)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	pool := x509.NewCertPool()
	gomega.Expect(pool.AppendCertsFromPEM(pem)).To(gomega.BeTrue())
	httpClient := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(method, url, nil)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	req.Header.Set("Accept", strings.Join(accept, ", "))
	resp, err := httpClient.Do(req)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return resp
}

// StartEgressProxy starts a framework.EgressProxy on this machine's address, which a real
// node's pods reach, until the spec or container that started it ends.
func (e *Env) StartEgressProxy() *framework.EgressProxy {
	ginkgo.GinkgoHelper()
	host, _, err := net.SplitHostPort(e.Registry) // the registry listens on the host's address
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	p, err := framework.StartEgressProxy(host)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(p.Close)
	return p
}
