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
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// podman is the container tool make release runs here: podman on the storage where
// hack/images.sh built the base images (distroless, opm), which nothing can pull here.
var podman = filepath.Join(framework.Root(), "hack", "images.sh") + " podman"

// Bad input to make release: one line that says what to do, and nothing half-released (the
// BeforeSuite's releases are the ones that succeed).
var _ = Describe("make release", Label(RealNode), func() {
	// failedRelease runs make release of tree to base with tool, trusting cas, which must
	// fail, and returns the release's last line after checking that base's registry holds no
	// catalog.
	failedRelease := func(tree, base, tool, cas string, args ...string) string {
		GinkgoHelper()
		args = append([]string{"release", "IMAGE_TAG_BASE=" + base, "CONTAINER_TOOL=" + tool,
			"RELEASE_DIR=" + filepath.Join(work, "failed", filepath.Base(tree))}, args...)
		out, err := framework.Run(tree, nil, []string{"SSL_CERT_FILE=" + cas}, "make", args...)
		Expect(err).To(HaveOccurred(), out)
		var last string
		for _, line := range strings.Split(err.Error(), "\n") {
			if strings.HasPrefix(line, "release: ") {
				last = line
			}
		}
		Expect(last).NotTo(BeEmpty(), err.Error())
		Expect(tagsOf(base+"-catalog", cas)).To(BeEmpty())
		return last
	}

	It("stops before anything when the container tool is not installed", func() {
		base := users.Host + "/acme/no-tool/foo-operator"
		line := failedRelease(root, base, "/nonexistent/docker", hostCAs)
		Expect(line).To(HavePrefix("release: /nonexistent/docker is not installed: install docker or podman"))
		Expect(line).To(ContainSubstring("nothing was pushed"))
		Expect(tagsOf(base, hostCAs)).To(BeEmpty())
	})

	It("stops before anything when no channel of the catalog template places VERSION", func() {
		base := users.Host + "/acme/unplaced/foo-operator"
		line := failedRelease(root, base, podman, hostCAs, "VERSION=0.9.0")
		Expect(line).To(HavePrefix("release: no channel of config/catalog/template.yaml places foo-operator.v0.9.0: add '- name: foo-operator.v0.9.0'"))
		Expect(tagsOf(base, hostCAs)).To(BeEmpty())
	})

	It("stops at the first push when the registry refuses it", func() {
		readOnly := startRegistry("read-only", true)
		tree := copyTree("refused")
		line := failedRelease(tree, readOnly.Host+"/acme/foo-operator", podman, readOnly.CABundle)
		Expect(line).To(HavePrefix("release: the registry refused " + readOnly.Host + "/acme/foo-operator:v0.1.0: "))
		Expect(line).To(ContainSubstring("log in (" + podman + " login " + readOnly.Host + ")"))
		Expect(line).To(ContainSubstring("nothing was pushed"))
	})

	It("stops when an image is not in the registry after its push", func() {
		// A container tool whose push reports success and sends nothing.
		tool := filepath.Join(work, "lost-push")
		Expect(os.WriteFile(tool, []byte("#!/bin/sh\n[ \"$1\" = push ] && exit 0\nexec "+podman+" \"$@\"\n"), 0o755)).To(Succeed())
		base := users.Host + "/acme/lost/foo-operator"
		line := failedRelease(copyTree("lost"), base, tool, hostCAs)
		Expect(line).To(HavePrefix("release: " + base + ":v0.1.0 is not in the registry after its push ("))
		Expect(line).To(ContainSubstring("no catalog was pushed, so nothing is released"))
		Expect(tagsOf(base, hostCAs)).To(BeEmpty())
	})
})

// startRegistry starts a user's registry (framework.StartRegistry) on this machine's address,
// stopped after the suite, and makes the node trust its CA for its host:port.
func startRegistry(name string, readOnly bool) *framework.Registry {
	GinkgoHelper()
	dir := filepath.Join(work, name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	host, _, err := net.SplitHostPort(registry)
	Expect(err).NotTo(HaveOccurred())
	r, err := framework.StartRegistry(dir, host, readOnly)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(r.Stop)
	_, err = framework.Run(root, nil, []string{"LOCAL_CLUSTER_DIR=" + cluster.Dir}, "hack/real-node.sh", "trust", r.Host, r.CA)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// release runs make release of version to base (IMAGE_TAG_BASE) on tree with args, as the
// README gives it, and returns its release directory.
func release(tree, base, version string, args ...string) string {
	GinkgoHelper()
	dir := filepath.Join(work, "release", strings.ReplaceAll(strings.TrimPrefix(base, users.Host+"/"), "/", "-"), version)
	began := time.Now()
	out, err := framework.Run(tree, nil, []string{"SSL_CERT_FILE=" + hostCAs}, "make",
		append([]string{"release", "IMAGE_TAG_BASE=" + base, "VERSION=" + version, "CONTAINER_TOOL=" + podman, "RELEASE_DIR=" + dir}, args...)...)
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Print(out)
	AddReportEntry("make release "+strings.Join(append([]string{version}, args...), " "), time.Since(began).Round(time.Second).String())
	return dir
}

// copyTree copies the checkout (tracked and untracked files, as make test-scaffold does, with
// their times, so make rebuilds nothing) into the work directory's name, sharing bin/, and
// returns it.
func copyTree(name string) string {
	GinkgoHelper()
	dir := filepath.Join(work, "trees", name)
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	suite.Run(root, nil, "bash", "-c",
		`git ls-files --cached --others --exclude-standard | tar -cf - -T - | tar -xf - -C "$1"`, "copy", dir)
	Expect(os.Symlink(filepath.Join(root, "bin"), filepath.Join(dir, "bin"))).To(Succeed())
	return dir
}

// replaceInFile replaces old, which file must hold, with new in file.
func replaceInFile(file, old, new string) {
	GinkgoHelper()
	raw := readFile(file)
	Expect(raw).To(ContainSubstring(old))
	Expect(os.WriteFile(file, []byte(strings.ReplaceAll(raw, old, new)), 0o644)).To(Succeed())
}

// readFile is file's content.
func readFile(file string) string {
	GinkgoHelper()
	raw, err := os.ReadFile(file)
	Expect(err).NotTo(HaveOccurred())
	return string(raw)
}

// tagsOf is the tags a registry whose certificate cas verifies holds of repository
// (host:port/path), none if it has none.
func tagsOf(repository, cas string) string {
	GinkgoHelper()
	host, path, _ := strings.Cut(repository, "/")
	resp := registryRequest(http.MethodGet, "https://"+host+"/v2/"+path+"/tags/list", cas)
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Body.Close()).To(Succeed())
	if resp.StatusCode == http.StatusNotFound {
		return ""
	}
	Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
	return string(body)
}

// registryRequest sends a request to a registry's API, verifying its certificate with cas.
func registryRequest(method, url, cas string, accept ...string) *http.Response {
	GinkgoHelper()
	pem, err := os.ReadFile(cas)
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
	httpClient := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(method, url, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", strings.Join(accept, ", "))
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	return resp
}
