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
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// operatorSDK runs bin/operator-sdk against the cluster, trusting the registries' CAs, and
// returns its output; it fails the spec if the command fails.
func operatorSDK(args ...string) string {
	GinkgoHelper()
	out, err := framework.Run(root, nil, []string{"KUBECONFIG=" + cluster.Kubeconfig(), "SSL_CERT_FILE=" + hostCAs},
		filepath.Join(root, "bin", "operator-sdk"), args...)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// runBundle installs bundle (an image in the user's registry) into ns with operator-sdk run
// bundle and args, its registry pod under Pod Security restricted.
func runBundle(ns, bundle string, args ...string) {
	GinkgoHelper()
	operatorSDK(append([]string{"run", "bundle", bundle, "--namespace", ns,
		// The CLI reads the index image's labels itself: its default (quay.io's
		// opm:latest) is out of reach here, as on a disconnected cluster.
		"--index-image", framework.InRegistry(registry, "quay.io/example/empty-index:v1.65.0"),
		"--security-context-config", "restricted", "--timeout", "5m"}, args...)...)
}

// cleanupBundle uninstalls what runBundle installed in ns with operator-sdk cleanup, and
// checks that nothing of it is left: in ns, the CRD, the CSV's ClusterRoles.
func cleanupBundle(ns string) {
	GinkgoHelper()
	operatorSDK("cleanup", suite.Package, "--namespace", ns, "--timeout", "3m")
	expectOnlyDefaultsLeft(ns)
	expectCRDGone()
	expectClusterRolesGone(ns)
}

// newNamespace creates a namespace named after prefix; restricted makes it enforce the Pod
// Security "restricted" profile, as OpenShift and hardened clusters do.
func newNamespace(prefix string, restricted bool) string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if restricted {
		ns.Labels = map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
	}
	Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// expectOperatorRunning waits until the operator's Deployment in ns has one pod whose
// container runs image, Ready (its readiness probe passes) and never restarted (its
// liveness probe passes), with both probes as config/manager declares them.
func expectOperatorRunning(ns, image string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8s.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		var running []corev1.Pod
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				running = append(running, p)
			}
		}
		g.Expect(running).To(HaveLen(1))
		pod := running[0]
		g.Expect(pod.Spec.Containers[0].Image).To(Equal(image))
		g.Expect(pod.Spec.Containers[0].ReadinessProbe).NotTo(BeNil())
		g.Expect(pod.Spec.Containers[0].LivenessProbe).NotTo(BeNil())
		g.Expect(pod.Status.ContainerStatuses).To(HaveLen(1))
		status := pod.Status.ContainerStatuses[0]
		g.Expect(status.Ready).To(BeTrue(), "readiness probe")
		g.Expect(status.State.Running).NotTo(BeNil())
		g.Expect(status.RestartCount).To(BeZero())
		// Ready proves the readiness probe; the liveness probe (15 s initial delay) is seen
		// passing in the kubelet's own probe counters.
		g.Expect(probeSuccesses(g, pod, "Liveness")).To(BeNumerically(">", 0), "liveness probe")
	}).Should(Succeed())
}

// probeSuccesses is how many probes of probeType (Liveness, Readiness) of pod's first
// container succeeded, as the kubelet counts them (prober_probe_total of its
// /metrics/probes, read through the API server's node proxy).
func probeSuccesses(g Gomega, pod corev1.Pod, probeType string) int {
	raw, err := clientset.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", pod.Spec.NodeName, "proxy", "metrics", "probes").
		DoRaw(context.Background())
	g.Expect(err).NotTo(HaveOccurred())
	labels := []string{`container="` + pod.Spec.Containers[0].Name + `"`, `namespace="` + pod.Namespace + `"`,
		`pod="` + pod.Name + `"`, `probe_type="` + probeType + `"`, `result="successful"`}
	for _, line := range strings.Split(string(raw), "\n") {
		series, value, ok := strings.Cut(line, "} ")
		if !ok || !strings.HasPrefix(series, "prober_probe_total{") {
			continue
		}
		if slices.ContainsFunc(labels, func(l string) bool { return !strings.Contains(series, l) }) {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		g.Expect(err).NotTo(HaveOccurred())
		return int(n)
	}
	return 0
}

// createFoo creates a Foo whose Deployment has its name.
func createFoo(ns, name string, replicas int32, opts ...func(*samplev1alpha1.Foo)) *samplev1alpha1.Foo {
	GinkgoHelper()
	foo := &samplev1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       samplev1alpha1.FooSpec{DeploymentName: name, Replicas: ptr.To(replicas)},
	}
	for _, opt := range opts {
		opt(foo)
	}
	Expect(k8s.Create(context.Background(), foo)).To(Succeed())
	return foo
}

