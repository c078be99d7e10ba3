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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework/suite"
)

// Neighbours that kube-controller-manager's own controllers bring into play: a ResourceQuota
// (the ReplicaSet controller's FailedCreate), a node drain (the Eviction API) and a paused
// Deployment. The operator is the one the spec calling these runs.

// expectQuotaBlockedRename renames a Foo in a namespace whose ResourceQuota cannot hold both
// Deployments: the Foo reports the quota's refusal as Degraded (ReplicaFailure) with the
// Deployment's message, the serving Deployment is kept, and renaming back, one of the ways
// out docs/api.md gives, makes the Foo Ready again.
func expectQuotaBlockedRename() {
	ns := env.NewNamespace("foo-quota", false)
	Expect(k8s.Create(context.Background(), &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: ns},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}},
	})).To(Succeed())
	foo := suite.SampleFoo(ns)
	foo.Name, foo.Spec.DeploymentName, foo.Spec.Replicas = "quota", "web-a", ptr.To[int32](2)
	Expect(k8s.Create(context.Background(), foo)).To(Succeed())
	env.ExpectFooReady(foo)

	By("renaming it: the new Deployment gets one pod of two under the quota")
	env.PatchFoo(foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "web-b" })
	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		c := meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.DegradedCondition)
		g.Expect(c).To(HaveField("Reason", samplev1alpha1.ReplicaFailureReason))
		g.Expect(c.Message).To(SatisfyAll(HavePrefix("Deployment web-b cannot create pods (FailedCreate): "), ContainSubstring("exceeded quota: pods")))
		g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
	}).Should(Succeed())
	a, err := env.AvailableReplicas(ns, "web-a")
	Expect(err).NotTo(HaveOccurred())
	Expect(a).To(Equal(int32(2)), "the serving Deployment is kept")

	By("renaming it back: the Deployment that could not complete is deleted")
	env.PatchFoo(foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "web-a" })
	Eventually(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web-b"}, &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "web-b is still there")
	}).Should(Succeed())
	env.ExpectFooReady(foo)
}

