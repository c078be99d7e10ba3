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
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// Neighbours that rewrite (a mutating admission), share (an autoscaler of the Deployment)
// or edit (kubectl) the operator's Deployments, and the states they leave behind.
var _ = Describe("Neighbours of the Deployment", func() {
	var ns string
	BeforeEach(func() { ns = specNamespace(ctx) })

	// applyPolicy makes the policy webhook selected by namespaceLabel mutate the Deployments
	// of ns.
	applyPolicy := func(ns, namespaceLabel string) {
		GinkgoHelper()
		n := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ns}, n)).To(Succeed())
		patch := client.MergeFrom(n.DeepCopy())
		n.Labels[namespaceLabel] = "true"
		Expect(k8sClient.Patch(ctx, n, patch)).To(Succeed())
	}
	pinDigestsIn := func(ns string) { GinkgoHelper(); applyPolicy(ns, pinDigestsLabel) }

	// Before: every pass found the pinned image "drifted", applied, emitted DeploymentUpdated
	// and counted a write, though the API server stored nothing new.
	It("makes no write and emits no event when a mutating admission rewrites fields it owns", func() {
		pinDigestsIn(ns)
		foo := converged(ctx, newFoo("pinned", withNamespace(ns)))
		d := getDeployment(Default, ns, foo.Spec.DeploymentName)
		Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(testImage+"@"+pinnedDigest), "the policy ran")
		Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(verifiedAnnotation, "true"))

		before, passes := requests.count(), reconcileCount()
		for i := range 5 {
			patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Annotations = map[string]string{"touched": strconv.Itoa(i)} })
		}
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 1, true)
		Eventually(reconcileCount).Should(BeNumerically(">=", passes+5))
		Consistently(func() []string { return deploymentChanges(requests.writesSince(before)) }).Should(BeEmpty())
		expectNoEventFor(ns, ReasonDeploymentUpdated)
	})

	It("treats an apply that the API server answers with the same resourceVersion as no change", func() {
		pinDigestsIn(ns)
		// A Foo that is not stored: only this spec's direct calls write its Deployment.
		foo := newFoo("noop", withNamespace(ns), withIdentity("noop-uid", 1))
		_, err := reconciler.applyDeployment(ctx, DeploymentFor(foo, testImage))
		Expect(err).NotTo(HaveOccurred())
		stored := getDeployment(Default, ns, foo.Spec.DeploymentName)
		// Read from the counter itself: the series exists only after a first update.
		updates := testutil.ToFloat64(deploymentWrites.WithLabelValues("update"))

		d, err := reconciler.applyOver(ctx, foo, DeploymentFor(foo, testImage), stored, false, "")

		Expect(err).NotTo(HaveOccurred())
		Expect(d.ResourceVersion).To(Equal(stored.ResourceVersion))
		Expect(testutil.ToFloat64(deploymentWrites.WithLabelValues("update"))).To(Equal(updates))
		expectNoEventFor(ns, ReasonDeploymentUpdated)
	})

	// Before: the operator and the autoscaler took spec.replicas from each other on every
	// autoscaler round, silently.
	It("bounds its writes and reports the contest when another writer keeps scaling the Deployment", func() {
		const autoscaler = "test-autoscaler"
		foo := converged(ctx, newFoo("contested", withNamespace(ns), withReplicas(2)))
		name := foo.Spec.DeploymentName
		before := requests.count()
		stopAutoscaler := autoscaleDeployment(ns, name, autoscaler, 5)
		DeferCleanup(stopAutoscaler) // also when an assertion below fails
		const window = 12 * time.Second
		time.Sleep(window)
		writes := filter(deploymentChanges(requests.writesSince(before)), "/deployments/"+name)
		GinkgoWriter.Printf("Contest with an autoscaler of the Deployment over %v: %d writes of the operator\n", window, len(writes))
		// With the suite's recheck bounds (1 s, doubling, at most 8 s) the operator takes the
		// field back at about 0, 1, 3 and 7 s: 4 writes in 12 s, 6 allowing for timing. An
		// operator that fought every round would write about 48 times.
		Expect(len(writes)).To(BeNumerically("<=", 6))
		Expect(len(writes)).To(BeNumerically(">=", 2), "the operator keeps taking the field back")

		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(samplev1alpha1.FieldManagerConflictReason))
			g.Expect(c.Message).To(SatisfyAll(ContainSubstring(`"`+autoscaler+`"`), ContainSubstring(".spec.replicas"),
				ContainSubstring("scale subresource"), ContainSubstring("scale the Foo")))
		}).Should(Succeed())
		expectEvent(ns, samplev1alpha1.FieldManagerConflictReason, ContainSubstring(autoscaler))
		Expect(gauge(Default, "foo_operator_field_takeovers_total", map[string]string{"manager": autoscaler, "field": ".spec.replicas"})).To(BeNumerically(">=", 2))

		By("the other writer stops: the operator takes the field back and the Foo is no longer Degraded")
		stopAutoscaler()
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).Spec.Replicas).To(Equal(ptr.To[int32](2)))
			g.Expect(meta.IsStatusConditionFalse(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)).To(BeTrue())
		}).WithTimeout(30 * time.Second).Should(Succeed())
	})

	// Before: while the contest lasted, every pass ended at the Deployment: the Foo's budget
	// was neither created nor deleted (a user who set podDisruptionBudget: Disabled to keep
	// a budget of their own had two select the pods, and every eviction of them refused),
	// and a change of the Foo reached the Deployment only with the contest's next correction.
	It("keeps its budget and applies the Foo's changes at once while another writer keeps scaling the Deployment", func() {
		foo := converged(ctx, newFoo("contested-foo", withNamespace(ns), withReplicas(2)))
		name := foo.Spec.DeploymentName
		eventuallyBudget(foo)
		contestedJustAfterACorrection(foo, name)

		By("the Foo asks for another image: the Deployment gets it before the next correction")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Image = testImage + "-v2" })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).Spec.Template.Spec.Containers[0].Image).To(Equal(testImage + "-v2"))
		}).WithTimeout(maxConflictRecheck / 2).Should(Succeed())
		Expect(meta.FindStatusCondition(getFoo(Default, foo).Status.Conditions, samplev1alpha1.DegradedCondition)).
			To(HaveField("Reason", samplev1alpha1.FieldManagerConflictReason), "the contest goes on: the change's apply was one of its corrections")

		By("the Foo asks for no budget: the operator deletes its own")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.PodDisruptionBudget = samplev1alpha1.PodDisruptionBudgetDisabled })
		expectNoBudget(foo)
	})

	// Before: while the contest over the new Deployment of a renamed Foo lasted, every pass
	// ended before the old Deployment's deletion, which the new one running all its replicas
	// allows: the old one ran beside it for as long as its autoscaler did.
	It("deletes the old Deployment of a renamed Foo while another writer keeps scaling the new one", func() {
		foo := converged(ctx, newFoo("contested-rename", withNamespace(ns), withReplicas(2)))
		old := foo.Spec.DeploymentName
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "contested-rename-v2" })
		eventuallyDeployment(ns, "contested-rename-v2")
		contestedJustAfterACorrection(foo, "contested-rename-v2")
		getDeployment(Default, ns, old) // the new Deployment does not run its replicas yet: the old one stays

		By("the new Deployment runs the replicas it asks for, the autoscaler's, before the next correction")
		simulateRollout(ctx, ns, "contested-rename-v2", 5, true)
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: old}, &appsv1.Deployment{})
		}).Should(MatchError(ContainSubstring("not found")))
	})

	// Before: a contest started anew whenever the taker changed, and ended once a correction
	// held for the first recheck interval: two writers taking spec.replicas in turn, each
	// coming back after longer than that interval, were each corrected at once (8 takes, 8
	// corrections) and the Foo never reported the contest.
	It("shares one back-off between writers that take a field in turn, and names them all", func() {
		foo := converged(ctx, newFoo("alternating", withNamespace(ns), withReplicas(2)))
		name := foo.Spec.DeploymentName
		admin, err := kubernetes.NewForConfig(testEnv.Config)
		Expect(err).NotTo(HaveOccurred())
		kubectlScale := func(replicas int32) {
			GinkgoHelper()
			Eventually(func() error {
				scale, err := admin.AppsV1().Deployments(ns).GetScale(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				scale.Spec.Replicas = replicas
				_, err = admin.AppsV1().Deployments(ns).UpdateScale(ctx, name, scale, metav1.UpdateOptions{FieldManager: "kubectl"})
				return err
			}).Should(Succeed())
		}
		botPatch := func(replicas int32) {
			GinkgoHelper()
			patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)))
			Expect(k8sClient.Patch(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, patch, client.FieldOwner("gitops-bot"))).To(Succeed())
		}

		// 8 takes 2 s apart, twice the suite's first recheck interval (1 s), alternating.
		corrections := func() float64 {
			return testutil.ToFloat64(fieldTakeovers.WithLabelValues("kubectl", ".spec.replicas")) +
				testutil.ToFloat64(fieldTakeovers.WithLabelValues("gitops-bot", ".spec.replicas"))
		}
		before, correctedBefore := requests.count(), corrections()
		for i := range 8 {
			if i%2 == 0 {
				kubectlScale(5)
			} else {
				botPatch(6)
			}
			time.Sleep(2 * time.Second)
		}
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).To(HaveField("Reason", samplev1alpha1.FieldManagerConflictReason))
			g.Expect(c.Message).To(ContainSubstring(`written by field manager "gitops-bot" and field manager "kubectl" through the scale subresource`))
		}).Should(Succeed())
		// The field comes back to the operator, and the contest ends once it held for the
		// window (the suite's longest interval, 8 s).
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).Spec.Replicas).To(Equal(ptr.To[int32](2)))
			g.Expect(meta.IsStatusConditionFalse(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)).To(BeTrue())
		}).WithTimeout(40 * time.Second).Should(Succeed())
		// Written corrections: an apply the API server refused with a Conflict (a take landed
		// between the operator's read and its write) is sent again and counts once.
		corrected := corrections() - correctedBefore
		writes := filter(deploymentChanges(requests.writesSince(before)), "/deployments/"+name)
		GinkgoWriter.Printf("8 takes by two writers in turn: %v corrections of the operator, %d write requests\n", corrected, len(writes))
		Expect(corrected).To(BeNumerically("<=", 6), "as many as one writer's 8 takes would cost")
	})

	// Before: the next apply set httpGet beside the tcpSocket another writer put there (and
	// emptyDir beside hostPath); the API server refused every apply, and the Foo's scale
	// never reached the Deployment.
	It("restores its own member of a one-of another writer replaced, and still scales", func() {
		foo := converged(ctx, newFoo("reshaped", withNamespace(ns)))
		name := foo.Spec.DeploymentName
		neighbourUpdates(ctx, getDeployment(Default, ns, name), func(d *appsv1.Deployment) {
			for _, probe := range []*corev1.Probe{d.Spec.Template.Spec.Containers[0].ReadinessProbe, d.Spec.Template.Spec.Containers[0].LivenessProbe} {
				probe.HTTPGet, probe.TCPSocket = nil, &corev1.TCPSocketAction{Port: intstr.FromInt32(containerPort)}
			}
			d.Spec.Template.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}
		})

		Eventually(func(g Gomega) {
			d := getDeployment(g, ns, name)
			own := corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}}
			g.Expect(d.Spec.Template.Spec.Containers[0].ReadinessProbe.ProbeHandler).To(Equal(own))
			g.Expect(d.Spec.Template.Spec.Containers[0].LivenessProbe.ProbeHandler).To(Equal(own))
			g.Expect(d.Spec.Template.Spec.Volumes[0].VolumeSource).To(Equal(corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}))
		}).Should(Succeed())
		expectEvent(ns, ReasonDeploymentUpdated, And(ContainSubstring("readinessProbe/tcpSocket"), ContainSubstring("livenessProbe/tcpSocket")))
		// Before: the repair's field manager went on co-owning the restored members, so a
		// later operator version that stops setting them could not prune them.
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).ManagedFields).NotTo(ContainElement(HaveField("Manager", repairFieldManager)))
		}).Should(Succeed())

		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](3) })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).Spec.Replicas).To(Equal(ptr.To[int32](3)))
		}).Should(Succeed())
	})

	// Before: the decision was made on the cached Deployment and the apply had no
	// precondition, so the operator put its ownerReference back on a Deployment the user had
	// released, or on another writer's Deployment of the same name.
	It("never re-owns a Deployment released or replaced since it was cached", func() {
		for _, change := range []struct {
			name   string
			change func(d *appsv1.Deployment) *appsv1.Deployment
		}{
			{"its ownerReference removed", func(d *appsv1.Deployment) *appsv1.Deployment {
				neighbourUpdates(ctx, d, func(d *appsv1.Deployment) { d.OwnerReferences = nil })
				return d
			}},
			{"deleted and re-created by someone else with the same name and selector", func(d *appsv1.Deployment) *appsv1.Deployment {
				Expect(k8sClient.Delete(ctx, d)).To(Succeed())
				replacement := d.DeepCopy()
				replacement.ObjectMeta = metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace, Labels: d.Labels}
				return create(ctx, replacement)
			}},
		} {
			for _, w := range []write{{action: updateWrite}, {action: updateWrite, scale: true}} {
				By(fmt.Sprintf("%s, before the write %+v", change.name, w))
				// A Foo that is not stored, so only this spec's direct call reconciles it.
				foo := newFoo("released", withNamespace(ns), withDeploymentName(fmt.Sprintf("%d-%t", len(change.name), w.scale)), withIdentity("released-uid", 1))
				_, err := reconciler.applyDeployment(ctx, DeploymentFor(foo, testImage))
				Expect(err).NotTo(HaveOccurred())
				cached := getDeployment(Default, ns, foo.Spec.DeploymentName) // what a lagging cache holds
				after := change.change(cached.DeepCopy())

				foo.Spec.Replicas = ptr.To[int32](3) // the Foo changed: the cached Deployment has drifted
				_, err = reconciler.act(ctx, foo, DeploymentFor(foo, testImage), cached, w)
				kind, _ := kindOf(err)
				Expect(kind).To(Equal(staleDecision), "the write is refused, or the apply after it carries the cached resourceVersion: got %v", err)
				Eventually(func() errorKind {
					_, err := reconciler.reconcileDeployment(ctx, foo)
					kind, _ := kindOf(err)
					return kind
				}).Should(Equal(nameTaken), "the next pass decides on the Deployment as it is now")
				stored := getDeployment(Default, ns, foo.Spec.DeploymentName)
				Expect(stored.UID).To(Equal(after.UID))
				Expect(stored.OwnerReferences).To(BeEmpty())
				Expect(stored.Spec.Replicas).To(Equal(ptr.To[int32](1)))
			}
		}
	})

	It("never scales a Deployment whose spec changed since it was cached, and scales one whose status alone changed", func() {
		// A Foo that is not stored, so only this spec's direct calls reconcile it.
		foo := newFoo("stale-scale", withNamespace(ns), withIdentity("stale-scale-uid", 1))
		_, err := reconciler.applyDeployment(ctx, DeploymentFor(foo, testImage))
		Expect(err).NotTo(HaveOccurred())
		cached := getDeployment(Default, ns, foo.Spec.DeploymentName)
		neighbourUpdates(ctx, cached.DeepCopy(), func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) })

		foo.Spec.Replicas = ptr.To[int32](3)
		desired := DeploymentFor(foo, testImage)
		_, err = reconciler.act(ctx, foo, desired, cached, write{action: updateWrite, scale: true})
		kind, _ := kindOf(err)
		Expect(kind).To(Equal(staleDecision), "the patch tests the generation the decision saw: got %v", err)
		Expect(getDeployment(Default, ns, foo.Spec.DeploymentName).Spec.Replicas).To(Equal(ptr.To[int32](5)), "the other writer's scale stays")

		By("scaling over a status write the decision did not see, with no resourceVersion to fail on")
		cached = getDeployment(Default, ns, foo.Spec.DeploymentName)
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 5, true)
		Expect(getDeployment(Default, ns, foo.Spec.DeploymentName).ResourceVersion).NotTo(Equal(cached.ResourceVersion))
		before := requests.count()
		scaled, err := reconciler.act(ctx, foo, desired, cached, write{action: updateWrite, scale: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(deploymentChanges(requests.writesSince(before))).To(HaveLen(1), "one patch, no apply after it")
		Expect(scaled.Spec.Replicas).To(Equal(ptr.To[int32](3)))
		Expect(scaled.Labels).To(HaveKeyWithValue(DesiredHashLabel, desired.Labels[DesiredHashLabel]))
		Expect(scaled.Annotations).To(Equal(cached.Annotations), "the Deployment controller copies annotations to the ReplicaSet: a scale changes none")
		got, err := (&ownership{}).driftOf(client.ObjectKeyFromObject(foo), desired, scaled)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.none()).To(BeTrue(), "the patch's entry holds the replicas and hash it wrote: %+v", got)

		By("not scaling, nor creating, a Deployment deleted since")
		Expect(k8sClient.Delete(ctx, scaled)).To(Succeed())
		foo.Spec.Replicas = ptr.To[int32](4)
		_, err = reconciler.act(ctx, foo, DeploymentFor(foo, testImage), scaled, write{action: updateWrite, scale: true})
		kind, _ = kindOf(err)
		Expect(kind).To(Equal(staleDecision), "got %v", err)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(scaled), &appsv1.Deployment{})).To(MatchError(ContainSubstring("not found")))
	})

	// Before: the orphaned Deployment stayed in DeploymentConflict for good.
	It("adopts its Deployment orphaned by kubectl delete foo --cascade=orphan once the Foo is created again, not one the user detached", func() {
		foo := converged(ctx, newFoo("orphan", withNamespace(ns)))
		name := foo.Spec.DeploymentName
		orphaned := getDeployment(Default, ns, name)
		// What `kubectl delete foo --cascade=orphan` leaves (envtest runs no garbage
		// collector: the spec removes the ownerReference as it would).
		Expect(k8sClient.Delete(ctx, getFoo(Default, foo))).To(Succeed())
		Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(foo), &samplev1alpha1.Foo{}) }).Should(MatchError(ContainSubstring("not found")))
		neighbourUpdates(ctx, getDeployment(Default, ns, name), func(d *appsv1.Deployment) { d.OwnerReferences = nil })
		// Only a Deployment created before the Foo is adopted, and creation timestamps
		// have a resolution of a second.
		time.Sleep(time.Second)

		again := create(ctx, newFoo("orphan", withNamespace(ns)))
		Eventually(func(g Gomega) {
			expectControlledByG(g, getDeployment(g, ns, name), again)
		}).Should(Succeed())
		Expect(getDeployment(Default, ns, name).UID).To(Equal(orphaned.UID), "adopted, not re-created")
		expectEvent(ns, ReasonDeploymentAdopted, ContainSubstring(name))
		expectNoEventFor(ns, ReasonDeploymentUpdated) // one write, one event

		By("a Deployment the user detaches from its living Foo is left alone")
		neighbourUpdates(ctx, getDeployment(Default, ns, name), func(d *appsv1.Deployment) { d.OwnerReferences = nil })
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, again).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).To(HaveField("Reason", samplev1alpha1.DeploymentConflictReason))
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).OwnerReferences).To(BeEmpty())
		}).Should(Succeed())
	})

	// Before: a Deployment created after the Foo, carrying the operator's labels and another
	// Foo's UID annotation, was adopted: its replicas set and the nginx container added
	// beside its own.
	It("never adopts a Deployment created after the Foo, nor one running containers it does not set", func() {
		earlier := newFoo("lookalike", withNamespace(ns), withIdentity("earlier-uid", 1))
		for _, tt := range []struct {
			name    string
			created time.Time // the Foo's creationTimestamp
			mutate  func(*appsv1.Deployment)
		}{
			{"created after the Foo", time.Now().Add(-time.Hour), func(*appsv1.Deployment) {}},
			{"older than the Foo, with a container of its own", time.Now().Add(time.Hour), func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "app", Image: "example.com/app:1"})
			}},
		} {
			By(tt.name)
			lookalike := newDeployment(earlier)
			lookalike.Name = "lookalike-" + strconv.Itoa(int(tt.created.Unix()%1000))
			lookalike.OwnerReferences = nil
			tt.mutate(lookalike)
			lookalike = create(ctx, lookalike)
			// A Foo that is not stored, so only this spec's direct call reconciles it.
			foo := newFoo("lookalike", withNamespace(ns), withDeploymentName(lookalike.Name), withIdentity("later-uid", 1), withReplicas(3))
			foo.CreationTimestamp = metav1.NewTime(tt.created)
			Expect(adoptable(lookalike, foo)).To(BeFalse())

			_, err := reconciler.reconcileDeployment(ctx, foo)

			kind, _ := kindOf(err)
			Expect(kind).To(Equal(nameTaken), "got %v", err)
			stored := getDeployment(Default, ns, lookalike.Name)
			Expect(stored.ResourceVersion).To(Equal(lookalike.ResourceVersion), "not written")
		}
	})

	// Before: a pod lost within the Deployment's maxUnavailable (a node drain) made the Foo
	// Degraded (ReplicasUnavailable) and not Ready, with a Warning event, once the
	// operator's last change was older than the progress deadline.
	It("stays Ready when a pod is lost within the Deployment's availability, and reports a loss below it as Degraded", func() {
		foo := converged(ctx, newFoo("lost", withNamespace(ns), withReplicas(4)))
		name := foo.Spec.DeploymentName
		// The progress deadline, a field the operator leaves to others, set to 1 s: the
		// operator's last change is then older than the deadline after a second.
		neighbourUpdates(ctx, getDeployment(Default, ns, name), func(d *appsv1.Deployment) { d.Spec.ProgressDeadlineSeconds = ptr.To[int32](1) })
		time.Sleep(time.Second)

		By("one of 4 pods lost: the Deployment stays Available (maxUnavailable 25 %)")
		simulateRollout(ctx, ns, name, 4, true, withPodsLost(3))
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(3)))
			g.Expect(meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.AvailableCondition).Message).To(ContainSubstring("3 of 4 replicas available"))
		}).Should(Succeed())
		Consistently(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
			g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.DegradedCondition)).To(BeTrue())
		}).Should(Succeed())
		expectNoEvent(ns, samplev1alpha1.ReplicasUnavailableReason)

		By("two more lost: the Deployment is no longer Available")
		simulateRollout(ctx, ns, name, 4, false, withPodsLost(1))
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.DegradedCondition)).To(
				HaveField("Reason", samplev1alpha1.ReplicasUnavailableReason))
			g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.ProgressingCondition)).To(BeTrue())
			g.Expect(meta.IsStatusConditionFalse(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())
		}).Should(Succeed())
		expectEvent(ns, samplev1alpha1.ReplicasUnavailableReason, ContainSubstring("1 of 4 replicas"))
	})

	// Before: a quota that refused the pods of a rename's new Deployment showed only as
	// RolloutInProgress; the Deployment's reason appeared nowhere on the Foo.
	It("reports pods the Deployment cannot create as Degraded with the Deployment's message, keeping the serving Deployment", func() {
		foo := converged(ctx, newFoo("quota", withNamespace(ns), withReplicas(2)))
		old := foo.Spec.DeploymentName
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "quota-v2" })
		eventuallyDeployment(ns, "quota-v2")
		simulateRollout(ctx, ns, "quota-v2", 0, false, withReplicaFailure())
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).To(HaveField("Reason", samplev1alpha1.ReplicaFailureReason))
			g.Expect(c.Message).To(Equal("Deployment quota-v2 cannot create pods (FailedCreate): " + quotaMessage))
		}).Should(Succeed())
		expectEvent(ns, samplev1alpha1.ReplicaFailureReason, ContainSubstring("exceeded quota"))
		Consistently(func(g Gomega) { getDeployment(g, ns, old) }).Should(Succeed())
	})

	// Before: status.deploymentName, replicas and selector went blank, and the scale
	// subresource reported 0 replicas and no selector, while the Foo still ran the old
	// Deployment: an autoscaler of the Foo stopped working.
	It("keeps describing the Deployment it serves with when renamed to a name another object holds", func() {
		foo := converged(ctx, newFoo("blocked", withNamespace(ns), withReplicas(2)))
		old := foo.Spec.DeploymentName
		simulateRollout(ctx, ns, old, 2, true)
		createForeignDeployment(ctx, ns, "someone-elses")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "someone-elses" })

		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.DegradedCondition)).To(
				HaveField("Reason", samplev1alpha1.DeploymentConflictReason))
			g.Expect(got.Status.DeploymentName).To(Equal(old))
			g.Expect(got.Status.Replicas).To(Equal(int32(2)))
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(2)))
			g.Expect(got.Status.Selector).To(Equal("app=nginx,controller=blocked"))
		}).Should(Succeed())
		scale := &autoscalingv1.Scale{}
		Expect(k8sClient.SubResource("scale").Get(ctx, getFoo(Default, foo), scale)).To(Succeed())
		Expect(scale.Status).To(Equal(autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=nginx,controller=blocked"}))
		Consistently(func(g Gomega) { getDeployment(g, ns, old) }).Should(Succeed())
	})

	// Before: a policy that rewrote app.kubernetes.io/managed-by hid the Deployment from the
	// operator's cache: a deleted Deployment was not created again, a renamed Foo's old
	// Deployment ran for good, and the Foo said nothing.
	It("says so when a mutating admission rewrites the label it watches by, and keeps its Deployments right", func() {
		applyPolicy(ns, relabelLabel)
		foo := create(ctx, newFoo("relabelled", withNamespace(ns)))
		name := foo.Spec.DeploymentName
		Eventually(func(g Gomega) {
			c := meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)
			g.Expect(c).To(HaveField("Reason", samplev1alpha1.DeploymentUnwatchedReason))
			g.Expect(c.Message).To(ContainSubstring(`app.kubernetes.io/managed-by="` + relabelValue + `"`))
		}).Should(Succeed())
		first := getDeployment(Default, ns, name)
		Expect(first.Labels).To(HaveKeyWithValue(ManagedByLabel, relabelValue), "the policy ran")

		By("deleting the Deployment: it is created again")
		Expect(k8sClient.Delete(ctx, first)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).UID).NotTo(Equal(first.UID))
		}).Should(Succeed())

		By("renaming the Foo: the old Deployment is deleted once the new one runs")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "relabelled-v2" })
		eventuallyDeployment(ns, "relabelled-v2")
		simulateRollout(ctx, ns, "relabelled-v2", 1, true)
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &appsv1.Deployment{})
		}).Should(MatchError(ContainSubstring("not found")))
		expectEvent(ns, samplev1alpha1.DeploymentUnwatchedReason, ContainSubstring(relabelValue))
	})

	// Before: Ready=False (RolloutInProgress) on every scale that outlasted the report delay;
	// later, Ready=True of the new generation at the report delay while it still scaled,
	// then the end: two status writes.
	It("stays Ready while an autoscaler of the Foo scales it, and reports the scale once, at its end", func() {
		foo := converged(ctx, newFoo("autoscaled", withNamespace(ns), withReplicas(1)))
		name := foo.Spec.DeploymentName
		before := requests.count()
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](2) })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, name).Spec.Replicas).To(Equal(ptr.To[int32](2)))
		}).Should(Succeed())
		// What the Deployment controller reports while the new pod starts: the template's
		// rollout complete, 1 of 2 available, not Available (25 % of 2 rounds down to 0).
		simulateRollout(ctx, ns, name, 1, false, withPodsLost(1))

		statusWrites := func() []string { return filter(requests.since(before, http.MethodPatch), "/foos/autoscaled/status") }
		Consistently(statusWrites, 2*progressReportDelay+time.Second).Should(BeEmpty(), "the scale is not reported in progress")
		got := getFoo(Default, foo)
		Expect(got.Status.ObservedGeneration).To(BeNumerically("<", got.Generation), "the status says it is behind the spec")
		Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue())

		simulateRollout(ctx, ns, name, 2, true)
		expectReady(foo)
		Expect(getFoo(Default, foo).Status.AvailableReplicas).To(Equal(int32(2)))
		Expect(statusWrites()).To(HaveLen(1))
	})

	// A status write that a policy undoes changes nothing, and no watch event follows it: the
	// operator must not wait for one before it writes the status again.
	It("writes the status once a policy that undid its status writes is lifted", func() {
		foo := converged(ctx, newFoo("undone", withNamespace(ns), withReplicas(2)))
		name := foo.Spec.DeploymentName
		ready := settled(foo)
		policy := undoStatusWrites(ctx, foo)
		before := requests.count()
		simulateRollout(ctx, ns, name, 2, false, withPodsLost(0))
		Eventually(func() []string { return filter(requests.since(before, http.MethodPatch), "/foos/undone/status") }).
			ShouldNot(BeEmpty(), "the operator wrote the pods lost")
		Expect(settled(foo).Status).To(Equal(ready.Status), "the policy undid every write; the last changed nothing")

		Expect(k8sClient.Delete(ctx, policy)).To(Succeed())
		Eventually(statusWriteUndone(foo)).Should(BeFalse())
		simulateRollout(ctx, ns, name, 2, false, withPodsLost(0), withUpdatedReplicas(1))
		Eventually(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(got.Status.AvailableReplicas).To(BeZero())
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeFalse())
		}).Should(Succeed())
	})

	// Before: the old Deployment was deleted as soon as the new one had minimum
	// availability, 2 of 4 pods serving.
	It("deletes the Deployment of a renamed Foo only when the new one runs all its replicas", func() {
		foo := converged(ctx, newFoo("renamed", withNamespace(ns), withReplicas(4)))
		old := foo.Spec.DeploymentName
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = "renamed-v2" })
		eventuallyDeployment(ns, "renamed-v2")
		simulateRollout(ctx, ns, "renamed-v2", 3, true)
		Consistently(func(g Gomega) { getDeployment(g, ns, old) }).Should(Succeed())

		simulateRollout(ctx, ns, "renamed-v2", 4, true)
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: old}, &appsv1.Deployment{})
		}).
			Should(MatchError(ContainSubstring("not found")))
	})

	It("names its field manager on the status it writes", func() {
		foo := converged(ctx, newFoo("named", withNamespace(ns)))
		Expect(getFoo(Default, foo).ManagedFields).To(ContainElement(SatisfyAll(
			HaveField("Subresource", "status"), HaveField("Manager", FieldManager))))
		Expect(getFoo(Default, foo).ManagedFields).NotTo(ContainElement(HaveField("Manager", "manager")))
	})

	// Before: an AllNamespaces install could update every Lease of the cluster.
	It("elects a leader with exactly its leader election Role, which reaches no other Lease", func() {
		raw, err := os.ReadFile(filepath.Join("..", "config", "rbac", "leader_election_role.yaml"))
		Expect(err).NotTo(HaveOccurred())
		role := &rbacv1.ClusterRole{} // as OLM makes the CSV's Role for an AllNamespaces install
		Expect(yaml.Unmarshal(raw, role)).To(Succeed())
		Expect(role.Rules[0].ResourceNames).To(HaveLen(1))
		lease := role.Rules[0].ResourceNames[0] // main.go's leaderElectionID: main_test.go checks they agree
		role.ObjectMeta = metav1.ObjectMeta{GenerateName: "leader-election-"}
		create(ctx, role)
		sa := create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "elector", Namespace: ns}})
		create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "leader-election-"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
		})
		user := "system:serviceaccount:" + ns + ":" + sa.Name
		allowed := func(verb, namespace, name string) bool {
			GinkgoHelper()
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: user, Groups: []string{"system:serviceaccounts", "system:authenticated"},
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: "coordination.k8s.io", Resource: "leases", Namespace: namespace, Name: name},
			}}
			Expect(k8sClient.Create(ctx, review)).To(Succeed())
			return review.Status.Allowed
		}
		Expect(allowed("update", "kube-node-lease", "node-1")).To(BeFalse(), "a node's heartbeat")
		Expect(allowed("update", "kube-system", "kube-scheduler")).To(BeFalse(), "another component's leader Lease")
		Expect(allowed("get", ns, lease)).To(BeTrue())
		Expect(allowed("update", ns, lease)).To(BeTrue())
		Expect(allowed("create", ns, "")).To(BeTrue())

		// And a real election with that identity wins the Lease.
		mgr, err := ctrl.NewManager(serviceAccountConfig(sa), ctrl.Options{
			Scheme: clientgoscheme.Scheme, LeaderElection: true, LeaderElectionID: lease, LeaderElectionNamespace: ns,
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		})
		Expect(err).NotTo(HaveOccurred())
		runUntilCleanup(mgr.Start)
		Eventually(mgr.Elected()).WithTimeout(30 * time.Second).Should(BeClosed())
	})
})

