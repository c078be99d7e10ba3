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
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

const (
	pkgName        = suite.Package
	serviceAccount = "foo-operator-controller-manager"
)

var _ = Describe("The operator installed through OLM", Label(SimulatedNode), Ordered, func() {
	var (
		catalogV1, catalogV2 string
		installNS            = "foo-operator-e2e"
		fooNS                = "foo-e2e"
	)

	BeforeAll(func() {
		By("generating bundle v0.2.0 with operator-sdk, with a newer operand")
		bundleV2 := filepath.Join(work, "bundle-v0.2.0")
		suite.GenerateBundle("0.2.0", bundleV2)
		// v0.2.0 ships a newer operand (its RELATED_IMAGE_NGINX and relatedImages).
		csvV2File := filepath.Join(bundleV2, "manifests", "foo-operator.clusterserviceversion.yaml")
		raw, err := os.ReadFile(csvV2File)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).To(ContainSubstring(controllers.DefaultOperandImage))
		Expect(os.WriteFile(csvV2File, []byte(strings.ReplaceAll(string(raw), controllers.DefaultOperandImage, operandV2)), 0o644)).To(Succeed())

		By("rendering catalogs with opm: v0.1.0 (the committed bundle), then v0.1.0 and v0.2.0 (replaces v0.1.0)")
		// No bundle image: OLM installs from the catalog's inline objects (simulated pods
		// cannot run a bundle-unpack Job).
		catalogV1 = suite.RenderCatalog(filepath.Join(work, "catalog-v1"), map[string]string{csvV1: filepath.Join(root, "bundle")})
		catalogV2 = suite.RenderCatalog(filepath.Join(work, "catalog-v2"), map[string]string{csvV1: filepath.Join(root, "bundle"), csvV2: bundleV2})

		By("serving catalog v1 with opm and registering it as a grpc CatalogSource")
		serveCatalog("catalog-v1", catalogV1)

		By("creating the install namespace, which enforces Pod Security restricted, and its OperatorGroup")
		for _, ns := range []string{installNS, fooNS} {
			Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{
				"pod-security.kubernetes.io/enforce": "restricted",
			}}})).To(Succeed())
		}
		// SingleNamespace: the operator in installNS watches fooNS only.
		Expect(k8s.Create(context.Background(), &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: installNS},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{fooNS}},
		})).To(Succeed())
	})

	AfterEach(func() { dumpOLMStateOnFailure(installNS) })

	It("installs from the catalog with a Subscription (Manual approval, as operator-sdk run bundle does)", func() {
		began := time.Now()
		subscription(installNS, "olm", "foo-catalog", startingAt(csvV1))

		By("approving the Subscription's InstallPlan")
		approveInstallPlan(installNS, csvV1)

		suite.ExpectCSVSucceeded(k8s, installNS, csvV1)
		AddReportEntry("install time", time.Since(began).Round(time.Second).String())

		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Name: "foos.samplecontroller.example.com"}, crd)).To(Succeed())
		Expect(crdEstablished(crd)).To(BeTrue())

		By("granting Deployment and Event rights in the target namespace only")
		expectScopedTo(installNS, []string{fooNS}, []string{"default", "kube-system"})
	})

	It("runs the operator with the RBAC and environment OLM gave it, and reconciles the sample Foo", func() {
		runOperatorAsInstalled(installNS)

		foo := sampleFoo(fooNS)
		Expect(k8s.Create(context.Background(), foo)).To(Succeed())
		replicas := foo.Spec.DesiredReplicas()
		Eventually(func(g Gomega) {
			got := &samplev1alpha1.Foo{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
			g.Expect(got.Status.AvailableReplicas).To(Equal(replicas))
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.AvailableCondition)).To(BeTrue())
			g.Expect(runningPods(g, fooNS, foo.Name)).To(HaveLen(int(replicas)))
		}).Should(Succeed())

		By("kubectl scale foo --replicas=2")
		scale := &autoscalingv1.Scale{}
		Expect(k8s.SubResource("scale").Get(context.Background(), foo, scale)).To(Succeed())
		scale.Spec.Replicas = 2
		Expect(k8s.SubResource("scale").Update(context.Background(), foo, client.WithSubResourceBody(scale))).To(Succeed())
		Eventually(func(g Gomega) {
			got := &samplev1alpha1.Foo{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(2)))
			g.Expect(runningPods(g, fooNS, foo.Name)).To(HaveLen(2))
		}).Should(Succeed())

		By("leaving a Foo outside the target namespaces alone")
		expectLeftAlone(sampleFoo(installNS))
	})

	It("renames a Foo's Deployment without downtime", func() {
		runOperatorAsInstalled(installNS)
		foo := sampleFoo(fooNS)
		foo.Name, foo.Spec.DeploymentName, foo.Spec.Replicas = "renamed", "web-a", ptr.To[int32](2)
		Expect(k8s.Create(context.Background(), foo)).To(Succeed())
		expectFooReady(foo)

		began := time.Now()
		patch := client.MergeFrom(foo.DeepCopy())
		foo.Spec.DeploymentName = "web-b"
		Expect(k8s.Patch(context.Background(), foo, patch)).To(Succeed())
		// Poll both Deployments until web-a is gone: some replicas are available all along.
		var newAvailable, oldGone time.Duration
		minAvailable := int32(2)
		Eventually(func(g Gomega) {
			a, aErr := availableReplicas(fooNS, "web-a")
			b, bErr := availableReplicas(fooNS, "web-b")
			g.Expect(aErr).NotTo(HaveOccurred())
			g.Expect(bErr).NotTo(HaveOccurred())
			minAvailable = min(minAvailable, a+b)
			if b > 0 && newAvailable == 0 {
				newAvailable = time.Since(began)
			}
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: "web-a"}, &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "web-a is still there")
			oldGone = time.Since(began)
		}).WithPolling(100 * time.Millisecond).Should(Succeed())
		Expect(minAvailable).To(BeNumerically(">", 0))
		AddReportEntry("rename", fmt.Sprintf("web-b available after %v, web-a deleted after %v, fewest available replicas during the rename: %d",
			newAvailable.Round(100*time.Millisecond), oldGone.Round(100*time.Millisecond), minAvailable))
		expectFooReady(foo)
	})

	It("upgrades to v0.2.0 when the catalog publishes it, rolling every Foo's Deployment to its operand", func() {
		foos := &samplev1alpha1.FooList{}
		Expect(k8s.List(context.Background(), foos, client.InNamespace(fooNS))).To(Succeed())
		Expect(foos.Items).To(HaveLen(2))
		uids := map[string]types.UID{}
		for _, foo := range foos.Items {
			d := &appsv1.Deployment{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: foo.Spec.DeploymentName}, d)).To(Succeed())
			Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(controllers.DefaultOperandImage))
			uids[d.Name] = d.UID
		}

		began := time.Now()
		serveCatalog("catalog-v2", catalogV2)
		// Manual approval: approve the upgrade's InstallPlan.
		approveInstallPlan(installNS, csvV2)
		suite.ExpectCSVSucceeded(k8s, installNS, csvV2)
		AddReportEntry("upgrade time", time.Since(began).Round(time.Second).String())
		Eventually(func(g Gomega) {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: installNS, Name: csvV1}, &operatorsv1alpha1.ClusterServiceVersion{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the old CSV should be gone")
		}).Should(Succeed())

		By("running v0.2.0, which rolls every existing Foo's pods to its operand")
		runOperatorAsInstalled(installNS)
		for _, foo := range foos.Items {
			Eventually(func(g Gomega) {
				d := &appsv1.Deployment{}
				g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: foo.Spec.DeploymentName}, d)).To(Succeed())
				g.Expect(d.UID).To(Equal(uids[d.Name]), "the Deployment was replaced")
				g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(operandV2))
				pods := runningPods(g, fooNS, foo.Name)
				g.Expect(pods).To(HaveLen(int(foo.Spec.DesiredReplicas())))
				for _, p := range pods {
					g.Expect(p.Spec.Containers[0].Image).To(Equal(operandV2), "pod %s", p.Name)
				}
			}).Should(Succeed())
			expectFooReady(&foo)
		}

		By("the new version reconciles a change of a Foo")
		foo := &samplev1alpha1.Foo{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: "example-foo"}, foo)).To(Succeed())
		patch := client.MergeFrom(foo.DeepCopy())
		foo.Spec.Replicas = ptr.To[int32](3)
		Expect(k8s.Patch(context.Background(), foo, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(runningPods(g, fooNS, "example-foo")).To(HaveLen(3))
		}).Should(Succeed())
	})

	It("lets the garbage collector delete a deleted Foo's Deployment and pods", func() {
		runOperatorAsInstalled(installNS)
		foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: fooNS, Name: "example-foo"}}
		Expect(k8s.Delete(context.Background(), foo)).To(Succeed())
		Eventually(func(g Gomega) {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: "example-foo"}, &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
			g.Expect(runningPods(g, fooNS, "example-foo")).To(BeEmpty())
		}).Should(Succeed())
	})

	It("uninstalls when the Subscription and CSV are deleted, leaving the CRD", func() {
		uninstall(installNS, csvV2)
		Expect(k8s.Get(context.Background(), client.ObjectKey{Name: "foos.samplecontroller.example.com"}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
	})

	It("installs for several namespaces (MultiNamespace) and reconciles Foos in those only", func() {
		const multiNS = "foo-operator-multi"
		targets := []string{"team-a", "team-b"}
		for _, ns := range append([]string{multiNS, "team-c"}, targets...) {
			Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		}
		DeferCleanup(dumpOLMStateOnFailure, multiNS)
		Expect(k8s.Create(context.Background(), &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: multiNS},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
		})).To(Succeed())
		subscription(multiNS, "olm", "foo-catalog", nil)
		suite.ExpectCSVSucceeded(k8s, multiNS, csvV2)
		expectScopedTo(multiNS, targets, []string{"team-c", "default"})

		runOperatorAsInstalled(multiNS)
		for _, ns := range targets {
			foo := sampleFoo(ns)
			Expect(k8s.Create(context.Background(), foo)).To(Succeed())
			expectFooReady(foo)
		}
		expectLeftAlone(sampleFoo("team-c"))

		By("uninstalling, before the AllNamespaces install (OLM refuses two OperatorGroups providing Foos to one namespace)")
		uninstall(multiNS, csvV2)
		Expect(k8s.Delete(context.Background(), &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: multiNS}})).To(Succeed())
	})

	It("installs for all namespaces with Automatic approval, as an OperatorHub user does, and reconciles Foos anywhere", func() {
		// The global OperatorGroup of OLM's "operators" namespace.
		const globalNS = "operators"
		DeferCleanup(dumpOLMStateOnFailure, globalNS)
		began := time.Now()
		subscription(globalNS, "olm", "foo-catalog", nil)
		// The catalog now serves v0.2.0 at the head of stable.
		suite.ExpectCSVSucceeded(k8s, globalNS, csvV2)
		AddReportEntry("install time (AllNamespaces, Automatic)", time.Since(began).Round(time.Second).String())

		runOperatorAsInstalled(globalNS)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "foo-anywhere-"}}
		Expect(k8s.Create(context.Background(), ns)).To(Succeed())
		foo := sampleFoo(ns.Name)
		Expect(k8s.Create(context.Background(), foo)).To(Succeed())
		Eventually(func(g Gomega) {
			got := &samplev1alpha1.Foo{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
			g.Expect(runningPods(g, ns.Name, foo.Name)).To(HaveLen(int(foo.Spec.DesiredReplicas())))
		}).Should(Succeed())
	})

	It("scales a Foo with a HorizontalPodAutoscaler, the Deployment following the Foo", func() {
		runOperatorAsInstalled("operators") // installed for all namespaces above
		expectHPAScaling()
	})

	It("reports a rename that a ResourceQuota blocks with the quota's message, keeping the serving Deployment", func() {
		runOperatorAsInstalled("operators")
		expectQuotaBlockedRename()
	})

	It("keeps a Foo Ready while a node drain evicts one of its pods within the Deployment's maxUnavailable", func() {
		runOperatorAsInstalled("operators")
		expectDrainWithinAvailability()
	})
})

