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
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

var _ = Describe("Foo reconciler", func() {
	var ns string
	BeforeEach(func() { ns = specNamespace(ctx) })

	It("creates the Deployment a Foo names, owned by the Foo", func() {
		foo := create(ctx, newFoo("example-foo", withNamespace(ns), withDeploymentName("x"), withReplicas(2)))

		d := eventuallyDeployment(ns, "x")
		Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](2)))
		Expect(d.Spec.Template.Spec.Containers).To(HaveLen(1))
		Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(testImage))
		Expect(d.Spec.Selector.MatchLabels).To(Equal(map[string]string{"app": "nginx", "controller": "example-foo"}))
		Expect(d.Spec.Template.Labels).To(SatisfyAll(
			HaveKeyWithValue("app", "nginx"),
			HaveKeyWithValue("controller", "example-foo"),
			HaveKeyWithValue("app.kubernetes.io/name", "nginx"),
			HaveKeyWithValue("app.kubernetes.io/instance", "example-foo"),
			HaveKeyWithValue("app.kubernetes.io/managed-by", "foo-operator"),
		))
		expectControlledBy(d, foo)
		expectRestricted(Default, d.Spec.Template)

		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(got.Status.DeploymentName).To(Equal("x"))
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Finalizers).To(BeEmpty())
		}).Should(Succeed())
		expectEvent(ns, ReasonDeploymentCreated, "Created Deployment x with 2 replicas")
	})

	It("scales the Deployment when spec.replicas changes, directly or through the scale subresource", func() {
		foo := create(ctx, newFoo("scaled", withNamespace(ns), withReplicas(1)))
		eventuallyDeployment(ns, foo.Spec.DeploymentName)

		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](3) })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Replicas).To(Equal(ptr.To[int32](3)))
		}).Should(Succeed())
		expectEvent(ns, ReasonDeploymentScaled, fmt.Sprintf("Scaled Deployment %s from 1 to 3 replicas", foo.Spec.DeploymentName))

		// kubectl scale foo/scaled --replicas=4
		scale := &autoscalingv1.Scale{}
		Expect(k8sClient.SubResource("scale").Get(ctx, foo, scale)).To(Succeed())
		Expect(scale.Spec.Replicas).To(Equal(int32(3)))
		scale.Spec.Replicas = 4
		Expect(k8sClient.SubResource("scale").Update(ctx, foo, client.WithSubResourceBody(scale))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Replicas).To(Equal(ptr.To[int32](4)))
		}).Should(Succeed())

		// What a HorizontalPodAutoscaler reads: the pods' selector and current replicas.
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 4, true)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.SubResource("scale").Get(ctx, foo, scale)).To(Succeed())
			g.Expect(scale.Status.Replicas).To(Equal(int32(4)))
			g.Expect(scale.Status.Selector).To(Equal("app=nginx,controller=scaled"))
		}).Should(Succeed())
	})

	It("corrects drift on what it owns and keeps what others set", func() {
		foo := create(ctx, newFoo("drift", withNamespace(ns), withReplicas(2)))
		d := eventuallyDeployment(ns, foo.Spec.DeploymentName)

		// Another actor (kubectl edit, say) changes owned and unowned fields at once.
		patch := client.MergeFrom(d.DeepCopy())
		d.Spec.Replicas = ptr.To[int32](7)
		d.Spec.Template.Spec.Containers[0].Image = "busybox:1.36"
		delete(d.Labels, "app.kubernetes.io/name")
		d.Labels["team"] = "web"
		d.Annotations = map[string]string{"example.com/note": "keep me"}
		Expect(k8sClient.Patch(ctx, d, patch)).To(Succeed())

		Eventually(func(g Gomega) {
			got := getDeployment(g, ns, foo.Spec.DeploymentName)
			g.Expect(got.Spec.Replicas).To(Equal(ptr.To[int32](2)))
			g.Expect(got.Spec.Template.Spec.Containers[0].Image).To(Equal(testImage))
			g.Expect(got.Labels).To(HaveKeyWithValue("app.kubernetes.io/name", "nginx"))
			g.Expect(got.Labels).To(HaveKeyWithValue("team", "web"))
			g.Expect(got.Annotations).To(HaveKeyWithValue("example.com/note", "keep me"))
		}).Should(Succeed())
		expectEvent(ns, ReasonDeploymentScaled, HavePrefix(fmt.Sprintf("Scaled Deployment %s from 7 to 2 replicas; took .spec.", foo.Spec.DeploymentName)))
	})

	It("restores the label that puts its Deployment in its cache", func() {
		foo := create(ctx, newFoo("unlabelled", withNamespace(ns)))
		d := eventuallyDeployment(ns, foo.Spec.DeploymentName)

		patch := client.MergeFrom(d.DeepCopy())
		delete(d.Labels, ManagedByLabel)
		Expect(k8sClient.Patch(ctx, d, patch)).To(Succeed())

		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Labels).To(HaveKeyWithValue(ManagedByLabel, ManagedByValue))
		}).Should(Succeed())
	})

	It("never touches a Deployment it does not control, and takes the name once it is free", func() {
		foreign := createForeignDeployment(ctx, ns, "x")
		foo := create(ctx, newFoo("late", withNamespace(ns), withDeploymentName("x")))

		expectEvent(ns, ReasonErrResourceExists, `Resource "x" already exists and is not managed by Foo`)
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(samplev1alpha1.DeploymentConflictReason))
			g.Expect(c.Message).To(Equal(`Resource "x" already exists and is not managed by Foo`))
		}).Should(Succeed())
		// Several conflict rechecks pass; the foreign Deployment stays exactly as it was.
		Consistently(func(g Gomega) {
			got := getDeployment(g, ns, "x")
			g.Expect(got.ResourceVersion).To(Equal(foreign.ResourceVersion))
			g.Expect(got.OwnerReferences).To(BeEmpty())
		}).WithTimeout(3 * conflictRecheck).Should(Succeed())
		Expect(getFoo(Default, foo).Status.DeploymentName).To(BeEmpty())

		// The name becomes free: the Foo's own Deployment appears with no action from the user.
		Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		d := eventuallyDeployment(ns, "x")
		expectControlledBy(d, foo)
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
		}).Should(Succeed())
	})

	It("creates the new Deployment and deletes the old one once the new one is available when the Foo is renamed", func() {
		foo := create(ctx, newFoo("renamed", withNamespace(ns), withDeploymentName("x")))
		old := eventuallyDeployment(ns, "x")
		simulateRollout(ctx, ns, "x", 1, true)

		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "y" })

		expectControlledBy(eventuallyDeployment(ns, "y"), foo)
		// No downtime: x serves until y is available.
		Consistently(func(g Gomega) {
			g.Expect(getDeployment(g, ns, "x").UID).To(Equal(old.UID))
		}).Should(Succeed())
		simulateRollout(ctx, ns, "y", 1, true)
		available := time.Now()
		Eventually(func(g Gomega) {
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(old), &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "Deployment x should be deleted, got %v", err)
			g.Expect(getFoo(g, foo).Status.DeploymentName).To(Equal("y"))
		}).Should(Succeed())
		GinkgoWriter.Printf("Old Deployment deleted %v after the new one became available\n", time.Since(available).Round(time.Millisecond))
		expectEvent(ns, ReasonDeploymentDeleted, "Deleted Deployment x: spec.deploymentName is now y")
	})

	It("deletes the old Deployment at once when a Foo scaled to zero is renamed", func() {
		foo := create(ctx, newFoo("idle-rename", withNamespace(ns), withDeploymentName("x"), withReplicas(0)))
		old := eventuallyDeployment(ns, "x")

		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "y" })

		expectControlledBy(eventuallyDeployment(ns, "y"), foo)
		Eventually(func(g Gomega) {
			err := k8sClient.Get(ctx, client.ObjectKeyFromObject(old), &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "Deployment x should be deleted, got %v", err)
		}).Should(Succeed())
	})

	It("does not delete a Deployment it does not control when the Foo is renamed away from it", func() {
		foreign := createForeignDeployment(ctx, ns, "x")
		foo := create(ctx, newFoo("moving", withNamespace(ns), withDeploymentName("x")))
		expectEvent(ns, ReasonErrResourceExists, `Resource "x" already exists and is not managed by Foo`)

		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "y" })

		expectControlledBy(eventuallyDeployment(ns, "y"), foo)
		Consistently(func(g Gomega) {
			g.Expect(getDeployment(g, ns, "x").ResourceVersion).To(Equal(foreign.ResourceVersion))
		}).Should(Succeed())
	})

	It("leaves alone a Deployment made for another Foo when someone points its ownerReference at this one", func() {
		a := create(ctx, newFoo("a", withNamespace(ns), withDeploymentName("a")))
		b := create(ctx, newFoo("b", withNamespace(ns), withDeploymentName("b")))
		eventuallyDeployment(ns, "a")
		eventuallyDeployment(ns, "b")
		simulateRollout(ctx, ns, "a", 1, true)
		simulateRollout(ctx, ns, "b", 1, true) // b's own Deployment is available: b deletes leftovers

		repointed := getDeployment(Default, ns, "a")
		repointed.OwnerReferences[0].Name, repointed.OwnerReferences[0].UID = b.Name, b.UID
		Expect(k8sClient.Update(ctx, repointed)).To(Succeed())

		expectEvent(ns, ReasonErrResourceExists, `Resource "a" already exists and is not managed by Foo`)
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, a).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(samplev1alpha1.DeploymentConflictReason))
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(getDeployment(g, ns, "a").ResourceVersion).To(Equal(repointed.ResourceVersion), "neither Foo writes to it")
		}).Should(Succeed())
	})

	It("recreates a deleted Deployment, leaves the Deployment of a deleted Foo to the garbage collector, and forgets the Foo", func() {
		foo := create(ctx, newFoo("phoenix", withNamespace(ns)))
		first := eventuallyDeployment(ns, foo.Spec.DeploymentName)

		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).UID).NotTo(Equal(first.UID))
		}).Should(Succeed())

		// No finalizer: the Foo goes at once, and the ownerReference (controller,
		// blockOwnerDeletion) is what lets the garbage collector delete the Deployment.
		current := getDeployment(Default, ns, foo.Spec.DeploymentName)
		expectControlledBy(current, foo)
		key := client.ObjectKeyFromObject(foo)
		Expect(remembered(key)).To(ConsistOf("the desired hash", "the fields its Deployment lacks"))
		Expect(k8sClient.Delete(ctx, foo)).To(Succeed())
		Eventually(func(g Gomega) {
			err := k8sClient.Get(ctx, key, &samplev1alpha1.Foo{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
		}).Should(Succeed())
		Eventually(func() []string { return remembered(key) }).Should(BeEmpty(), "the pass that finds the Foo gone forgets it")
		// envtest runs no garbage collector; the operator itself does not delete it.
		Consistently(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).UID).To(Equal(current.UID))
		}).Should(Succeed())
	})

	It("takes a Foo deleted under its status write for the end of the pass, not an error", func() {
		foo := create(ctx, newFoo("vanishing", withNamespace(ns)))
		var stale *samplev1alpha1.Foo
		Eventually(func(g Gomega) {
			stale = getFoo(g, foo)
			g.Expect(stale.Status.ObservedGeneration).To(Equal(stale.Generation))
		}).Should(Succeed())
		Expect(k8sClient.Delete(ctx, foo)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(foo), &samplev1alpha1.Foo{}))).To(BeTrue())
		}).Should(Succeed())

		// The pass read the Foo before the deletion, and its Deployment is gone with it.
		before := requests.count()
		wait, err := reconciler.reconcileStatus(ctx, stale, observation{})
		Expect(filter(requests.since(before, http.MethodPatch), "/foos/vanishing/status")).To(HaveLen(1), "the status write was sent")
		Expect(err).NotTo(HaveOccurred(), "the Foo is gone: nothing to retry, no reconcile error")
		Expect(wait).To(BeZero())
	})

	It("reports a failed write, retries it, and recovers", func() {
		// A validating webhook makes the API server refuse this Foo's Deployment.
		deny := denyDeploymentsOf(ctx, ns, "blocked")
		foo := create(ctx, newFoo("blocked", withNamespace(ns)))

		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			c := meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
			g.Expect(c.Reason).To(Equal(samplev1alpha1.DeploymentWriteFailedReason))
			g.Expect(c.Message).To(ContainSubstring("create Deployment %s/blocked-web", ns))
			g.Expect(c.Message).To(ContainSubstring(denyMessage))
			// The generation was not reconciled.
			g.Expect(got.Status.ObservedGeneration).To(BeZero())
		}).Should(Succeed())
		expectEvent(ns, samplev1alpha1.DeploymentWriteFailedReason, ContainSubstring(denyMessage))

		// The API server accepts the Deployment again: the retry succeeds.
		Expect(k8sClient.Delete(ctx, deny)).To(Succeed())
		eventuallyDeployment(ns, foo.Spec.DeploymentName)
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.DegradedCondition)).To(BeTrue())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		}).Should(Succeed())
	})

	It("reports the Deployment's state in the status", func() {
		foo := create(ctx, newFoo("status", withNamespace(ns), withReplicas(2)))
		eventuallyDeployment(ns, foo.Spec.DeploymentName)
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(summarize(got.Status.Conditions)).To(Equal(map[string]conditionSummary{
				"Ready":       {metav1.ConditionFalse, "DeploymentUnavailable"},
				"Available":   {metav1.ConditionFalse, "DeploymentUnavailable"},
				"Progressing": {metav1.ConditionTrue, "RolloutInProgress"},
				"Degraded":    {metav1.ConditionFalse, "AsExpected"},
			}))
		}).Should(Succeed())

		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, true)
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.Replicas).To(Equal(int32(2)))
			g.Expect(got.Status.ReadyReplicas).To(Equal(int32(2)))
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(2)))
			g.Expect(got.Status.Selector).To(Equal("app=nginx,controller=status"))
			g.Expect(summarize(got.Status.Conditions)).To(Equal(map[string]conditionSummary{
				"Ready":       {metav1.ConditionTrue, "Ready"},
				"Available":   {metav1.ConditionTrue, "DeploymentAvailable"},
				"Progressing": {metav1.ConditionFalse, "RolloutComplete"},
				"Degraded":    {metav1.ConditionFalse, "AsExpected"},
			}))
			for _, c := range got.Status.Conditions {
				g.Expect(c.ObservedGeneration).To(Equal(got.Generation))
			}
		}).Should(Succeed())

		// A pod goes away: status follows.
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 1, false)
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(1)))
			g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.AvailableCondition)).To(BeTrue())
			g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
		}).Should(Succeed())
	})

	It("writes the status of a rollout that completes within the progress report delay once", func() {
		before := requests.count()
		foo := create(ctx, newFoo("quick", withNamespace(ns), withReplicas(2)))
		eventuallyDeployment(ns, foo.Spec.DeploymentName)
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, true)
		expectReady(foo)

		statusWrites := func() []string { return filter(requests.since(before, http.MethodPatch), "/foos/quick/status") }
		Consistently(statusWrites, progressReportDelay+time.Second).Should(HaveLen(1), "the Foo went from no status to Ready in one write")
	})

	It("writes a report in progress only with tokens to spare under a client limit, and the rollout's end without", func() {
		clientLimitBinds.Store(true)
		DeferCleanup(func() { clientLimitBinds.Store(false) })
		before := requests.count()
		late := create(ctx, newFoo("late-report", withNamespace(ns), withReplicas(2)))
		ends := create(ctx, newFoo("ends-held", withNamespace(ns), withReplicas(2)))
		statusWrites := func(name string) func() []string {
			return func() []string { return filter(requests.since(before, http.MethodPatch), "/foos/"+name+"/status") }
		}
		// Both rollouts are observed and in progress, and stay so past the delay.
		for _, foo := range []*samplev1alpha1.Foo{late, ends} {
			eventuallyDeployment(ns, foo.Spec.DeploymentName)
			simulateRollout(ctx, ns, foo.Spec.DeploymentName, 0, false)
		}
		Consistently(func() []string { return append(statusWrites("late-report")(), statusWrites("ends-held")()...) }, 2*progressReportDelay+time.Second).
			Should(BeEmpty(), "no report in progress without tokens to spare")

		// The end of a rollout is written whatever the tokens.
		simulateRollout(ctx, ns, ends.Spec.DeploymentName, 2, true)
		expectReady(ends)
		Expect(statusWrites("ends-held")()).To(HaveLen(1))

		// Tokens to spare: the pass the delay starts reports the other rollout in progress.
		clientLimitBinds.Store(false)
		Eventually(func(g Gomega) {
			g.Expect(meta.FindStatusCondition(getFoo(g, late).Status.Conditions, samplev1alpha1.ProgressingCondition)).
				To(HaveField("Reason", samplev1alpha1.RolloutInProgressReason))
		}).WithTimeout(3 * progressReportDelay).Should(Succeed())
		Expect(statusWrites("late-report")()).To(HaveLen(1))
	})

	It("holds back the reports in progress of a mass rollout until each rollout's end, also once the others end", func() {
		before := requests.count()
		var foos []*samplev1alpha1.Foo
		for i := range maxReportedRollouts + 1 {
			foos = append(foos, create(ctx, newFoo(fmt.Sprintf("mass-%d", i), withNamespace(ns), withReplicas(2))))
		}
		statusWrites := func(foos ...*samplev1alpha1.Foo) func() []string {
			return func() []string {
				var writes []string
				for _, foo := range foos {
					writes = append(writes, filter(requests.since(before, http.MethodPatch), "/foos/"+foo.Name+"/status")...)
				}
				return writes
			}
		}
		// Every Foo waits on its rollout (its Deployment made, not yet observed), then every
		// rollout is observed and in progress, and stays so past the delay.
		for _, foo := range foos {
			eventuallyDeployment(ns, foo.Spec.DeploymentName)
		}
		for _, foo := range foos {
			simulateRollout(ctx, ns, foo.Spec.DeploymentName, 0, false)
		}
		Consistently(statusWrites(foos...), 2*progressReportDelay+time.Second).Should(BeEmpty(), "no report in progress in a mass rollout")

		// Every rollout but the last ends: each is written once. The last, a step further,
		// stays held.
		last := foos[len(foos)-1]
		for _, foo := range foos[:len(foos)-1] {
			simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, true)
		}
		for _, foo := range foos[:len(foos)-1] {
			expectReady(foo)
			Expect(statusWrites(foo)()).To(HaveLen(1), foo.Name)
		}
		simulateRollout(ctx, ns, last.Spec.DeploymentName, 1, false)
		Consistently(statusWrites(last), 2*progressReportDelay+time.Second).Should(BeEmpty(), "held for its rollout once the others ended")
		simulateRollout(ctx, ns, last.Spec.DeploymentName, 2, true)
		expectReady(last)
		Expect(statusWrites(last)()).To(HaveLen(1))
	})

	It("does not report in progress the scale that sets back another writer's while the Foo stays Ready", func() {
		foo := converged(ctx, newFoo("setback", withNamespace(ns), withReplicas(2)))
		name := foo.Spec.DeploymentName
		before := requests.count()
		scaledBackFrom(ctx, ns, name, 3)

		// What the Deployment controller reports while the third pod, started for the other
		// writer, terminates: beyond the progress report delay, the Foo is Ready and scaling.
		simulateRollout(ctx, ns, name, 3, true, func(d *appsv1.Deployment) { d.Status.Replicas, d.Status.UpdatedReplicas = 3, 3 })
		statusWrites := func() []string { return filter(requests.since(before, http.MethodPatch), "/foos/setback/status") }
		Consistently(statusWrites, 2*progressReportDelay+time.Second).Should(BeEmpty())
		simulateRollout(ctx, ns, name, 2, true)
		Consistently(statusWrites, progressReportDelay).Should(BeEmpty(), "the end of the rollout is the status the Foo had")
		expectReady(foo)
	})

	// keepsReadyWhileUnobserved sets back another writer's scale to 3 of a converged Foo's
	// Deployment and checks that no status is written past the minute after which a change
	// the Deployment controller has not observed is otherwise reported (as Ready=False,
	// while every pod serves). No Deployment controller runs here, so the set-back stays
	// unobserved; observed, when given, sets the Deployment's status as that controller
	// reported the other writer's scale before it.
	keepsReadyWhileUnobserved := func(fooName string, observed ...deploymentOption) {
		foo := converged(ctx, newFoo(fooName, withNamespace(ns), withReplicas(2)))
		name := foo.Spec.DeploymentName
		before := requests.count()
		scaledBackFrom(ctx, ns, name, 3)
		if len(observed) > 0 {
			simulateRollout(ctx, ns, name, 2, false, observed...)
		}

		statusWrites := func() []string { return filter(requests.since(before, http.MethodPatch), "/foos/"+fooName+"/status") }
		Consistently(statusWrites, (unobservedReportDelays+1)*progressReportDelay).Should(BeEmpty())
		simulateRollout(ctx, ns, name, 2, true)
		Consistently(statusWrites, progressReportDelay).Should(BeEmpty(), "the end of the set-back is the status the Foo had")
		expectReady(foo)
	}

	It("keeps a Ready Foo's status while the Deployment controller has not observed a set-back", func() {
		// The Deployment's status is the Available one of the convergence.
		keepsReadyWhileUnobserved("unobserved")
	})

	It("keeps a Ready Foo's status while the Deployment controller has not observed a set-back of a scale up it reports unavailable", func() {
		// The Deployment controller observed the other writer's scale (the generation
		// before the set-back): 3 replicas, 2 of them available, not Available.
		keepsReadyWhileUnobserved("unobserved-up", func(d *appsv1.Deployment) {
			d.Status.ObservedGeneration = d.Generation - 1
			d.Status.Replicas, d.Status.UpdatedReplicas = 3, 3
		})
	})

	It("makes no write request when a reconcile has nothing to change", func() {
		foo := create(ctx, newFoo("idle", withNamespace(ns), withReplicas(2)))
		eventuallyDeployment(ns, foo.Spec.DeploymentName)
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, true)
		// Converged: the last status write and event are done, and the manager's cache has
		// caught up with them (a reconcile that reads a Foo older than its own last status
		// write writes that status again).
		Eventually(func(g Gomega) {
			cached := &samplev1alpha1.Foo{}
			g.Expect(mgrCache.Get(ctx, client.ObjectKeyFromObject(foo), cached)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(cached.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
		}).Should(Succeed())
		expectEvent(ns, ReasonDeploymentCreated, "Created Deployment idle-web with 2 replicas")

		// Converged. A change by someone else that the Foo does not care about (a label;
		// an annotation would bump the Deployment's generation) triggers a reconcile, which
		// must write nothing: no apply, no status, no event.
		before, reconciled := requests.count(), reconcileCount()
		d := getDeployment(Default, ns, foo.Spec.DeploymentName)
		patch := client.MergeFrom(d.DeepCopy())
		d.Labels["example.com/touched"] = "yes"
		Expect(k8sClient.Patch(ctx, d, patch)).To(Succeed())

		Eventually(reconcileCount).Should(BeNumerically(">", reconciled))
		Consistently(func() []string { return requests.writesSince(before) }).Should(BeEmpty())
		GinkgoWriter.Printf("Idle writes after convergence: %d\n", len(requests.writesSince(before)))
	})

	It("lets the first Foo own a contested Deployment while the other reports the conflict", func() {
		first := create(ctx, newFoo("first", withNamespace(ns), withDeploymentName("shared"), withReplicas(2)))
		owned := eventuallyDeployment(ns, "shared")
		expectControlledBy(owned, first)

		second := create(ctx, newFoo("second", withNamespace(ns), withDeploymentName("shared"), withReplicas(5)))
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, second).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(samplev1alpha1.DeploymentConflictReason))
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			d := getDeployment(g, ns, "shared")
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](2)))
			expectControlledByG(g, d, first)
		}).Should(Succeed())

		// The first Foo goes and (as the garbage collector would) its Deployment with it:
		// the second Foo takes the name. The Deployment goes once the operator has seen the
		// Foo go: before, a reconcile of the cached Foo may create it again, which the
		// garbage collector (absent in envtest) would delete again.
		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(mgrCache.Get(ctx, client.ObjectKeyFromObject(first), &samplev1alpha1.Foo{}))
		}).Should(BeTrue())
		Expect(k8sClient.Delete(ctx, getDeployment(Default, ns, "shared"))).To(Succeed())
		Eventually(func(g Gomega) {
			d := getDeployment(g, ns, "shared")
			expectControlledByG(g, d, second)
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To[int32](5)))
		}).Should(Succeed())
	})

	It("caches only the Deployments it manages and still sees the others", func() {
		foreign := createForeignDeployment(ctx, ns, "unrelated")
		foo := create(ctx, newFoo("cached", withNamespace(ns)))
		eventuallyDeployment(ns, foo.Spec.DeploymentName)

		Eventually(func(g Gomega) {
			g.Expect(mgrCache.Get(ctx, client.ObjectKey{Namespace: ns, Name: foo.Spec.DeploymentName}, &appsv1.Deployment{})).To(Succeed())
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			err := mgrCache.Get(ctx, client.ObjectKeyFromObject(foreign), &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the cache holds an unmanaged Deployment: %v", err)
		}).Should(Succeed())
	})

	It("accepts and reconciles the samples in config/samples", func() {
		files, err := filepath.Glob(filepath.Join("..", "config", "samples", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var samples int
		for _, file := range files {
			if filepath.Base(file) == "kustomization.yaml" {
				continue
			}
			raw, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			kind := &metav1.TypeMeta{}
			Expect(yaml.Unmarshal(raw, kind)).To(Succeed(), file)
			if kind.Kind != "Foo" { // the HorizontalPodAutoscaler sample: test/e2e applies it
				continue
			}
			foo := &samplev1alpha1.Foo{}
			Expect(yaml.UnmarshalStrict(raw, foo)).To(Succeed(), file)
			foo.Namespace = ns
			create(ctx, foo)
			expectControlledBy(eventuallyDeployment(ns, foo.Spec.DeploymentName), foo)
			samples++
		}
		Expect(samples).To(BeNumerically(">=", 1))
	})

	It("accepts and reconciles every alm-example of the bundle's ClusterServiceVersion", func() {
		raw, err := os.ReadFile(filepath.Join("..", "bundle", "manifests", "foo-operator.clusterserviceversion.yaml"))
		Expect(err).NotTo(HaveOccurred())
		csv := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal(raw, &csv.Object)).To(Succeed())
		var examples []unstructured.Unstructured
		Expect(json.Unmarshal([]byte(csv.GetAnnotations()["alm-examples"]), &examples)).To(Succeed())
		Expect(examples).NotTo(BeEmpty())
		for i := range examples {
			example := &examples[i]
			example.SetNamespace(ns)
			Expect(k8sClient.Create(ctx, example)).To(Succeed(), "alm-example %s", example.GetName())
			deploymentName, _, _ := unstructured.NestedString(example.Object, "spec", "deploymentName")
			eventuallyDeployment(ns, deploymentName)
		}
	})

	It("exports Foos by condition and Deployment writes by operation", func() {
		expectCacheCaughtUp(ctx)
		ready := map[string]string{"condition": "Ready", "status": "True"}
		created := map[string]string{"operation": "create"}
		readyBefore, createdBefore := gauge(Default, "foo_operator_foos", ready), gauge(Default, "foo_operator_deployment_writes_total", created)

		converged(ctx, newFoo("metrics", withNamespace(ns)))

		// The other specs' Foos are gone, from the cache too: only this one changes the figures.
		Eventually(func(g Gomega) {
			g.Expect(gauge(g, "foo_operator_foos", ready)).To(Equal(readyBefore + 1))
			g.Expect(gauge(g, "foo_operator_deployment_writes_total", created)).To(Equal(createdBefore + 1))
		}).Should(Succeed())
	})

	It("exports each Degraded Foo with when it became Degraded, until it is not, and counts status writes and the changes they follow", func() {
		writesBefore := gauge(Default, "foo_operator_status_writes_total", nil)
		fooChangesBefore := gauge(Default, "foo_operator_observed_changes_total", map[string]string{"kind": "Foo"})
		foreign := createForeignDeployment(ctx, ns, "taken")
		foo := create(ctx, newFoo("blocked", withNamespace(ns), withDeploymentName("taken")))
		degraded := map[string]string{"namespace": ns, "foo": foo.Name}

		var since metav1.Time
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(samplev1alpha1.DeploymentConflictReason))
			since = c.LastTransitionTime
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(gauge(g, "foo_operator_foo_degraded_since_timestamp_seconds", map[string]string{
				"namespace": ns, "foo": foo.Name, "reason": samplev1alpha1.DeploymentConflictReason,
			})).To(Equal(float64(since.Unix())))
		}).Should(Succeed())
		Expect(gauge(Default, "foo_operator_status_writes_total", nil)).To(BeNumerically(">", writesBefore))
		Expect(gauge(Default, "foo_operator_observed_changes_total", map[string]string{"kind": "Foo"})).To(BeNumerically(">", fooChangesBefore))

		Expect(k8sClient.Delete(ctx, foreign)).To(Succeed())
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(seriesOf(g, "foo_operator_foo_degraded_since_timestamp_seconds", degraded)).To(BeEmpty())
		}).Should(Succeed())
	})
})

