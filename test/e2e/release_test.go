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
		Expect(suite.Tags(base+"-catalog", cas)).To(BeEmpty())
		return last
	}

	It("stops before anything when the container tool is not installed", func() {
		base := users.Host + "/acme/no-tool/foo-operator"
		line := failedRelease(root, base, "/nonexistent/docker", env.HostCAs)
		Expect(line).To(HavePrefix("release: /nonexistent/docker is not installed: install docker or podman"))
		Expect(line).To(ContainSubstring("nothing was pushed"))
		Expect(suite.Tags(base, env.HostCAs)).To(BeEmpty())
	})

	It("stops before anything when no channel of the catalog template places VERSION", func() {
		base := users.Host + "/acme/unplaced/foo-operator"
		line := failedRelease(root, base, podman, env.HostCAs, "VERSION=0.9.0")
		Expect(line).To(HavePrefix("release: no channel of config/catalog/template.yaml places foo-operator.v0.9.0: add '- name: foo-operator.v0.9.0'"))
		Expect(suite.Tags(base, env.HostCAs)).To(BeEmpty())
	})

	It("stops at the first push when the registry refuses it", func() {
		readOnly := env.StartRegistry(filepath.Join(work, "read-only"), true)
		tree := suite.CopyTree(work, "refused")
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
		line := failedRelease(suite.CopyTree(work, "lost"), base, tool, env.HostCAs)
		Expect(line).To(HavePrefix("release: " + base + ":v0.1.0 is not in the registry after its push ("))
		Expect(line).To(ContainSubstring("no catalog was pushed, so nothing is released"))
		Expect(suite.Tags(base, env.HostCAs)).To(BeEmpty())
	})
})

// release runs make release of version to base (IMAGE_TAG_BASE) on tree with args, as the
// README gives it, and returns its release directory.
func release(tree, base, version string, args ...string) string {
	GinkgoHelper()
	dir := filepath.Join(work, "release", strings.ReplaceAll(strings.TrimPrefix(base, users.Host+"/"), "/", "-"), version)
	began := time.Now()
	out, err := framework.Run(tree, nil, []string{"SSL_CERT_FILE=" + env.HostCAs}, "make",
		append([]string{"release", "IMAGE_TAG_BASE=" + base, "VERSION=" + version, "CONTAINER_TOOL=" + podman, "RELEASE_DIR=" + dir}, args...)...)
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Print(out)
	AddReportEntry("make release "+strings.Join(append([]string{version}, args...), " "), time.Since(began).Round(time.Second).String())
	return dir
}
