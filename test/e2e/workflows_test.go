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
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

const fooCRD = "foos.samplecontroller.example.com"

var _ = Describe("operator-sdk run bundle and scorecard", Label(RealNode), Ordered, func() {
	// ns is where operator-sdk runs the operator, watching scorecardNS, where the Foos and
	// the scorecard's test pods run under Pod Security restricted. ns is not restricted:
	// operator-sdk v1.42.2 leaves the securityContext of its registry pod's init container
	// empty under --security-context-config=restricted (operator-framework/operator-sdk#7039),
	// so Pod Security restricted refuses the pod.
	var ns, scorecardNS string
	var foo *samplev1alpha1.Foo

	BeforeAll(func() { ns, scorecardNS = newNamespace("sdk-run", false), newNamespace("scorecard", true) })
	AfterEach(func() { suite.ReportOLMStateOnFailure(k8s, ns) })

	It("installs v0.1.0 from the released bundle image, the operator running in a container whose probes pass", func() {
		began := time.Now()
		runBundle(ns, bundleV1, "--install-mode", "SingleNamespace="+scorecardNS)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)
		expectOperatorRunning(ns, operatorV1)
		AddReportEntry("run bundle", time.Since(began).Round(time.Second).String())

		foo = createFoo(scorecardNS, "sdk-foo", 2)
		expectServing(foo, 2, "nginx-unprivileged 1.28.0-alpine")
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
		operatorSDK("run", "bundle-upgrade", bundleV2, "--namespace", ns,
			"--security-context-config", "restricted", "--timeout", "5m")
		suite.ExpectCSVSucceeded(k8s, ns, csvV2)
		expectOperatorRunning(ns, operatorV2)
		expectDeploymentImage(foo, operandV2)
		expectServing(foo, 2, "nginx-unprivileged 1.29.1-alpine")
		AddReportEntry("run bundle-upgrade", time.Since(began).Round(time.Second).String())
	})

	It("leaves nothing behind after operator-sdk cleanup", func() {
		began := time.Now()
		Expect(k8s.Delete(context.Background(), foo)).To(Succeed())
		cleanupBundle(ns)
		AddReportEntry("cleanup", time.Since(began).Round(time.Second).String())
	})
})

