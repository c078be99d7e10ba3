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

package node

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// bundlePinned is the bundle image of v0.1.0 as a release pinned by digest ships it.
const bundlePinned = "quay.io/example/foo-operator-bundle:v0.1.0-digests"

// A release bundle, every image pinned by digest, installed on the real node, which has no
// internet and pulls every image from its mirror (the cluster's registry), as a
// disconnected cluster does. The release's images are published in the cluster's registry
// here, named by its address, since operator-sdk resolves each tag in the registry the image
// names; a release that publishes them to quay.io and docker.io gets the same digests there.
var _ = Describe("A release bundle pinned by digest", Ordered, func() {
	var ns, release, operatorDigest, operandDigest string

	BeforeAll(func() {
		ns = newNamespace("digests", false) // not restricted: see operator-sdk run bundle's Describe
		release = filepath.Join(work, "release")
		operatorDigest = digestOf(framework.InRegistry(registry, operatorV1))
		operandDigest = digestOf(framework.InRegistry(registry, controllers.DefaultOperandImage))
	})
	AfterEach(func() { suite.ReportOLMStateOnFailure(k8s, ns) })

	It("is what make bundle USE_IMAGE_DIGESTS=true generates: every image by digest, all in relatedImages, disconnected", func() {
		copyTree(release)
		managerYAML := filepath.Join(release, "config", "manager", "manager.yaml")
		raw, err := os.ReadFile(managerYAML)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).To(ContainSubstring(controllers.DefaultOperandImage))
		raw = []byte(strings.ReplaceAll(string(raw), controllers.DefaultOperandImage, framework.InRegistry(registry, controllers.DefaultOperandImage)))
		Expect(os.WriteFile(managerYAML, raw, 0o644)).To(Succeed())
		_, err = framework.Run(release, nil, []string{"SSL_CERT_FILE=" + cluster.CABundle()},
			"make", "bundle", "USE_IMAGE_DIGESTS=true", "IMG="+framework.InRegistry(registry, operatorV1))
		Expect(err).NotTo(HaveOccurred())

		operator := pinned(framework.InRegistry(registry, operatorV1), operatorDigest)
		operand := pinned(framework.InRegistry(registry, controllers.DefaultOperandImage), operandDigest)
		csv := releaseCSV(release)
		Expect(csv.Annotations).To(HaveKeyWithValue("containerImage", operator))
		Expect(csv.Annotations).To(HaveKeyWithValue("features.operators.openshift.io/disconnected", "true"))
		manager := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0]
		Expect(manager.Image).To(Equal(operator))
		Expect(manager.Env).To(ContainElement(HaveField("Value", operand)))
		var related []string
		for _, r := range csv.Spec.RelatedImages {
			related = append(related, r.Image)
		}
		Expect(related).To(ContainElements(operator, operand))
		Expect(related).To(HaveEach(ContainSubstring("@sha256:")))
	})

	It("installs with operator-sdk run bundle, the operator and its operand pulled from the mirror by digest", func() {
		By("naming the images as the release does, by the public repositories the mirror stands in for")
		csvPath := filepath.Join(release, "bundle", "manifests", suite.Package+".clusterserviceversion.yaml")
		raw, err := os.ReadFile(csvPath)
		Expect(err).NotTo(HaveOccurred())
		raw = []byte(strings.NewReplacer(
			repository(framework.InRegistry(registry, operatorV1))+"@", repository(operatorV1)+"@",
			repository(framework.InRegistry(registry, controllers.DefaultOperandImage))+"@", repository(controllers.DefaultOperandImage)+"@",
		).Replace(string(raw)))
		Expect(string(raw)).NotTo(ContainSubstring(registry))
		Expect(os.WriteFile(csvPath, raw, 0o644)).To(Succeed())
		Expect(cluster.BuildImage(bundlePinned, filepath.Join(release, "bundle.Dockerfile"), release)).To(Succeed())

		began := time.Now()
		runBundle(ns, bundlePinned)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)
		expectOperatorRunning(ns, pinned(operatorV1, operatorDigest))
		AddReportEntry("run bundle (digests)", time.Since(began).Round(time.Second).String())

		foo := createFoo(ns, "pinned", 1)
		expectDeploymentImage(foo, pinned(controllers.DefaultOperandImage, operandDigest))
		expectServing(foo, 1, "nginx-unprivileged 1.28.0-alpine")
	})

	It("leaves nothing behind after operator-sdk cleanup", func() {
		cleanupBundle(ns)
	})
})

// releaseCSV reads the CSV of the bundle in dir/bundle.
func releaseCSV(dir string) *operatorsv1alpha1.ClusterServiceVersion {
	GinkgoHelper()
	b, err := manifests.GetBundleFromDir(filepath.Join(dir, "bundle"))
	Expect(err).NotTo(HaveOccurred())
	return b.CSV
}

// repository is ref without its tag.
func repository(ref string) string { return ref[:strings.LastIndex(ref, ":")] }

// pinned is ref's repository at digest.
func pinned(ref, digest string) string { return repository(ref) + "@" + digest }

// copyTree copies the checkout (tracked and untracked files, as make test-scaffold does,
// with their times, so make rebuilds nothing) into dir, sharing bin/.
func copyTree(dir string) {
	GinkgoHelper()
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	suite.Run(root, nil, "bash", "-c",
		`git ls-files --cached --others --exclude-standard | tar -cf - -T - | tar -xf - -C "$1"`, "copy", dir)
	Expect(os.Symlink(filepath.Join(root, "bin"), filepath.Join(dir, "bin"))).To(Succeed())
}

// digestOf is the digest of the manifest the cluster's registry holds for ref
// (host:port/path:tag), read from the registry's API.
func digestOf(ref string) string {
	GinkgoHelper()
	host, rest, _ := strings.Cut(ref, "/")
	repo, tag, _ := strings.Cut(rest, ":")
	pem, err := os.ReadFile(cluster.CABundle())
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
	httpClient := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(http.MethodHead, "https://"+host+"/v2/"+repo+"/manifests/"+tag, nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Accept", strings.Join([]string{
		"application/vnd.oci.image.index.v1+json", "application/vnd.oci.image.manifest.v1+json",
		"application/vnd.docker.distribution.manifest.list.v2+json", "application/vnd.docker.distribution.manifest.v2+json",
	}, ", "))
	resp, err := httpClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.Body.Close()).To(Succeed())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), ref)
	digest := resp.Header.Get("Docker-Content-Digest")
	Expect(digest).To(HavePrefix("sha256:"))
	return digest
}