// uninstall deletes the Subscription and the CSV in ns, as the README says, and waits until
// OLM removed the operator's Deployment.
func uninstall(ns, csv string) {
	GinkgoHelper()
	Expect(k8s.Delete(context.Background(), &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: pkgName, Namespace: ns}})).To(Succeed())
	Expect(k8s.Delete(context.Background(), &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: csv, Namespace: ns}})).To(Succeed())
	Eventually(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: serviceAccount}, &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the operator Deployment should be gone")
	}).Should(Succeed())
}

// expectLeftAlone creates a Foo outside the operator's target namespaces, checks that the
// running operator creates no Deployment for it, and deletes it.
func expectLeftAlone(foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	Expect(k8s.Create(context.Background(), foo)).To(Succeed())
	Consistently(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
	}, 10*time.Second, time.Second).Should(Succeed())
	Expect(k8s.Delete(context.Background(), foo)).To(Succeed())
}

// serveCatalog serves a file-based catalog with `opm serve` on a free loopback port, and
// points the CatalogSource foo-catalog at it (creating it the first time). opm serve does not
// reload, so a new catalog gets a new process.
func serveCatalog(name, dir string) {
	GinkgoHelper()
	port := suite.FreePort()
	suite.Start(work, name, nil, filepath.Join(root, "bin", "opm"), "serve", dir, "--port", fmt.Sprint(port), "--pprof-addr", "")
	address := fmt.Sprintf("127.0.0.1:%d", port)
	cs := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: "foo-catalog", Namespace: "olm"}}
	err := k8s.Get(context.Background(), client.ObjectKeyFromObject(cs), cs)
	switch {
	case apierrors.IsNotFound(err):
		cs.Spec = operatorsv1alpha1.CatalogSourceSpec{SourceType: operatorsv1alpha1.SourceTypeGrpc, Address: address, DisplayName: "Foo Operator (e2e)"}
		Expect(k8s.Create(context.Background(), cs)).To(Succeed())
	case err == nil:
		patch := client.MergeFrom(cs.DeepCopy())
		cs.Spec.Address = address
		Expect(k8s.Patch(context.Background(), cs, patch)).To(Succeed())
	default:
		Expect(err).NotTo(HaveOccurred())
	}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(cs), cs)).To(Succeed())
		g.Expect(cs.Status.GRPCConnectionState).NotTo(BeNil())
		g.Expect(cs.Status.GRPCConnectionState.Address).To(Equal(address))
		g.Expect(cs.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
	}).Should(Succeed())
}