var _ = Describe("The operator installed from a catalog image", Label(RealNode), Ordered, func() {
	// The CatalogSource lives in OLM's namespace, as operatorhub.io's does: OLM runs its
	// registry pod and its bundle-unpack Jobs there. Upstream OLM's catalog-operator (without
	// --set-workload-user-id) leaves those pods' runAsNonRoot unset, so a namespace enforcing
	// Pod Security restricted would refuse them. The operator itself runs in a restricted one.
	//
	// The cluster has an egress proxy, which the Subscription passes to the operator as
	// OpenShift's cluster-wide Proxy has OLM do, with the API server left out of NO_PROXY.
	const catalogNS, catalogName = "olm", "foo-catalog"
	var ns, fooNS string
	var foo *samplev1alpha1.Foo
	var proxy *egressProxy

	BeforeAll(func() {
		proxy = startEgressProxy()
		ns, fooNS = newNamespace("catalog", true), newNamespace("foos", true)
		Expect(k8s.Create(context.Background(), &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: ns},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{fooNS}},
		})).To(Succeed())
	})
	AfterEach(func() { suite.ReportOLMStateOnFailure(k8s, ns) })
	// Uninstalled as a user would (Subscription, CSV, CatalogSource), so that the operator-sdk
	// specs, in whatever order they run, install into a cluster where no other install
	// provides the Foo API.
	AfterAll(func() {
		unsubscribe(ns, catalogNS, catalogName, csvV1, csvV2)
	})

	It("installs v0.1.0 through OLM's registry pod and bundle-unpack Job", func() {
		began := time.Now()
		subscribe(ns, catalogNS, catalogName, catalogV1, func(spec *operatorsv1alpha1.SubscriptionSpec) {
			spec.Config = &operatorsv1alpha1.SubscriptionConfig{Env: []corev1.EnvVar{
				{Name: "HTTP_PROXY", Value: proxy.URL}, {Name: "HTTPS_PROXY", Value: proxy.URL}, {Name: "NO_PROXY", Value: "localhost,127.0.0.1"},
			}}
		})
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)
		expectOperatorRunning(ns, operatorV1)
		AddReportEntry("catalog install", time.Since(began).Round(time.Second).String())

		By("checking that OLM unpacked the bundle image with a Job that ran to completion")
		expectUnpackJob(catalogNS, bundleV1)
	})

	It("sends its requests through the proxy OLM passes it (HTTPS_PROXY)", func() {
		pods := &corev1.PodList{}
		Expect(k8s.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		Expect(pods.Items).To(HaveLen(1))
		operator := pods.Items[0]
		Expect(operator.Spec.Containers[0].Env).To(ContainElement(corev1.EnvVar{Name: "HTTPS_PROXY", Value: proxy.URL}))
		apiServer := &corev1.Service{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "kubernetes"}, apiServer)).To(Succeed())
		// Every connection the operator opened (its watches, its leader election) is a tunnel
		// to the API server's Service.
		Eventually(func() []string { return proxy.tunnelsOf(operator.Status.PodIP) }).Should(
			And(Not(BeEmpty()), HaveEach(net.JoinHostPort(apiServer.Spec.ClusterIP, "443"))), proxy.String)
	})

	It("runs a Foo whose pods serve HTTP, follow kubectl scale foo and heal", func() {
		foo = createFoo(fooNS, "web", 2)
		expectServing(foo, 2, "nginx-unprivileged 1.28.0-alpine")

		By("scaling the Foo through its scale subresource, as kubectl scale foo does")
		suite.Run(root, nil, filepath.Join(root, "bin", "kubectl"), "--kubeconfig", cluster.Kubeconfig(),
			"scale", "foo", foo.Name, "-n", fooNS, "--replicas=3")
		expectServing(foo, 3, "nginx-unprivileged")

		By("deleting a pod")
		pods := &corev1.PodList{}
		Expect(k8s.List(context.Background(), pods, client.InNamespace(fooNS), client.MatchingLabels{"controller": foo.Name})).To(Succeed())
		Expect(k8s.Delete(context.Background(), &pods.Items[0])).To(Succeed())
		Eventually(func(g Gomega) []string { return readyPodIPs(g, foo) }).ShouldNot(ContainElement(pods.Items[0].Status.PodIP))
		expectServing(foo, 3, "nginx-unprivileged")
	})

	It("reports a Foo whose pods never become ready as unavailable, and available once they serve", func() {
		// A tag no registry has (a typo): the node's pulls fail (at the local mirror) and the
		// pods never become Ready.
		broken := createFoo(fooNS, "broken", 2, withImage("docker.io/nginxinc/nginx-unprivileged:0.0.0-missing"))
		Eventually(func(g Gomega) {
			got := &samplev1alpha1.Foo{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(broken), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.AvailableReplicas).To(BeZero())
			available := meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.AvailableCondition)
			g.Expect(available).NotTo(BeNil())
			g.Expect(available.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeFalse())
			pods := &corev1.PodList{}
			g.Expect(k8s.List(context.Background(), pods, client.InNamespace(fooNS), client.MatchingLabels{"controller": broken.Name})).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(2))
			for _, p := range pods.Items {
				g.Expect(p.Status.ContainerStatuses).To(HaveLen(1))
				g.Expect(p.Status.ContainerStatuses[0].State.Waiting).NotTo(BeNil())
				g.Expect(p.Status.ContainerStatuses[0].State.Waiting.Reason).To(BeElementOf("ErrImagePull", "ImagePullBackOff"))
			}
		}).Should(Succeed())

		By("giving it the default operand")
		patch := client.MergeFrom(broken.DeepCopy())
		broken.Spec.Image = ""
		Expect(k8s.Patch(context.Background(), broken, patch)).To(Succeed())
		expectServing(broken, 2, "nginx-unprivileged 1.28.0-alpine")
		Eventually(func(g Gomega) {
			got := &samplev1alpha1.Foo{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(broken), got)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
		}).Should(Succeed())
		Expect(k8s.Delete(context.Background(), broken)).To(Succeed())
	})

	It("upgrades to v0.2.0 through the channel when the catalog image moves on, keeping the Foo", func() {
		began := time.Now()
		cs := &operatorsv1alpha1.CatalogSource{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: catalogNS, Name: catalogName}, cs)).To(Succeed())
		patch := client.MergeFrom(cs.DeepCopy())
		cs.Spec.Image = catalogV2
		Expect(k8s.Patch(context.Background(), cs, patch)).To(Succeed())
		suite.ExpectCSVSucceeded(k8s, ns, csvV2)
		expectOperatorRunning(ns, operatorV2)
		expectDeploymentImage(foo, operandV2)
		expectServing(foo, 3, "nginx-unprivileged 1.29.1-alpine")
		expectUnpackJob(catalogNS, bundleV2)
		AddReportEntry("catalog upgrade", time.Since(began).Round(time.Second).String())
	})

	It("scales a Foo with a HorizontalPodAutoscaler on its pods' real CPU usage", func() {
		expectHPAScalesOnLoad(foo)
	})
})

// Broken bundles fail the scorecard test that covers what they broke, and only it.
var _ = Describe("operator-sdk scorecard on broken bundles", Label(RealNode), Ordered, func() {
	var ns, scorecardNS string
	BeforeAll(func() { ns, scorecardNS = newNamespace("broken", false), newNamespace("scorecard-broken", true) })
	AfterEach(func() { suite.ReportOLMStateOnFailure(k8s, ns) })

	// broken copies the released v0.1.0 bundle, changes its CSV with change, and returns the
	// copy's directory (holding bundle/).
	broken := func(change func(*operatorsv1alpha1.ClusterServiceVersion)) string {
		GinkgoHelper()
		dir := filepath.Join(GinkgoT().TempDir(), "release")
		suite.Run(root, nil, "cp", "-r", releaseV1, dir)
		file := filepath.Join(dir, "bundle", "manifests", "foo-operator.clusterserviceversion.yaml")
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		Expect(yaml.UnmarshalStrict([]byte(readFile(file)), csv)).To(Succeed())
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
			"BUNDLE_IMG="+image, "CONTAINER_TOOL="+podman, "SSL_CERT_FILE="+hostCAs)
		runBundle(ns, image, "--install-mode", "SingleNamespace="+scorecardNS)
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
		cleanupBundle(ns)
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
