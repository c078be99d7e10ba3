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
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

var _ = Describe("operator-sdk run bundle and scorecard", Label(RealNode), Ordered, func() {
	// ns is where operator-sdk runs the operator, watching scorecardNS, where the Foos and
	// the scorecard's test pods run under Pod Security restricted. ns is not restricted:
	// operator-sdk v1.42.2 leaves the securityContext of its registry pod's init container
	// empty under --security-context-config=restricted (operator-framework/operator-sdk#7039),
	// so Pod Security restricted refuses the pod.
	var ns, scorecardNS string
	var foo *samplev1alpha1.Foo

	BeforeAll(func() { ns, scorecardNS = env.NewNamespace("sdk-run", false), env.NewNamespace("scorecard", true) })
	AfterEach(func() { env.ReportOLMStateOnFailure(ns) })

	It("installs v0.1.0 from the released bundle image, the operator running in a container whose probes pass", func() {
		began := time.Now()
		env.RunBundle(ns, bundleV1, "--install-mode", "SingleNamespace="+scorecardNS)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)
		env.ExpectOperatorRunning(ns, operatorV1)
		AddReportEntry("run bundle", time.Since(began).Round(time.Second).String())

		foo = env.CreateFoo(scorecardNS, "sdk-foo", 2)
		env.ExpectServing(foo, 2, "nginx-unprivileged 1.28.0-alpine")
	})

	It("passes make scorecard on the released bundle: the built-in tests and the custom suite, in their pods", func() {
		began := time.Now()
		results := scorecard(filepath.Join(releaseV1, "bundle"), scorecardNS)
		Expect(results).To(HaveLen(7))
		for name, r := range results {
			Expect(r.State).To(Equal("pass"), "%s: %v\n%s", name, r.Errors, r.Log)
		}
		Expect(results["foo-serves"].Image).To(HavePrefix(users.Host + "/acme/foo-operator-scorecard-tests:v0.1.0"))
		AddReportEntry("scorecard", time.Since(began).Round(time.Second).String())
		AddReportEntry("scorecard foo-serves log", results["foo-serves"].Log)
	})

	It("upgrades to v0.2.0 with run bundle-upgrade, moving the Foo to v0.2.0's operand", func() {
		began := time.Now()
		env.OperatorSDK("run", "bundle-upgrade", bundleV2, "--namespace", ns,
			"--security-context-config", "restricted", "--timeout", "5m")
		suite.ExpectCSVSucceeded(k8s, ns, csvV2)
		env.ExpectOperatorRunning(ns, operatorV2)
		env.ExpectDeploymentImage(foo, operandV2)
		env.ExpectServing(foo, 2, "nginx-unprivileged 1.29.1-alpine")
		AddReportEntry("run bundle-upgrade", time.Since(began).Round(time.Second).String())
	})

	It("leaves nothing behind after operator-sdk cleanup", func() {
		began := time.Now()
		env.DeleteFoo(foo)
		env.CleanupBundle(ns)
		AddReportEntry("cleanup", time.Since(began).Round(time.Second).String())
	})
})

