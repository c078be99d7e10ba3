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

package controllers

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

var _ = Describe("The Foo's PodDisruptionBudget", func() {
	var ns string
	BeforeEach(func() { ns = specNamespace(ctx) })

	It("keeps one while the Foo has 2 or more replicas and asks for it, and deletes it otherwise", func() {
		foo := converged(ctx, newFoo("budgeted", withNamespace(ns), withReplicas(2)))
		pdb := eventuallyBudget(foo)
		Expect(metav1.IsControlledBy(pdb, foo)).To(BeTrue())
		Expect(pdb.Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
		Expect(pdb.Spec.MinAvailable).To(BeNil())
		Expect(pdb.Spec.Selector.MatchLabels).To(Equal(SelectorLabels(foo.Name)))
		Expect(pdb.Spec.UnhealthyPodEvictionPolicy).To(Equal(ptr.To(policyv1.AlwaysAllow)))
		Expect(pdb.Labels).To(HaveKeyWithValue(ManagedByLabel, ManagedByValue))
		expectEvent(ns, ReasonBudgetCreated, "Created PodDisruptionBudget budgeted: at most 1 of the 2 pods unavailable through voluntary disruptions")

		By("scaled to 1: none")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](1) })
		expectNoBudget(foo)
		expectEvent(ns, ReasonBudgetDeleted, "Deleted PodDisruptionBudget budgeted: the Foo has 1 replicas")

		By("scaled to 3: one again")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](3) })
		eventuallyBudget(foo)

		By("Disabled: none")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.PodDisruptionBudget = samplev1alpha1.PodDisruptionBudgetDisabled })
		expectNoBudget(foo)
		expectEvent(ns, ReasonBudgetDeleted, "Deleted PodDisruptionBudget budgeted: spec.podDisruptionBudget is Disabled")
	})

	It("keeps the same budget through a rename of the Deployment", func() {
		foo := converged(ctx, newFoo("renamed-budget", withNamespace(ns), withReplicas(2)))
		uid := eventuallyBudget(foo).UID
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "renamed-budget-2" })
		simulateRollout(ctx, ns, "renamed-budget-2", 2, true)
		expectReady(foo)
		Consistently(func(g Gomega) {
			list := &policyv1.PodDisruptionBudgetList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			g.Expect(list.Items).To(ConsistOf(HaveField("UID", uid)))
		}).Should(Succeed())
	})

	It("takes back a change of its budget and makes it again when deleted", func() {
		foo := converged(ctx, newFoo("guarded", withNamespace(ns), withReplicas(2)))
		pdb := eventuallyBudget(foo)

		By("someone sets maxUnavailable to 0, which would block every drain")
		patch := client.MergeFrom(pdb.DeepCopy())
		pdb.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(0))
		Expect(k8sClient.Patch(ctx, pdb, patch, client.FieldOwner(kubectlEdit))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(getBudget(g, foo).Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
		}).Should(Succeed())
		expectEvent(ns, ReasonBudgetUpdated, "Updated PodDisruptionBudget guarded to match the Foo")

		By("someone deletes it")
		Expect(k8sClient.Delete(ctx, pdb)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(getBudget(g, foo).UID).NotTo(Equal(pdb.UID))
		}).Should(Succeed())
	})

	// Before: a pass whose cache had not yet seen the budget the previous pass made was
	// refused its create and reported the Foo's own budget as another's.
	It("takes a budget its create finds under the Foo's name for its own when the Foo controls it", func() {
		foo := create(ctx, newFoo("lagging", withNamespace(ns), withReplicas(2), withDeploymentName("lagging-web")))
		own := eventuallyBudget(foo)
		Expect(reconciler.createBudget(ctx, foo, budgetFor(foo))).To(Succeed(), "the Foo's own budget, as the API server has it")
		Expect(getBudget(Default, foo).ResourceVersion).To(Equal(own.ResourceVersion), "and unchanged")
	})

	It("leaves a budget of the same name it does not control alone, reports it, and makes its own once the name is free", func() {
		foreign := create(ctx, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "contested", Namespace: ns},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: ptr.To(intstr.FromInt32(1)),
				Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}},
			},
		})
		foo := create(ctx, newFoo("contested", withNamespace(ns), withReplicas(2)))
		eventuallyDeployment(ns, foo.Spec.DeploymentName)
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, true)
		Eventually(func(g Gomega) {
			degraded := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(degraded).NotTo(BeNil())
			g.Expect(degraded.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(degraded.Reason).To(Equal(samplev1alpha1.PodDisruptionBudgetConflictReason))
			g.Expect(degraded.Message).To(ContainSubstring(`PodDisruptionBudget "contested" already exists and is not managed by Foo`))
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(getBudget(g, foo).ResourceVersion).To(Equal(foreign.ResourceVersion))
		}).Should(Succeed())

		Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		Expect(metav1.IsControlledBy(eventuallyBudget(foo), foo)).To(BeTrue())
		expectReady(foo)
	})
})

func getBudget(g Gomega, foo *samplev1alpha1.Foo) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{}
	g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(foo), pdb)).To(Succeed())
	return pdb
}

// eventuallyBudget waits for the budget the operator keeps for foo and returns it.
func eventuallyBudget(foo *samplev1alpha1.Foo) *policyv1.PodDisruptionBudget {
	GinkgoHelper()
	var pdb *policyv1.PodDisruptionBudget
	Eventually(func(g Gomega) {
		pdb = getBudget(g, foo)
		g.Expect(pdb.OwnerReferences).NotTo(BeEmpty())
	}).Should(Succeed())
	return pdb
}

func expectNoBudget(foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	Eventually(func() error {
		return k8sClient.Get(context.Background(), client.ObjectKeyFromObject(foo), &policyv1.PodDisruptionBudget{})
	}).Should(Satisfy(apierrors.IsNotFound))
}
