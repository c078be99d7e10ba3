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
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/pkg/generated/clientset/versioned"
	"github.com/example/foo-operator/test/framework/suite"
)

// expectHPAScaling applies the HorizontalPodAutoscaler sample of config/samples to the sample
// Foo, raises and lowers the CPU the Foo's pods use (loadPods), and checks that
// kube-controller-manager's HPA controller scales the Foo (through its scale subresource,
// with metrics from metrics-server) up, and back down to minReplicas, and that the
// operator's Deployment follows the Foo: it takes only values the Foo had, in their order,
// and nothing but the operator sets its replicas.
func expectHPAScaling() {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "foo-hpa-"}}
	Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	foo := suite.SampleFoo(ns.Name)
	Expect(k8s.Create(context.Background(), foo)).To(Succeed())
	env.ExpectFooReady(foo)

	hpa := suite.SampleHPA(ns.Name, foo.Name)
	minReplicas, maxReplicas := ptr.Deref(hpa.Spec.MinReplicas, 1), hpa.Spec.MaxReplicas
	Expect(foo.Spec.DesiredReplicas()).To(Equal(minReplicas), "the sample Foo starts at minReplicas")

	replicas := recordReplicas(ns.Name, foo.Name, foo.Spec.DeploymentName)
	Expect(k8s.Create(context.Background(), hpa)).To(Succeed())

	By("raising the CPU the Foo's pods use")
	raised := time.Now()
	stopLoad := loadPods(foo)
	peak := expectScaledUp(foo, hpa, maxReplicas)
	up := time.Since(raised)

	By("lowering it")
	lowered := time.Now()
	stopLoad()
	expectScaledTo(foo, minReplicas)
	down := time.Since(lowered)
	AddReportEntry("HorizontalPodAutoscaler", fmt.Sprintf("on a %s node: scaled up %d → %d in %v after the load rose, down to %d in %v after it fell",
		node, minReplicas, peak, up.Round(time.Second), minReplicas, down.Round(time.Second)))
	GinkgoWriter.Printf("HPA scale-up %v, scale-down %v\n", up.Round(time.Second), down.Round(time.Second))

	// The watches deliver their last events asynchronously.
	Eventually(func(g Gomega) {
		fooReplicas, deploymentReplicas := replicas()
		g.Expect(fooReplicas).To(ContainElements(minReplicas, peak))
		g.Expect(deploymentReplicas).NotTo(BeEmpty())
		g.Expect(deploymentReplicas[len(deploymentReplicas)-1]).To(Equal(minReplicas))
		g.Expect(isSubsequence(deploymentReplicas, fooReplicas)).To(BeTrue(),
			"the Deployment's replicas %v follow the Foo's %v", deploymentReplicas, fooReplicas)
	}).WithTimeout(10 * time.Second).Should(Succeed())

	d := &appsv1.Deployment{}
	Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns.Name, Name: foo.Spec.DeploymentName}, d)).To(Succeed())
	Expect(replicasManagers(d)).To(Equal([]string{controllers.FieldManager}), "only the operator sets the Deployment's replicas")
}

// expectScaledTo waits until the Foo asks for n replicas, has n available and reports it
// (Available), and n pods run.
func expectScaledTo(foo *samplev1alpha1.Foo, n int32) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		g.Expect(got.Spec.DesiredReplicas()).To(Equal(n))
		g.Expect(got.Status.AvailableReplicas).To(Equal(n))
		g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.AvailableCondition)).To(BeTrue(), "%v", got.Status.Conditions)
		g.Expect(env.RunningPods(g, foo.Namespace, foo.Name)).To(HaveLen(int(n)))
	}).WithTimeout(5 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
}

// loadLabels are the labels of the pods that loadPods starts on a real node.
var loadLabels = map[string]string{"app": "load"}

