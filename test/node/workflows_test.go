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
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

const fooCRD = "foos.samplecontroller.example.com"

var _ = Describe("operator-sdk run bundle", Ordered, func() {
	var ns string
	var foo *samplev1alpha1.Foo

	// Not restricted: operator-sdk v1.42.2 leaves the securityContext of its registry pod's
	// init container empty under --security-context-config=restricted
	// (operator-framework/operator-sdk#7039), so Pod Security restricted refuses the pod.
	// The catalog-image install below runs the operator in a restricted namespace.
	BeforeAll(func() { ns = newNamespace("sdk-run", false) })
	AfterEach(func() { suite.ReportOLMStateOnFailure(k8s, ns) })

	It("installs v0.1.0 from the bundle image, the operator running in a container whose probes pass", func() {
		began := time.Now()
		runBundle(ns, bundleV1)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)
		expectOperatorRunning(ns, operatorV1)
		AddReportEntry("run bundle", time.Since(began).Round(time.Second).String())

		foo = createFoo(ns, "sdk-foo", 2)
		expectServing(foo, 2, "nginx-unprivileged 1.28.0-alpine")
	})

	It("upgrades to v0.2.0 with run bundle-upgrade, moving the Foo to v0.2.0's operand", func() {
		began := time.Now()
		operatorSDK("run", "bundle-upgrade", framework.InRegistry(registry, bundleV2), "--namespace", ns,
			"--security-context-config", "restricted", "--timeout", "5m")
		suite.ExpectCSVSucceeded(k8s, ns, csvV2)
		expectOperatorRunning(ns, operatorV2)
		expectDeploymentImage(foo, operandV2)
		expectServing(foo, 2, "nginx-unprivileged 1.29.1-alpine")
		AddReportEntry("run bundle-upgrade", time.Since(began).Round(time.Second).String())
	})

	It("leaves nothing behind after operator-sdk cleanup", func() {
		began := time.Now()
		cleanupBundle(ns)
		AddReportEntry("cleanup", time.Since(began).Round(time.Second).String())
	})
})

var _ = Describe("The operator installed from a catalog image", Ordered, func() {
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

var _ = Describe("operator-sdk scorecard", Ordered, func() {
	var ns string
	BeforeAll(func() { ns = newNamespace("scorecard", false) })

	// scorecard runs the tests of the bundle's config.yaml in pods and returns each test's
	// state by name.
	scorecard := func(bundle string) map[string]string {
		GinkgoHelper()
		out, _ := framework.Run(root, nil, []string{"KUBECONFIG=" + cluster.Kubeconfig()}, filepath.Join(root, "bin", "operator-sdk"),
			"scorecard", bundle, "--namespace", ns, "--output", "json", "--wait-time", "3m",
			// Its defaults are quay.io images pinned by digest, which no mirror can serve under
			// that digest: a disconnected user names their mirror's images.
			"--untar-image", "docker.io/library/busybox:1.35.0", "--storage-image", "docker.io/library/busybox:1.35.0")
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
		Expect(json.Unmarshal([]byte(out), &list)).To(Succeed(), out)
		states := map[string]string{}
		for _, item := range list.Items {
			Expect(item.Spec.Image).To(Equal("quay.io/operator-framework/scorecard-test:v1.42.2"))
			for _, r := range item.Status.Results {
				states[r.Name] = r.State
			}
		}
		return states
	}

	It("passes every test of bundle/tests/scorecard/config.yaml, each in its pod", func() {
		began := time.Now()
		states := scorecard(filepath.Join(root, "bundle"))
		Expect(states).To(HaveLen(6))
		for name, state := range states {
			Expect(state).To(Equal("pass"), name)
		}
		AddReportEntry("scorecard", time.Since(began).Round(time.Second).String())
	})

	It("fails olm-spec-descriptors, and only it, on a bundle whose CSV lost its spec descriptors", func() {
		broken := filepath.Join(GinkgoT().TempDir(), "bundle")
		suite.Run(root, nil, "cp", "-r", filepath.Join(root, "bundle"), broken)
		file := filepath.Join(broken, "manifests", "foo-operator.clusterserviceversion.yaml")
		raw, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		Expect(yaml.UnmarshalStrict(raw, csv)).To(Succeed())
		Expect(csv.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors).NotTo(BeEmpty())
		csv.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors = nil
		raw, err = yaml.Marshal(csv)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(file, raw, 0o644)).To(Succeed())

		states := scorecard(broken)
		Expect(states).To(HaveLen(6))
		Expect(states).To(HaveKeyWithValue("olm-spec-descriptors", "fail"))
		delete(states, "olm-spec-descriptors")
		for name, state := range states {
			Expect(state).To(Equal("pass"), name)
		}
	})
})