// withImage sets the Foo's operand image.
func withImage(image string) func(*samplev1alpha1.Foo) {
	return func(foo *samplev1alpha1.Foo) { foo.Spec.Image = image }
}

// expectServing waits until exactly n pods of foo are Ready and each answers GET / on its
// pod IP with 200 and a page containing text, and the Foo reports n available replicas.
func expectServing(foo *samplev1alpha1.Foo, n int, text string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		ips := readyPodIPs(g, foo)
		g.Expect(ips).To(HaveLen(n))
		for _, ip := range ips {
			code, body := get(fmt.Sprintf("http://%s:8080/", ip))
			g.Expect(code).To(Equal(http.StatusOK), ip)
			g.Expect(body).To(ContainSubstring(text), ip)
		}
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		g.Expect(got.Status.AvailableReplicas).To(BeEquivalentTo(n))
	}).Should(Succeed())
}

// readyPodIPs are the IPs of foo's pods that are Ready and not being deleted.
func readyPodIPs(g Gomega, foo *samplev1alpha1.Foo) []string {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(foo.Namespace),
		client.MatchingLabels{"app": "nginx", "controller": foo.Name})).To(Succeed())
	var ips []string
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
				ips = append(ips, p.Status.PodIP)
			}
		}
	}
	return ips
}

// get is the status code and body of a GET of url (0 when it cannot connect).
func get(url string) (int, string) {
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// expectDeploymentImage waits until foo's Deployment runs image in all its replicas.
func expectDeploymentImage(foo *samplev1alpha1.Foo, image string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, d)).To(Succeed())
		g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(image))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(d.Status.Replicas))
	}).Should(Succeed())
}

// expectOnlyDefaultsLeft waits until ns holds nothing but what every namespace has, and
// the kind/name objects of keep: no pod, Deployment, Service, Secret or OLM object, no
// ConfigMap but kube-root-ca.crt and no ServiceAccount but default.
func expectOnlyDefaultsLeft(ns string, keep ...string) {
	GinkgoHelper()
	lists := map[string]client.ObjectList{
		"pod": &corev1.PodList{}, "deployment": &appsv1.DeploymentList{}, "service": &corev1.ServiceList{},
		"secret": &corev1.SecretList{}, "configmap": &corev1.ConfigMapList{}, "serviceaccount": &corev1.ServiceAccountList{},
		"csv": &operatorsv1alpha1.ClusterServiceVersionList{}, "subscription": &operatorsv1alpha1.SubscriptionList{},
		"installplan": &operatorsv1alpha1.InstallPlanList{}, "catalogsource": &operatorsv1alpha1.CatalogSourceList{},
		"operatorgroup": &operatorsv1.OperatorGroupList{},
	}
	defaults := map[string]bool{"configmap/kube-root-ca.crt": true, "serviceaccount/default": true}
	for _, k := range keep {
		defaults[k] = true
	}
	Eventually(func(g Gomega) []string {
		var left []string
		for kind, list := range lists {
			g.Expect(k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
			items, err := meta.ExtractList(list)
			g.Expect(err).NotTo(HaveOccurred())
			for _, item := range items {
				obj, err := meta.Accessor(item)
				g.Expect(err).NotTo(HaveOccurred())
				if name := kind + "/" + obj.GetName(); !defaults[name] {
					left = append(left, name)
				}
			}
		}
		return left
	}).Should(BeEmpty())
}

// expectUnpackJob checks that OLM ran a bundle-unpack Job in ns that pulled bundle and
// succeeded.
func expectUnpackJob(ns, bundle string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		jobs := &batchv1.JobList{}
		g.Expect(k8s.List(context.Background(), jobs, client.InNamespace(ns), client.HasLabels{"operatorframework.io/bundle-unpack-ref"})).To(Succeed())
		var succeeded []string
		for _, j := range jobs.Items {
			for _, c := range j.Spec.Template.Spec.InitContainers {
				if c.Image == bundle && j.Status.Succeeded > 0 {
					succeeded = append(succeeded, j.Name)
				}
			}
		}
		g.Expect(succeeded).To(HaveLen(1), "a completed unpack Job of %s", bundle)
	}).Should(Succeed())
}