// expectCacheCaughtUp waits until the manager's cache holds the Foos the API server holds.
func expectCacheCaughtUp(ctx context.Context) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		stored, cached := &samplev1alpha1.FooList{}, &samplev1alpha1.FooList{}
		g.Expect(k8sClient.List(ctx, stored)).To(Succeed())
		g.Expect(mgrCache.List(ctx, cached)).To(Succeed())
		g.Expect(cached.Items).To(HaveLen(len(stored.Items)))
	}).Should(Succeed())
}

// specNamespace creates a namespace for one spec whose Foos are deleted when the spec ends:
// envtest never deletes namespaces, and the manager would go on reconciling them.
func specNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns := newNamespace(ctx)
	DeferCleanup(func() {
		Expect(k8sClient.DeleteAllOf(context.Background(), &samplev1alpha1.Foo{}, client.InNamespace(ns))).To(Succeed())
	})
	return ns
}

// newNamespace creates a namespace for one spec.
func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "foo-test-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

func create[T client.Object](ctx context.Context, obj T) T {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, obj)).To(Succeed())
	return obj
}

func patchFoo(ctx context.Context, foo *samplev1alpha1.Foo, mutate func(*samplev1alpha1.Foo)) {
	GinkgoHelper()
	latest := getFoo(Default, foo)
	patch := client.MergeFrom(latest.DeepCopy())
	mutate(latest)
	Expect(k8sClient.Patch(ctx, latest, patch)).To(Succeed())
	mutate(foo)
}