// expectDrainWithinAvailability drains the node as `kubectl drain` does (cordon, then the
// Eviction API) while it runs one pod of a 4-replica Foo whose operator's last change is
// older than the Deployment's progress deadline: the replacement cannot be scheduled, the
// Deployment stays Available (maxUnavailable 25 %), and so the Foo stays Ready, with no
// Warning event about it (the scheduler's FailedScheduling is about the pod); it runs 4
// again once the node is uncordoned.
func expectDrainWithinAvailability() {
	ns := env.NewNamespace("foo-drain", false)
	foo := suite.SampleFoo(ns)
	foo.Name, foo.Spec.DeploymentName, foo.Spec.Replicas = "drained", "web", ptr.To[int32](4)
	Expect(k8s.Create(context.Background(), foo)).To(Succeed())
	env.ExpectFooReady(foo)
	// The progress deadline, a field the operator leaves to others, set to 5 s so that the
	// operator's last change is older than it within the spec (600 s unless set).
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	Expect(k8s.Patch(context.Background(), d, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"progressDeadlineSeconds":5}}`)), client.FieldOwner("e2e"))).To(Succeed())
	time.Sleep(6 * time.Second)

	By("cordoning every node and evicting one pod through the Eviction API")
	nodes := &corev1.NodeList{}
	Expect(k8s.List(context.Background(), nodes)).To(Succeed())
	for i := range nodes.Items {
		env.SetUnschedulable(&nodes.Items[i], true)
		DeferCleanup(env.SetUnschedulable, &nodes.Items[i], false)
	}
	pods := env.RunningPods(Default, ns, foo.Name)
	Expect(pods).To(HaveLen(4))
	Expect(k8s.SubResource("eviction").Create(context.Background(), &pods[0], &policyv1.Eviction{})).To(Succeed())

	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		g.Expect(got.Status.AvailableReplicas).To(Equal(int32(3)))
	}).Should(Succeed())
	Consistently(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		g.Expect(got.Status.AvailableReplicas).To(Equal(int32(3)), "the replacement stays unscheduled")
		g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue(), "%v", got.Status.Conditions)
		g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.DegradedCondition)).To(BeTrue())
	}).WithTimeout(15 * time.Second).WithPolling(time.Second).Should(Succeed())
	events := &eventsv1.EventList{}
	Expect(k8s.List(context.Background(), events, client.InNamespace(ns))).To(Succeed())
	for _, e := range events.Items {
		if e.Regarding.Kind == "Foo" {
			Expect(e.Type).NotTo(Equal(corev1.EventTypeWarning), "%s %s: %s", e.Regarding.Name, e.Reason, e.Note)
		}
	}

	By("uncordoning: the replacement runs")
	for i := range nodes.Items {
		env.SetUnschedulable(&nodes.Items[i], false)
	}
	env.ExpectFooReady(foo)
}

// expectPausedRollout pauses a Ready Foo's Deployment as `kubectl rollout pause` does: the
// Foo stays Ready. Its image changed while the Deployment is paused is applied and not
// rolled out: the Foo is Degraded (DeploymentPaused) with a Warning event, its pods still
// run the old image. Resumed as `kubectl rollout resume` does, the Deployment rolls the new
// image out and the Foo is Ready again.
func expectPausedRollout() {
	ns := env.NewNamespace("foo-paused", false)
	foo := env.CreateFoo(ns, "paused", 2, suite.WithImage(controllers.DefaultOperandImage))
	env.ExpectFooReady(foo)
	deployment := client.ObjectKey{Namespace: ns, Name: foo.Spec.DeploymentName}
	pause := func(paused bool) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: deployment.Name}}
		patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"paused":%t}}`, paused))
		Expect(k8s.Patch(context.Background(), d, patch, client.FieldOwner("kubectl-rollout"))).To(Succeed())
	}
	fooConditions := func(g Gomega) []metav1.Condition {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		return got.Status.Conditions
	}
	podImages := func(g Gomega) []string {
		var images []string
		for _, p := range env.RunningPods(g, ns, foo.Name) {
			images = append(images, p.Spec.Containers[0].Image)
		}
		return images
	}

	By("pausing the Deployment: the Foo stays Ready")
	pause(true)
	Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), deployment, d)).To(Succeed())
		g.Expect(d.Status.Conditions).To(ContainElement(SatisfyAll(HaveField("Type", appsv1.DeploymentProgressing), HaveField("Reason", "DeploymentPaused"))))
	}).Should(Succeed())
	Consistently(func(g Gomega) {
		conditions := fooConditions(g)
		g.Expect(meta.IsStatusConditionTrue(conditions, samplev1alpha1.ReadyCondition)).To(BeTrue(), "%v", conditions)
		g.Expect(meta.IsStatusConditionFalse(conditions, samplev1alpha1.DegradedCondition)).To(BeTrue(), "%v", conditions)
	}).WithTimeout(5 * time.Second).WithPolling(time.Second).Should(Succeed())

	By("changing the Foo's image: applied to the paused Deployment, not rolled out")
	env.PatchFoo(foo, func(f *samplev1alpha1.Foo) { f.Spec.Image = operandV2 })
	Eventually(func(g Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), deployment, d)).To(Succeed())
		g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(operandV2))
		conditions := fooConditions(g)
		degraded := meta.FindStatusCondition(conditions, samplev1alpha1.DegradedCondition)
		g.Expect(degraded).To(HaveField("Reason", samplev1alpha1.DeploymentPausedReason))
		g.Expect(degraded.Message).To(ContainSubstring("kubectl rollout resume deployment/" + deployment.Name))
		g.Expect(meta.IsStatusConditionFalse(conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
	}).Should(Succeed())
	Expect(podImages(Default)).To(HaveEach(controllers.DefaultOperandImage), "nothing rolls out while paused")
	Eventually(func(g Gomega) {
		events := &eventsv1.EventList{}
		g.Expect(k8s.List(context.Background(), events, client.InNamespace(ns))).To(Succeed())
		g.Expect(events.Items).To(ContainElement(SatisfyAll(
			HaveField("Regarding.Kind", "Foo"), HaveField("Type", corev1.EventTypeWarning), HaveField("Reason", samplev1alpha1.DeploymentPausedReason))))
	}).Should(Succeed())

	By("resuming it: the Deployment rolls the new image out")
	pause(false)
	env.ExpectFooReady(foo)
	Eventually(podImages).Should(SatisfyAll(HaveLen(2), HaveEach(operandV2)))
}