// expectClusterRolesGone waits until OLM v0 has deleted the cluster roles it labelled as
// the CSVs' in ns, which it does after the CSVs are gone.
func expectClusterRolesGone(ns string) {
	GinkgoHelper()
	Eventually(func(g Gomega) []string {
		roles := &metav1.PartialObjectMetadataList{}
		roles.SetGroupVersionKind(rbacv1.SchemeGroupVersion.WithKind("ClusterRoleList"))
		g.Expect(k8s.List(context.Background(), roles, client.MatchingLabels{"olm.owner.namespace": ns, "olm.owner.kind": "ClusterServiceVersion"})).To(Succeed())
		var names []string
		for _, r := range roles.Items {
			names = append(names, r.Name)
		}
		return names
	}).Should(BeEmpty(), "the cluster roles OLM made for the CSVs in %s", ns)
}

// subscribe installs the package in ns as a user does through OLM v0: a CatalogSource named
// catalogName in catalogNS serving image (its registry pod under Pod Security restricted),
// and a Subscription to it (subscription).
func subscribe(ns, catalogNS, catalogName, image string, adjust func(*operatorsv1alpha1.SubscriptionSpec)) {
	GinkgoHelper()
	Expect(k8s.Create(context.Background(), &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: catalogName, Namespace: catalogNS},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: image, DisplayName: "Foo Operator",
			GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted},
		},
	})).To(Succeed())
	subscription(ns, catalogNS, catalogName, adjust)
}

// subscription subscribes ns to the package's stable channel in the CatalogSource
// catalogNS/catalogName, with Automatic approval; adjust, if any, changes the spec.
func subscription(ns, catalogNS, catalogName string, adjust func(*operatorsv1alpha1.SubscriptionSpec)) {
	GinkgoHelper()
	spec := &operatorsv1alpha1.SubscriptionSpec{
		Package: suite.Package, Channel: "stable", CatalogSource: catalogName, CatalogSourceNamespace: catalogNS,
		InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
	}
	if adjust != nil {
		adjust(spec)
	}
	Expect(k8s.Create(context.Background(), &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: suite.Package, Namespace: ns}, Spec: spec,
	})).To(Succeed())
}

// startingAt is a Subscription that starts at csv, with Manual approval (as operator-sdk
// run bundle makes it): each InstallPlan waits for approveInstallPlan.
func startingAt(csv string) func(*operatorsv1alpha1.SubscriptionSpec) {
	return func(spec *operatorsv1alpha1.SubscriptionSpec) {
		spec.StartingCSV, spec.InstallPlanApproval = csv, operatorsv1alpha1.ApprovalManual
	}
}

// approveInstallPlan approves the InstallPlan in ns that installs csv, which waits for
// approval.
func approveInstallPlan(ns, csv string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		plans := &operatorsv1alpha1.InstallPlanList{}
		g.Expect(k8s.List(context.Background(), plans, client.InNamespace(ns))).To(Succeed())
		i := slices.IndexFunc(plans.Items, func(p operatorsv1alpha1.InstallPlan) bool {
			return slices.Contains(p.Spec.ClusterServiceVersionNames, csv)
		})
		g.Expect(i).NotTo(Equal(-1), "an InstallPlan for %s", csv)
		plan := &plans.Items[i]
		if !plan.Spec.Approved {
			g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseRequiresApproval))
			patch := client.MergeFrom(plan.DeepCopy())
			plan.Spec.Approved = true
			g.Expect(k8s.Patch(context.Background(), plan, patch)).To(Succeed())
		}
	}).Should(Succeed())
}

// unsubscribe uninstalls what subscribe installed as a user does (the Subscription, the
// CSVs, the CatalogSource) and waits until OLM has removed what it made of them, the
// OperatorGroup foo-operator aside.
func unsubscribe(ns, catalogNS, catalogName string, csvs ...string) {
	GinkgoHelper()
	objs := []client.Object{&operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: suite.Package, Namespace: ns}}}
	for _, csv := range csvs {
		objs = append(objs, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: csv, Namespace: ns}})
	}
	objs = append(objs, &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: catalogName, Namespace: catalogNS}})
	for _, obj := range objs {
		Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), obj))).To(Succeed())
	}
	expectOnlyDefaultsLeft(ns, "operatorgroup/foo-operator")
	expectClusterRolesGone(ns)
}