func getFoo(g Gomega, foo *samplev1alpha1.Foo) *samplev1alpha1.Foo {
	got := &samplev1alpha1.Foo{}
	g.Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
	return got
}

func getDeployment(g Gomega, ns, name string) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	g.Expect(k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
	return d
}

func eventuallyDeployment(ns, name string) *appsv1.Deployment {
	GinkgoHelper()
	var d *appsv1.Deployment
	Eventually(func(g Gomega) { d = getDeployment(g, ns, name) }).Should(Succeed())
	return d
}

// createForeignDeployment creates a Deployment the operator does not manage.
func createForeignDeployment(ctx context.Context, ns, name string) *appsv1.Deployment {
	GinkgoHelper()
	labels := map[string]string{"app": "someone-else"}
	return create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "example.com/app:1"}}},
			},
		},
	})
}

// scaledBackFrom scales the Deployment ns/name to replicas as another field manager
// ("someone"), and waits until the operator set it back to its Foo's 2.
func scaledBackFrom(ctx context.Context, ns, name string, replicas int32) {
	GinkgoHelper()
	d := getDeployment(Default, ns, name)
	patch := client.MergeFrom(d.DeepCopy())
	d.Spec.Replicas = ptr.To(replicas)
	Expect(k8sClient.Patch(ctx, d, patch, client.FieldOwner("someone"))).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(getDeployment(g, ns, name).Spec.Replicas).To(Equal(ptr.To[int32](2)))
	}).Should(Succeed())
}