// loadPods raises the CPU the pods of foo use above the HPA's target, and returns what lowers
// it again. On a simulated node, kwok reports three times their request (simulateCPU); on a
// real node, a pod in the cluster sends them HTTP requests through a Service, and the kubelet
// measures what they use.
func loadPods(foo *samplev1alpha1.Foo) (stop func()) {
	GinkgoHelper()
	if !cluster.RealNode {
		simulateCPU(foo.Name, "30m") // the pods request 10m; the HPA aims at 50 %
		return func() { simulateCPU(foo.Name, "1m") }
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: foo.Name, Namespace: foo.Namespace},
		Spec:       corev1.ServiceSpec{Selector: controllers.SelectorLabels(foo.Name), Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(8080)}}},
	}
	Expect(k8s.Create(context.Background(), svc)).To(Succeed())
	load := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "load", Namespace: foo.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: loadLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: loadLabels},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name: "load", Image: "docker.io/library/busybox:1.35.0",
						Command: []string{"sh", "-c", fmt.Sprintf("while true; do wget -q -O /dev/null http://%s:8080/; done", svc.Name)},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	Expect(k8s.Create(context.Background(), load)).To(Succeed())
	return func() { Expect(k8s.Delete(context.Background(), load)).To(Succeed()) }
}

// expectScaledUp waits until hpa scaled foo up from its minReplicas, and returns to how
// many: maxReplicas on a simulated node, whose pods use three times what the HPA aims at; on
// a real node, what their measured CPU asks for. A scale that does not come fails with what
// the HPA and the load's pods report (hpaState, read only then).
func expectScaledUp(foo *samplev1alpha1.Foo, hpa *autoscalingv2.HorizontalPodAutoscaler, maxReplicas int32) int32 {
	GinkgoHelper()
	var peak int32
	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		peak = got.Spec.DesiredReplicas()
		g.Expect(peak).To(BeNumerically(">", ptr.Deref(hpa.Spec.MinReplicas, 1)), func() string { return "the HPA scaled the Foo up; " + hpaState(hpa) })
		if !cluster.RealNode {
			g.Expect(peak).To(Equal(maxReplicas), func() string { return "the HPA scaled the Foo to maxReplicas; " + hpaState(hpa) })
		}
		g.Expect(got.Status.AvailableReplicas).To(Equal(peak), func() string { return "the Foo's replicas available; " + podsState(got) })
	}).WithTimeout(5 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
	if !cluster.RealNode {
		expectScaledTo(foo, maxReplicas) // and its pods run
	}
	return peak
}

// hpaState is what hpa reports (its status: replicas, metrics and conditions, such as a
// metric it cannot get) and the state of the load's pods (loadPods), or why it cannot be read.
func hpaState(hpa *autoscalingv2.HorizontalPodAutoscaler) string {
	got := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(hpa), got); err != nil {
		return fmt.Sprintf("the HPA: %v", err)
	}
	status, err := json.Marshal(got.Status)
	if err != nil {
		return fmt.Sprintf("the HPA's status: %v", err)
	}
	pods := &corev1.PodList{}
	if err := k8s.List(context.Background(), pods, client.InNamespace(hpa.Namespace), client.MatchingLabels(loadLabels)); err != nil {
		return fmt.Sprintf("the HPA's status: %s; the load's pods: %v", status, err)
	}
	load := make([]string, 0, len(pods.Items))
	for _, p := range pods.Items {
		containers, err := json.Marshal(p.Status.ContainerStatuses)
		if err != nil {
			return fmt.Sprintf("the HPA's status: %s; the load's pods: %v", status, err)
		}
		load = append(load, fmt.Sprintf("%s %s %s", p.Name, p.Status.Phase, containers))
	}
	return fmt.Sprintf("the HPA's status: %s; the load's pods: %v", status, load)
}