func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// runOperatorAsInstalled runs the operator binary as a local process, as the Deployment OLM
// created would run it: with a token of the service account OLM created (so the CSV's RBAC
// is what it gets) and the environment of the Deployment's pod template, with
// WATCH_NAMESPACE from the olm.targetNamespaces annotation OLM set on it. Simulated pods run
// nothing, so this is how the operator's code runs here.
func runOperatorAsInstalled(ns string) {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: serviceAccount}, d)).To(Succeed())
		g.Expect(d.Status.AvailableReplicas).To(Equal(int32(1)), "OLM's operator Deployment is admitted and available")
	}).Should(Succeed())
	tmpl := d.Spec.Template
	targets, ok := tmpl.Annotations["olm.targetNamespaces"]
	Expect(ok).To(BeTrue(), "OLM sets olm.targetNamespaces on the operator's pods")

	token, err := framework.Token(context.Background(), clientset, ns, tmpl.Spec.ServiceAccountName)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(work, "operator-"+d.ResourceVersion+".kubeconfig")
	Expect(framework.WriteKubeconfig(kubeconfig, cfg.Host, cfg.CAData, &clientcmdapi.AuthInfo{Token: token}, ns)).To(Succeed())

	var env []string
	for _, e := range tmpl.Spec.Containers[0].Env {
		if e.Value != "" {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	env = append(env, "WATCH_NAMESPACE="+targets)
	suite.Start(work, "operator", env, managerBin, "--kubeconfig="+kubeconfig, "--leader-elect", "--leader-election-namespace="+ns,
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
}

// expectScopedTo checks, with kubectl auth can-i, that OLM granted the operator's service
// account in ns the right to create and delete Deployments in the target namespaces and
// not in the others.
func expectScopedTo(ns string, targets, others []string) {
	GinkgoHelper()
	sa := fmt.Sprintf("system:serviceaccount:%s:%s", ns, serviceAccount)
	for _, verb := range []string{"create", "delete"} {
		for _, target := range targets {
			Eventually(func() string { return canI(sa, verb, "deployments.apps", target) }).Should(Equal("yes"), "%s %s in %s", sa, verb, target)
		}
		for _, other := range others {
			Expect(canI(sa, verb, "deployments.apps", other)).To(Equal("no"), "%s %s in %s", sa, verb, other)
		}
	}
}

// canI is what `kubectl auth can-i --as user verb resource -n ns` answers.
func canI(user, verb, resource, ns string) string {
	GinkgoHelper()
	out, err := framework.Run(root, nil, nil, filepath.Join(root, "bin", "kubectl"), "--kubeconfig", cluster.Kubeconfig(),
		"auth", "can-i", verb, resource, "-n", ns, "--as", user)
	answer := strings.TrimSpace(out)
	if err != nil && answer != "no" { // "no" exits with 1
		Fail(err.Error())
	}
	return answer
}

// expectFooReady waits until foo reports its current generation Ready.
func expectFooReady(foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue(), "%v", got.Status.Conditions)
		g.Expect(runningPods(g, foo.Namespace, foo.Name)).To(HaveLen(int(got.Spec.DesiredReplicas())))
	}).Should(Succeed())
}