// simulateRollout sets the Deployment status the Deployment controller (absent in
// envtest) would set once `available` of the pods are available; opts change it further.
func simulateRollout(ctx context.Context, ns, name string, available int32, availableCondition bool, opts ...deploymentOption) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		d := getDeployment(g, ns, name)
		d.Status = appsv1.DeploymentStatus{}
		withRollout(ptr.Deref(d.Spec.Replicas, 1), available, availableCondition)(d)
		for _, opt := range opts {
			opt(d)
		}
		g.Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
	}).Should(Succeed())
}

// remembered names what the suite's reconciler remembers of the Foo of key, under the
// locks its workers take.
func remembered(key types.NamespacedName) []string {
	var held []string
	if _, ok := reconciler.hashes.load(key); ok {
		held = append(held, "the desired hash")
	}
	if _, ok := reconciler.ownership.load(key); ok {
		held = append(held, "the fields its Deployment lacks")
	}
	return held
}

func expectControlledBy(d *appsv1.Deployment, foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	expectControlledByG(Default, d, foo)
}

func expectControlledByG(g Gomega, d *appsv1.Deployment, foo *samplev1alpha1.Foo) {
	ref := metav1.GetControllerOf(d)
	g.Expect(ref).NotTo(BeNil(), "Deployment %s has no controller", d.Name)
	g.Expect(*ref).To(Equal(metav1.OwnerReference{
		APIVersion:         "samplecontroller.example.com/v1alpha1",
		Kind:               "Foo",
		Name:               foo.Name,
		UID:                foo.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}))
}