// Broken bundles fail the scorecard test that covers what they broke, and only it.
var _ = Describe("operator-sdk scorecard on broken bundles", Label(RealNode), Ordered, func() {
	var ns, scorecardNS string
	BeforeAll(func() {
		ns, scorecardNS = env.NewNamespace("broken", false), env.NewNamespace("scorecard-broken", true)
	})
	AfterEach(func() { env.ReportOLMStateOnFailure(ns) })

	// broken copies the released v0.1.0 bundle, changes its CSV with change, and returns the
	// copy's directory (holding bundle/).
	broken := func(change func(*operatorsv1alpha1.ClusterServiceVersion)) string {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "release")
		suite.Run(root, nil, "cp", "-r", releaseV1, dir)
		file := filepath.Join(dir, "bundle", "manifests", "foo-operator.clusterserviceversion.yaml")
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		Expect(yaml.UnmarshalStrict([]byte(suite.ReadFile(file)), csv)).To(Succeed())
		change(csv)
		raw, err := yaml.Marshal(csv)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(file, raw, 0o644)).To(Succeed())
		return dir
	}

	It("fails olm-spec-descriptors, and only it, on a bundle whose CSV lost its spec descriptors", func() {
		dir := broken(func(csv *operatorsv1alpha1.ClusterServiceVersion) {
			Expect(csv.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors).NotTo(BeEmpty())
			csv.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors = nil
		})
		// The built-in suites only: no operator runs for this bundle.
		results := scorecard(filepath.Join(dir, "bundle"), scorecardNS, "--selector=suite!=foo")
		Expect(results).To(HaveLen(6))
		Expect(results).To(HaveKeyWithValue("olm-spec-descriptors", HaveField("State", "fail")))
		delete(results, "olm-spec-descriptors")
		for name, r := range results {
			Expect(r.State).To(Equal("pass"), name)
		}
	})

	It("fails foo-serves, and only it, naming the step, when the operator never writes status", func() {
		By("installing a bundle whose operator may not write foos/status, pushed to the user's registry")
		dir := broken(func(csv *operatorsv1alpha1.ClusterServiceVersion) {
			strategy := &csv.Spec.InstallStrategy.StrategySpec
			for _, permissions := range [][]operatorsv1alpha1.StrategyDeploymentPermissions{strategy.Permissions, strategy.ClusterPermissions} {
				for i := range permissions {
					permissions[i].Rules = slices.DeleteFunc(permissions[i].Rules, func(r rbacv1.PolicyRule) bool {
						return slices.Contains(r.Resources, "foos/status")
					})
				}
			}
			Expect(yamlOf(csv)).NotTo(ContainSubstring("foos/status"))
		})
		image := users.Host + "/acme/foo-operator-bundle:v0.1.0-no-status"
		suite.Run(dir, nil, "make", "-f", filepath.Join(root, "Makefile"), "bundle-build", "bundle-push",
			"BUNDLE_IMG="+image, "CONTAINER_TOOL="+podman, "SSL_CERT_FILE="+env.HostCAs)
		env.RunBundle(ns, image, "--install-mode", "SingleNamespace="+scorecardNS)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)

		results := scorecard(filepath.Join(dir, "bundle"), scorecardNS)
		Expect(results).To(HaveLen(7))
		Expect(results).To(HaveKeyWithValue("foo-serves", HaveField("State", "fail")))
		Expect(results["foo-serves"].Errors).To(ContainElement(ContainSubstring("wait for Ready")))
		AddReportEntry("scorecard foo-serves against an operator that never writes status",
			strings.Join(results["foo-serves"].Errors, "\n")+"\n"+results["foo-serves"].Log)
		delete(results, "foo-serves")
		for name, r := range results {
			Expect(r.State).To(Equal("pass"), name)
		}
		env.CleanupBundle(ns)
	})
})

// scorecardResult is one test's result in operator-sdk scorecard's JSON output.
type scorecardResult struct {
	Image, State, Log string
	Errors            []string
}

// scorecard runs make scorecard on bundle in ns, its pods under Pod Security restricted, with
// the images the cluster's registry mirrors, and returns each test's result by name.
func scorecard(bundle, ns string, flags ...string) map[string]scorecardResult {
	GinkgoHelper()
	// make scorecard fails when a test fails: its output says which.
	out, err := framework.Run(root, nil, []string{"KUBECONFIG=" + cluster.Kubeconfig()}, "make", "-s", "scorecard",
		"SCORECARD_BUNDLE="+bundle, "SCORECARD_NAMESPACE="+ns,
		// operator-sdk's defaults are quay.io's images by digest, which no mirror can serve
		// under that digest: a disconnected user names their mirror's.
		"SCORECARD_UNTAR_IMAGE=quay.io/operator-framework/scorecard-untar:v1.42.2",
		"SCORECARD_STORAGE_IMAGE=quay.io/operator-framework/scorecard-storage:v1.42.2",
		"SCORECARD_FLAGS="+strings.Join(append([]string{"--output=json"}, flags...), " "))
	var list struct {
		Items []struct {
			Spec struct {
				Image string `json:"image"`
			} `json:"spec"`
			Status struct {
				Results []struct {
					Name   string   `json:"name"`
					State  string   `json:"state"`
					Log    string   `json:"log"`
					Errors []string `json:"errors"`
				} `json:"results"`
			} `json:"status"`
		} `json:"items"`
	}
	Expect(json.Unmarshal([]byte(out), &list)).To(Succeed(), "%s\n%v", out, err)
	results := map[string]scorecardResult{}
	for _, item := range list.Items {
		for _, r := range item.Status.Results {
			results[r.Name] = scorecardResult{Image: item.Spec.Image, State: r.State, Log: r.Log, Errors: r.Errors}
		}
	}
	return results
}

// yamlOf is obj as YAML.
func yamlOf(obj any) string {
	GinkgoHelper()
	raw, err := yaml.Marshal(obj)
	Expect(err).NotTo(HaveOccurred())
	return string(raw)
}
