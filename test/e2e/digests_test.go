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
	"net/http"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// A release pinned by digest: make release USE_IMAGE_DIGESTS=true to the user's registry,
// under an org of its own, then installed with operator-sdk run bundle by the bundle's digest.
// operator-sdk resolves each tag in the registry the image names, so the release's copy of
// config/manager names the operand in the cluster's registry by its address (a release with
// internet resolves docker.io's).
var _ = Describe("A release pinned by digest", Label(RealNode), Ordered, func() {
	var ns, dir, bundle string
	var operator, operand, scorecardTests string
	var foo *samplev1alpha1.Foo

	BeforeAll(func() {
		ns = env.NewNamespace("digests", false) // not restricted: see operator-sdk run bundle's Describe
		tree := suite.CopyTree(work, "pinned")
		operand = framework.InRegistry(env.Registry, controllers.DefaultOperandImage)
		suite.ReplaceInFile(filepath.Join(tree, "config", "manager", "manager.yaml"), controllers.DefaultOperandImage, operand)
		base := users.Host + "/acme/pinned/foo-operator"
		dir = release(tree, base, "0.1.0", "USE_IMAGE_DIGESTS=true")
		operator = pinned(base+":v0.1.0", digestOf(base+":v0.1.0"))
		scorecardTests = pinned(base+"-scorecard-tests:v0.1.0", digestOf(base+"-scorecard-tests:v0.1.0"))
		bundle = pinned(base+"-bundle:v0.1.0", digestOf(base+"-bundle:v0.1.0"))
		operand = pinned(operand, digestOf(operand))
	})
	AfterEach(func() { env.ReportOLMStateOnFailure(ns) })

	It("names every image by digest: the CSV (relatedImages, disconnected), the scorecard tests, the catalog's bundle", func() {
		csv := releaseCSV(dir)
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

		Expect(suite.ReadFile(filepath.Join(dir, "bundle", "tests", "scorecard", "config.yaml"))).To(ContainSubstring("image: " + scorecardTests + "\n"))
		Expect(suite.ReadFile(filepath.Join(dir, "catalog", suite.Package, suite.Package+".yaml"))).To(ContainSubstring("image: " + bundle + "\n"))
	})

	It("installs with operator-sdk run bundle by the bundle's digest, the operator and its operand pulled by digest", func() {
		began := time.Now()
		env.RunBundle(ns, bundle)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)
		env.ExpectOperatorRunning(ns, operator)
		AddReportEntry("run bundle (digests)", time.Since(began).Round(time.Second).String())

		foo = env.CreateFoo(ns, "pinned", 1)
		env.ExpectDeploymentImage(foo, operand)
		env.ExpectServing(foo, 1, "nginx-unprivileged 1.28.0-alpine")
	})

	It("leaves nothing behind after operator-sdk cleanup", func() {
		env.DeleteFoo(foo)
		env.CleanupBundle(ns)
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

// digestOf is the digest of the manifest the registry of ref (host:port/path:tag, the
// cluster's or the user's) holds for it, read from the registry's API.
func digestOf(ref string) string {
	GinkgoHelper()
	host, rest, _ := strings.Cut(ref, "/")
	repo, tag, _ := strings.Cut(rest, ":")
	resp := suite.RegistryRequest(http.MethodHead, "https://"+host+"/v2/"+repo+"/manifests/"+tag, env.HostCAs,
		"application/vnd.oci.image.index.v1+json", "application/vnd.oci.image.manifest.v1+json",
		"application/vnd.docker.distribution.manifest.list.v2+json", "application/vnd.docker.distribution.manifest.v2+json")
	Expect(resp.Body.Close()).To(Succeed())
	Expect(resp.StatusCode).To(Equal(http.StatusOK), ref)
	digest := resp.Header.Get("Docker-Content-Digest")
	Expect(digest).To(HavePrefix("sha256:"))
	return digest
}