// expectEvent waits for an event about a Foo in ns with the given reason and a note that
// matches (a string is matched exactly).
func expectEvent(ns, reason string, note any) {
	GinkgoHelper()
	Eventually(func(g Gomega) []string {
		list := &eventsv1.EventList{}
		g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
		var notes []string
		for _, e := range list.Items {
			if e.Reason == reason && e.Regarding.Kind == "Foo" {
				notes = append(notes, e.Note)
			}
		}
		return notes
	}).Should(ContainElement(note))
}

// expectNoEvent checks that no event about a Foo in ns has the given reason.
func expectNoEvent(ns, reason string) {
	GinkgoHelper()
	list := &eventsv1.EventList{}
	Expect(k8sClient.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
	for _, e := range list.Items {
		Expect(e.Reason).NotTo(Equal(reason), "event about %s %s: %s", e.Regarding.Kind, e.Regarding.Name, e.Note)
	}
}

// denyDeploymentsOf makes the API server refuse writes of the Deployments of Foo fooName in
// ns, through a validating webhook this process serves (see denyPath), and waits until the
// webhook is in force. Deleting the returned configuration lifts it.
func denyDeploymentsOf(ctx context.Context, ns, fooName string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	GinkgoHelper()
	config := create(ctx, denyWebhook(
		&metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
		&metav1.LabelSelector{MatchLabels: map[string]string{"controller": fooName}},
	))
	DeferCleanup(func() error { return client.IgnoreNotFound(k8sClient.Delete(context.Background(), config)) })

	// The API server loads webhook configurations asynchronously: probe with a dry-run create.
	probe := newDeployment(newFoo(fooName, withNamespace(ns)))
	probe.Name = "policy-probe"
	probe.OwnerReferences = nil
	Eventually(func() error {
		return k8sClient.Create(ctx, probe.DeepCopy(), client.DryRunAll)
	}).Should(MatchError(ContainSubstring(denyMessage)))
	return config
}

// settled waits until foo has not changed for a progress report delay and a second, and
// returns it.
func settled(foo *samplev1alpha1.Foo) *samplev1alpha1.Foo {
	GinkgoHelper()
	var got *samplev1alpha1.Foo
	Eventually(func(g Gomega) {
		got = getFoo(g, foo)
		g.Consistently(func(g Gomega) string { return getFoo(g, foo).ResourceVersion }, progressReportDelay+time.Second).
			Should(Equal(got.ResourceVersion))
	}).Should(Succeed())
	return got
}

// undoStatusWrites puts a policy in force that undoes every status write of the Foos in
// probe's namespace (undoStatusWebhook), probing with probe's. Deleting the returned
// configuration lifts it.
func undoStatusWrites(ctx context.Context, probe *samplev1alpha1.Foo) *admissionregistrationv1.MutatingWebhookConfiguration {
	GinkgoHelper()
	config := create(ctx, undoStatusWebhook(probe.Namespace))
	DeferCleanup(func() error { return client.IgnoreNotFound(k8sClient.Delete(context.Background(), config)) })
	Eventually(statusWriteUndone(probe)).Should(BeTrue())
	return config
}

// statusWriteUndone reports whether a dry-run write of foo's status is undone: the API
// server loads webhook configurations asynchronously.
func statusWriteUndone(foo *samplev1alpha1.Foo) func(g Gomega) bool {
	return func(g Gomega) bool {
		probe := getFoo(g, foo)
		patch := client.MergeFrom(probe.DeepCopy())
		probe.Status.Replicas = 99
		g.Expect(k8sClient.Status().Patch(context.Background(), probe, patch, client.DryRunAll)).To(Succeed())
		return probe.Status.Replicas != 99
	}
}

// reconcileCount is controller-runtime's count of finished reconciles of the Foo controller.
func reconcileCount() float64 {
	total := 0.0
	families, err := ctrlmetrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, mf := range families {
		if mf.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "foo" {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}

// seriesOf is the series of metric name whose labels include labels.
func seriesOf(g Gomega, name string, labels map[string]string) []*dto.Metric {
	families, err := ctrlmetrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	var series []*dto.Metric
	for _, mf := range families {
		if mf.GetName() == name {
			series = append(series, slices.DeleteFunc(mf.GetMetric(), func(m *dto.Metric) bool { return !hasLabels(m, labels) })...)
		}
	}
	return series
}

// hasLabels reports whether m has every label of labels.
func hasLabels(m *dto.Metric, labels map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := labels[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(labels)
}

// gauge is the value of the first series of metric name whose labels include labels, a
// gauge or a counter.
func gauge(g Gomega, name string, labels map[string]string) float64 {
	series := seriesOf(g, name, labels)
	g.Expect(series).NotTo(BeEmpty(), "no metric %s%v", name, labels)
	if len(series) == 0 {
		return 0
	}
	if series[0].GetGauge() != nil {
		return series[0].GetGauge().GetValue()
	}
	return series[0].GetCounter().GetValue()
}

// The manager's controller takes its work from the queue Idle reads: SetupWithManager gives
// it the reconciler's NewQueue (without it, Idle would always report true).
var _ = Describe("Foo controller's workqueue", func() {
	It("is the one Idle reads", func() {
		Eventually(func() workqueue.TypedRateLimitingInterface[reconcile.Request] {
			reconciler.queue.mu.Lock()
			defer reconciler.queue.mu.Unlock()
			return reconciler.queue.queue
		}).Should(Not(BeNil()))
	})
})

// The reconciler is idle while no Foo waits in its workqueue for a worker: a Foo a worker
// took no longer waits, and a pass scheduled for later does not wait yet.
func TestIdle(t *testing.T) {
	g := NewWithT(t)
	r := &FooReconciler{}
	g.Expect(r.Idle()).To(BeTrue(), "no workqueue yet")
	q := r.queue.make("idle-test", workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	foo := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "foo"}}
	q.Add(foo)
	g.Expect(r.Idle()).To(BeFalse(), "a Foo waits")
	item, _ := q.Get()
	g.Expect(r.Idle()).To(BeTrue(), "a worker took it")
	q.Done(item)
	q.AddAfter(foo, time.Hour)
	g.Expect(r.Idle()).To(BeTrue(), "a pass an hour later")
}