// expectNoEventFor checks, for a while, that no event about a Foo in ns has the given reason
// (the recorder sends events asynchronously).
func expectNoEventFor(ns, reason string) {
	GinkgoHelper()
	Consistently(func(g Gomega) []string {
		list := &eventsv1.EventList{}
		g.Expect(k8sClient.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.Kind == "Foo" {
				reasons = append(reasons, e.Reason)
			}
		}
		return reasons
	}).ShouldNot(ContainElement(reason))
}

// contestedJustAfterACorrection starts an autoscaler of foo's Deployment name that sets 5
// replicas (autoscaleDeployment, stopped at the end of the spec), and returns once foo
// reports the contest, the operator has just taken the field back at the suite's longest
// recheck interval (after its fourth correction it waits 8 s before each next one), and
// the autoscaler took it again, in the operator's cache too: until the cache has that take,
// the operator owns every field it sets, and a change of the Foo is applied as with no
// contest.
func contestedJustAfterACorrection(foo *samplev1alpha1.Foo, name string) {
	GinkgoHelper()
	const autoscaler = "test-autoscaler"
	corrections := func() float64 {
		return testutil.ToFloat64(fieldTakeovers.WithLabelValues(autoscaler, ".spec.replicas"))
	}
	before := corrections()
	DeferCleanup(autoscaleDeployment(foo.Namespace, name, autoscaler, 5))
	Eventually(corrections).Should(BeNumerically(">=", before+4))
	Eventually(func(g Gomega) {
		g.Expect(meta.FindStatusCondition(getFoo(g, foo).Status.Conditions, samplev1alpha1.DegradedCondition)).
			To(HaveField("Reason", samplev1alpha1.FieldManagerConflictReason))
	}).Should(Succeed())
	corrected := corrections()
	Eventually(corrections).WithTimeout(2 * maxConflictRecheck).Should(BeNumerically(">", corrected))
	var taken int64
	Eventually(func(g Gomega) {
		live := getDeployment(g, foo.Namespace, name)
		g.Expect(live.Spec.Replicas).To(Equal(ptr.To[int32](5)))
		taken = live.Generation
	}).Should(Succeed())
	Eventually(func(g Gomega) {
		cached := &appsv1.Deployment{}
		g.Expect(reconciler.Get(ctx, client.ObjectKey{Namespace: foo.Namespace, Name: name}, cached)).To(Succeed())
		g.Expect(cached.Generation).To(BeNumerically(">=", taken))
	}).Should(Succeed())
}

// autoscaleDeployment runs, until the returned stop (which DeferCleanup can take), what an
// HPA that targets the Deployment instead of the Foo does: it sets replicas through the
// scale subresource, as manager, whenever it finds another count, every 250 ms.
func autoscaleDeployment(ns, name, manager string, replicas int32) (stop func()) {
	GinkgoHelper()
	admin, err := kubernetes.NewForConfig(testEnv.Config)
	Expect(err).NotTo(HaveOccurred())
	stopped, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopped:
				return
			case <-tick.C:
			}
			scale, err := admin.AppsV1().Deployments(ns).GetScale(ctx, name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			if scale.Spec.Replicas != replicas {
				scale.Spec.Replicas = replicas
				_, err = admin.AppsV1().Deployments(ns).UpdateScale(ctx, name, scale, metav1.UpdateOptions{FieldManager: manager})
				Expect(err).To(Or(Succeed(), Satisfy(apierrors.IsConflict)), "only the operator's write in between may refuse it")
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(stopped)
		<-done
	})
}