// podsState is what foo reports (its conditions) and the state of its pods (phase and the
// conditions not true, such as a pod the scheduler could not place), or why it cannot be read.
func podsState(foo *samplev1alpha1.Foo) string {
	conditions, err := json.Marshal(foo.Status.Conditions)
	if err != nil {
		return fmt.Sprintf("the Foo's conditions: %v", err)
	}
	pods := &corev1.PodList{}
	if err := k8s.List(context.Background(), pods, client.InNamespace(foo.Namespace), client.MatchingLabels(controllers.SelectorLabels(foo.Name))); err != nil {
		return fmt.Sprintf("the Foo's conditions: %s; its pods: %v", conditions, err)
	}
	states := make([]string, 0, len(pods.Items))
	for _, p := range pods.Items {
		state := fmt.Sprintf("%s %s", p.Name, p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue {
				state += fmt.Sprintf(" %s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
			}
		}
		states = append(states, state)
	}
	return fmt.Sprintf("the Foo's conditions: %s; its pods: %v", conditions, states)
}

// simulateCPU sets the CPU kwok reports for every container of the Foo's pods (1m for all
// others), in the ClusterResourceUsage hack/local-cluster.sh creates; metrics-server serves
// it to the HPA controller. The default comes back when the spec ends.
func simulateCPU(fooName, cpu string) {
	GinkgoHelper()
	usage := &unstructured.Unstructured{}
	usage.SetAPIVersion("kwok.x-k8s.io/v1alpha1")
	usage.SetKind("ClusterResourceUsage")
	usage.SetName("simulated-usage")
	expression := fmt.Sprintf(`"controller" in pod.metadata.labels && pod.metadata.labels["controller"] == %q ? Quantity(%q) : Quantity("1m")`, fooName, cpu)
	patch := fmt.Sprintf(`{"spec":{"usages":[{"usage":{"cpu":{"expression":%q},"memory":{"value":"16Mi"}}}]}}`, expression)
	Expect(k8s.Patch(context.Background(), usage, client.RawPatch(types.MergePatchType, []byte(patch)))).To(Succeed())
	DeferCleanup(func() {
		reset := `{"spec":{"usages":[{"usage":{"cpu":{"value":"1m"},"memory":{"value":"16Mi"}}}]}}`
		Expect(k8s.Patch(context.Background(), usage, client.RawPatch(types.MergePatchType, []byte(reset)))).To(Succeed())
	})
}

// recordReplicas watches the Foo (through the generated clientset) and its Deployment until
// the spec ends, and returns a function giving the values their spec.replicas took, in order,
// without repeats.
func recordReplicas(ns, fooName, deploymentName string) func() (foo, deployment []int32) {
	GinkgoHelper()
	foos, err := versioned.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	byName := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", fooName).String()}
	fooWatch, err := foos.SamplecontrollerV1alpha1().Foos(ns).Watch(context.Background(), byName)
	Expect(err).NotTo(HaveOccurred())
	byName.FieldSelector = fields.OneTermEqualSelector("metadata.name", deploymentName).String()
	deploymentWatch, err := clientset.AppsV1().Deployments(ns).Watch(context.Background(), byName)
	Expect(err).NotTo(HaveOccurred())

	var (
		mu                     sync.Mutex
		fooValues, deployments []int32
	)
	follow := func(w watch.Interface, values *[]int32, replicas func(any) *int32) {
		for event := range w.ResultChan() {
			if event.Type != watch.Added && event.Type != watch.Modified {
				continue
			}
			n := ptr.Deref(replicas(event.Object), 1)
			mu.Lock()
			if len(*values) == 0 || (*values)[len(*values)-1] != n {
				*values = append(*values, n)
			}
			mu.Unlock()
		}
	}
	go follow(fooWatch, &fooValues, func(o any) *int32 { return o.(*samplev1alpha1.Foo).Spec.Replicas })
	go follow(deploymentWatch, &deployments, func(o any) *int32 { return o.(*appsv1.Deployment).Spec.Replicas })
	DeferCleanup(fooWatch.Stop)
	DeferCleanup(deploymentWatch.Stop)
	return func() ([]int32, []int32) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(fooValues), slices.Clone(deployments)
	}
}

// isSubsequence reports whether every value of sub appears in seq, in the same order.
func isSubsequence(sub, seq []int32) bool {
	i := 0
	for _, v := range seq {
		if i < len(sub) && sub[i] == v {
			i++
		}
	}
	return i == len(sub)
}

// replicasManagers are the field managers that own a Deployment's spec.replicas.
func replicasManagers(d *appsv1.Deployment) []string {
	GinkgoHelper()
	var managers []string
	for _, entry := range d.ManagedFields {
		var owned struct {
			Spec map[string]any `json:"f:spec"`
		}
		Expect(json.Unmarshal(entry.FieldsV1.Raw, &owned)).To(Succeed())
		if _, ok := owned.Spec["f:replicas"]; ok && !slices.Contains(managers, entry.Manager) {
			managers = append(managers, entry.Manager) // once: the operator's create and apply entries may share it
		}
	}
	return managers
}