// availableReplicas is a Deployment's status.availableReplicas; 0 when it does not exist.
func availableReplicas(ns, name string) (int32, error) {
	d := &appsv1.Deployment{}
	err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return d.Status.AvailableReplicas, err
}

func sampleFoo(ns string) *samplev1alpha1.Foo {
	GinkgoHelper()
	csvFile, err := os.ReadFile(filepath.Join(root, "bundle", "manifests", "foo-operator.clusterserviceversion.yaml"))
	Expect(err).NotTo(HaveOccurred())
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Expect(yaml.Unmarshal(csvFile, csv)).To(Succeed())
	var foos []samplev1alpha1.Foo
	Expect(json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &foos)).To(Succeed())
	Expect(foos).NotTo(BeEmpty())
	foo := foos[0].DeepCopy()
	foo.Namespace = ns
	return foo
}

// runningPods are the Running pods of a Foo's Deployment, found by its selector.
func runningPods(g Gomega, ns, fooName string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels{"app": "nginx", "controller": fooName})).To(Succeed())
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	return running
}

// dumpOLMStateOnFailure adds what OLM says about the install in ns, and its logs, to the
// report of a failed spec.
func dumpOLMStateOnFailure(ns string) {
	suite.ReportOLMStateOnFailure(k8s, ns)
	if !CurrentSpecReport().Failed() {
		return
	}
	for _, name := range []string{"olm", "catalog"} {
		log, _ := os.ReadFile(filepath.Join(cluster.Dir, name+".log"))
		if len(log) > 20000 {
			log = log[len(log)-20000:]
		}
		AddReportEntry(name+" log (tail)", string(log))
	}
}
