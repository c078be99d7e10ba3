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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// Neighbours: other field managers that write to the operator's Deployments.
const (
	policyEngine = "policy-engine" // adds what a policy requires, with server-side apply
	kubectlEdit  = "kubectl-edit"  // changes fields with an update
)

var _ = Describe("Ownership of the Deployment's fields", func() {
	var ns string
	BeforeEach(func() { ns = specNamespace(ctx) })

	DescribeTable("judges drift on the fields the operator owns, as the API server records them",
		func(change func(d *appsv1.Deployment), want bool) {
			// A Foo that is not stored: the manager leaves its Deployment alone.
			foo := newFoo("judged", withNamespace(ns), withIdentity("judged-uid", 1))
			_, err := reconciler.applyDeployment(ctx, DeploymentFor(foo, testImage))
			Expect(err).NotTo(HaveOccurred())
			change(getDeployment(Default, ns, foo.Spec.DeploymentName))

			desired := DeploymentFor(foo, testImage)
			got, err := (&ownership{}).driftOf(client.ObjectKeyFromObject(foo), desired, getDeployment(Default, ns, foo.Spec.DeploymentName))
			Expect(err).NotTo(HaveOccurred())
			Expect(!got.none()).To(Equal(want), "%+v", got)
		},
		Entry("as applied", func(*appsv1.Deployment) {}, false),
		Entry("with a status", func(d *appsv1.Deployment) {
			withRollout(2, 2, true)(d)
			Expect(k8sClient.Status().Update(ctx, d)).To(Succeed())
		}, false),
		Entry("a neighbour's volume", func(d *appsv1.Deployment) { neighbourApplies(ctx, d, withForeignVolume) }, false),
		Entry("a neighbour's sidecar container", func(d *appsv1.Deployment) { neighbourApplies(ctx, d, withSidecar) }, false),
		Entry("a neighbour's port on the nginx container", func(d *appsv1.Deployment) { neighbourApplies(ctx, d, withForeignPort) }, false),
		Entry("a neighbour's labels and annotations", func(d *appsv1.Deployment) { neighbourApplies(ctx, d, withForeignMetadata) }, false),
		Entry("a neighbour's ownerReference", func(d *appsv1.Deployment) { neighbourApplies(ctx, d, withForeignOwner) }, false),
		Entry("replicas changed", func(d *appsv1.Deployment) {
			neighbourUpdates(ctx, d, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](7) })
		}, true),
		Entry("image changed", func(d *appsv1.Deployment) {
			neighbourUpdates(ctx, d, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "busybox:1.36" })
		}, true),
		Entry("own label removed", func(d *appsv1.Deployment) {
			neighbourUpdates(ctx, d, func(d *appsv1.Deployment) { delete(d.Labels, "app.kubernetes.io/name") })
		}, true),
		Entry("security context loosened", func(d *appsv1.Deployment) {
			neighbourUpdates(ctx, d, func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
			})
		}, true),
		Entry("a field the operator set but no longer sets (an older version's probe)", func(d *appsv1.Deployment) {
			olderVersionApplies(ctx, d)
		}, true),
	)

	It("creates its Deployment without reading it first, and scales and corrects it without reading it from the API server", func() {
		ownEntries := func(d *appsv1.Deployment) (ops []metav1.ManagedFieldsOperationType) {
			for _, e := range d.ManagedFields {
				if e.Manager == FieldManager {
					ops = append(ops, e.Operation)
				}
			}
			return ops
		}
		before := requests.count()
		foo := create(ctx, newFoo("owner", withNamespace(ns)))
		path := "/namespaces/" + ns + "/deployments"
		d := eventuallyDeployment(ns, foo.Spec.DeploymentName)
		Expect(filter(requests.since(before, http.MethodGet, http.MethodPost), path)[0]).To(Equal("POST /apis/apps/v1"+path), "the create comes first")
		Expect(ownEntries(d)).To(Equal([]metav1.ManagedFieldsOperationType{metav1.ManagedFieldsOperationUpdate}), "the create's entry")
		desired := DeploymentFor(getFoo(Default, foo), testImage)
		got, err := (&ownership{}).driftOf(client.ObjectKeyFromObject(foo), desired, d)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.none()).To(BeTrue(), "the create's entry counts as the operator's own: %+v", got)
		name := path + "/" + foo.Spec.DeploymentName
		Eventually(func(g Gomega) {
			g.Expect(mgrCache.Get(ctx, client.ObjectKeyFromObject(d), &appsv1.Deployment{})).To(Succeed())
		}).Should(Succeed())

		By("scaling it with a patch of its replicas, recorded in the create's entry")
		before = requests.count()
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](2) })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Replicas).To(HaveValue(Equal(int32(2))))
		}).Should(Succeed())
		Expect(ownEntries(getDeployment(Default, ns, foo.Spec.DeploymentName))).To(Equal([]metav1.ManagedFieldsOperationType{metav1.ManagedFieldsOperationUpdate}))

		By("taking replicas back from another writer, whom the cache names")
		neighbourUpdates(ctx, getDeployment(Default, ns, foo.Spec.DeploymentName), func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Replicas).To(HaveValue(Equal(int32(2))))
		}).Should(Succeed())
		expectEvent(ns, ReasonDeploymentScaled, ContainSubstring(fmt.Sprintf("took .spec.replicas back from field manager %q", kubectlEdit)))
		Expect(filter(requests.since(before, http.MethodGet), name)).To(BeEmpty(), "no read of the Deployment from the API server")

		By("making the create's entry its apply entry when the pod template changes, so an apply can prune what the create set")
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Image = "nginx:1.29" })
		Eventually(func(g Gomega) {
			d := getDeployment(g, ns, foo.Spec.DeploymentName)
			g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal("nginx:1.29"))
			g.Expect(ownEntries(d)).To(Equal([]metav1.ManagedFieldsOperationType{metav1.ManagedFieldsOperationApply}))
		}).Should(Succeed())
	})

	It("makes no write and emits no event when neighbours add fields, over a full rollout", func() {
		foo := converged(ctx, newFoo("neighbours", withNamespace(ns), withReplicas(2)))
		before := requests.count()

		d := getDeployment(Default, ns, foo.Spec.DeploymentName)
		neighbourApplies(ctx, d, withForeignVolume, withSidecar, withForeignPort, withForeignMetadata, withForeignOwner)
		// The Deployment controller rolls the new template out: new generation observed,
		// pods updated, available again.
		changed := getDeployment(Default, ns, foo.Spec.DeploymentName)
		Expect(changed.Generation).To(BeNumerically(">", d.Generation))
		for _, updated := range []int32{0, 1, 2} {
			simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, true, withUpdatedReplicas(updated))
		}
		expectReady(foo)

		Consistently(func() []string { return deploymentChanges(requests.writesSince(before)) }).Should(BeEmpty())
		live := getDeployment(Default, ns, foo.Spec.DeploymentName)
		Expect(live.Generation).To(Equal(changed.Generation), "the operator changed the Deployment")
		Expect(live.Spec.Template.Spec.Volumes).To(ContainElement(HaveField("Name", "policy-cache")))
		Expect(live.Spec.Template.Spec.Containers).To(ContainElement(HaveField("Name", "policy-agent")))
		Expect(live.OwnerReferences).To(HaveLen(2))
		expectNoEvent(ns, ReasonDeploymentUpdated)
		GinkgoWriter.Printf("Neighbour fields over a rollout: %d Deployment writes, %d Foo status writes\n",
			len(deploymentChanges(requests.writesSince(before))), len(requests.since(before, "PATCH"))-len(deploymentChanges(requests.writesSince(before))))
	})

	It("corrects a changed owned field with exactly one write, keeping the neighbours' fields", func() {
		foo := converged(ctx, newFoo("corrected", withNamespace(ns)))
		d := getDeployment(Default, ns, foo.Spec.DeploymentName)
		neighbourApplies(ctx, d, withForeignVolume)
		before := requests.count()

		neighbourUpdates(ctx, getDeployment(Default, ns, foo.Spec.DeploymentName), func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "busybox:1.36"
		})

		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Template.Spec.Containers[0].Image).To(Equal(testImage))
		}).Should(Succeed())
		Consistently(func() []string { return deploymentChanges(requests.writesSince(before)) }).Should(HaveLen(1))
		Expect(getDeployment(Default, ns, foo.Spec.DeploymentName).Spec.Template.Spec.Volumes).To(ContainElement(HaveField("Name", "policy-cache")))
		expectEvent(ns, ReasonDeploymentUpdated, fmt.Sprintf(`Updated Deployment %s to match the Foo; took .spec.template.spec.containers[name="nginx"].image back from field manager %q`, foo.Spec.DeploymentName, kubectlEdit))
	})

	It("keeps the status following the Deployment through scaling, a neighbour's change and a rollout", func() {
		foo := converged(ctx, newFoo("followed", withNamespace(ns), withReplicas(2)))
		neighbourApplies(ctx, getDeployment(Default, ns, foo.Spec.DeploymentName), withForeignVolume)
		patchFoo(ctx, foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](3) })
		Eventually(func(g Gomega) {
			g.Expect(getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Replicas).To(Equal(ptr.To[int32](3)))
		}).Should(Succeed())
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 2, false)
		simulateRollout(ctx, ns, foo.Spec.DeploymentName, 3, true)

		expectReady(foo)
		Consistently(func(g Gomega) {
			got := getFoo(g, foo)
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.AvailableReplicas).To(Equal(int32(3)))
			g.Expect(meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.AvailableCondition).Message).To(ContainSubstring("3 of 3 replicas available"))
		}).Should(Succeed())
	})

	It("prunes a field that an older operator version set and this one no longer sets", func() {
		foo := converged(ctx, newFoo("pruned", withNamespace(ns)))
		olderVersionApplies(ctx, getDeployment(Default, ns, foo.Spec.DeploymentName))

		Eventually(func(g Gomega) {
			c := getDeployment(g, ns, foo.Spec.DeploymentName).Spec.Template.Spec.Containers[0]
			g.Expect(c.StartupProbe).To(BeNil())
			g.Expect(c.Resources.Limits).NotTo(HaveKey(corev1.ResourceCPU))
			g.Expect(c.Env).To(BeEmpty())
		}).Should(Succeed())
	})

	It("moves the desired hash of a Deployment an earlier build created from its annotation to its label", func() {
		foo := converged(ctx, newFoo("hash-label", withNamespace(ns)))
		d := getDeployment(Default, ns, foo.Spec.DeploymentName)
		hash := d.Labels[DesiredHashLabel]
		Expect(hash).NotTo(BeEmpty())
		// As such a build leaves it: the hash in an annotation, owned by the create's entry.
		patch := client.MergeFrom(d.DeepCopy())
		delete(d.Labels, DesiredHashLabel)
		d.Annotations[DesiredHashLabel] = hash
		Expect(k8sClient.Patch(ctx, d, patch, client.FieldOwner(FieldManager))).To(Succeed())

		Eventually(func(g Gomega) {
			got := getDeployment(g, ns, foo.Spec.DeploymentName)
			g.Expect(got.Labels).To(HaveKeyWithValue(DesiredHashLabel, hash))
			g.Expect(got.Annotations).NotTo(HaveKey(DesiredHashLabel))
		}).Should(Succeed())
	})

	It("reports a name taken between its look and its create as a conflict, and leaves the other object alone", func() {
		// A Foo that is not stored, and a Deployment someone created under its name just
		// after the operator found none: the create step runs against the taken name.
		foo := newFoo("racer", withNamespace(ns), withDeploymentName("x"), withIdentity("racer-uid", 1))
		foreign := createForeignDeployment(ctx, ns, "x")

		_, err := reconciler.act(ctx, foo, DeploymentFor(foo, testImage), nil, write{action: createWrite})
		kind, _ := kindOf(err)
		Expect(kind).To(Equal(staleDecision), "the API server refuses the create with AlreadyExists: got %v", err)
		Expect(errorPolicies[kind].retry).To(BeTrue())

		_, err = reconciler.reconcileDeployment(ctx, foo)
		kind, _ = kindOf(err)
		Expect(kind).To(Equal(nameTaken), "the next pass sees the name taken: got %v", err)
		Expect(getDeployment(Default, ns, "x").ResourceVersion).To(Equal(foreign.ResourceVersion))
	})

	It("runs under the OwnerReferencesPermissionEnforcement admission plugin, which its role satisfies", func() {
		// Proof the plugin is in force: a service account that may create Deployments but
		// not update Foo finalizers cannot set blockOwnerDeletion.
		foo := create(ctx, newFoo("enforced", withNamespace(ns), withDeploymentName("by-operator")))
		sa := create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: ns}})
		role := create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: ns},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"create", "delete"}}},
		})
		create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "deployer", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: ns}},
		})
		deployer := impersonating(fmt.Sprintf("system:serviceaccount:%s:%s", ns, sa.Name))
		d := newDeployment(getFoo(Default, foo))
		d.Name = "by-deployer"
		Eventually(func() error { return deployer.Create(ctx, d.DeepCopy()) }).
			Should(MatchError(ContainSubstring("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on")))

		// The operator, running as its own service account, can.
		expectControlledBy(eventuallyDeployment(ns, "by-operator"), getFoo(Default, foo))
		simulateRollout(ctx, ns, "by-operator", 1, true)
		expectReady(foo)
	})

	It("rechecks a thousand Foos blocked by a Deployment it does not manage with a backoff", func() {
		const foos = 1000
		createForeignDeployment(ctx, ns, "taken")
		start := time.Now()
		for i := range foos {
			create(ctx, newFoo(fmt.Sprintf("blocked-%04d", i), withNamespace(ns), withDeploymentName("taken")))
		}
		Eventually(func(g Gomega) {
			list := &samplev1alpha1.FooList{}
			g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
			for _, f := range list.Items {
				g.Expect(meta.FindStatusCondition(f.Status.Conditions, samplev1alpha1.DegradedCondition)).To(
					HaveField("Reason", samplev1alpha1.DeploymentConflictReason), f.Name)
			}
		}).WithTimeout(2 * time.Minute).Should(Succeed())
		blocked := time.Since(start)

		// Each Foo reads the taken name when its recheck is due: after 1 s, then after as
		// long as the conflict has lasted, at most every 8 s (the suite's bounds). After 8 s
		// every Foo is at the limit. A fixed interval of 1 s would read foos times per second.
		time.Sleep(maxConflictRecheck)
		const window = 2 * maxConflictRecheck
		before := requests.count()
		time.Sleep(window)
		reads := len(filter(requests.since(before, "GET"), "/namespaces/"+ns+"/deployments/taken"))
		GinkgoWriter.Printf("%d blocked Foos (all blocked within %v): %d reads of the taken name in %v (%.0f/s; a fixed 1 s interval: %d/s)\n",
			foos, blocked.Round(time.Second), reads, window, float64(reads)/window.Seconds(), foos)
		// Two reads each in the window, three when a read falls on both of its ends.
		Expect(reads).To(BeNumerically("<=", 3*foos))
		Expect(reads).To(BeNumerically(">=", foos), "every Foo keeps checking")
	})
})

// converged creates foo and waits until it is Ready with its Deployment rolled out.
func converged(ctx context.Context, foo *samplev1alpha1.Foo) *samplev1alpha1.Foo {
	GinkgoHelper()
	create(ctx, foo)
	eventuallyDeployment(foo.Namespace, foo.Spec.DeploymentName)
	simulateRollout(ctx, foo.Namespace, foo.Spec.DeploymentName, foo.Spec.DesiredReplicas(), true)
	expectReady(foo)
	return foo
}

// expectReady waits until foo's status reports its current generation Ready.
func expectReady(foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		got := getFoo(g, foo)
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeTrue(),
			"%v", got.Status.Conditions)
	}).Should(Succeed())
}

type neighbourChange func(*appsv1ac.DeploymentApplyConfiguration)

// neighbourApplies server-side-applies, as the policy engine, the fields changes set on d.
func neighbourApplies(ctx context.Context, d *appsv1.Deployment, changes ...neighbourChange) {
	GinkgoHelper()
	ac := appsv1ac.Deployment(d.Name, d.Namespace)
	for _, change := range changes {
		change(ac)
	}
	Expect(k8sClient.Apply(ctx, ac, client.FieldOwner(policyEngine))).To(Succeed())
}

func podSpec(ac *appsv1ac.DeploymentApplyConfiguration) *corev1ac.PodSpecApplyConfiguration {
	if ac.Spec == nil {
		ac.WithSpec(appsv1ac.DeploymentSpec())
	}
	if ac.Spec.Template == nil {
		ac.Spec.WithTemplate(corev1ac.PodTemplateSpec())
	}
	if ac.Spec.Template.Spec == nil {
		ac.Spec.Template.WithSpec(corev1ac.PodSpec())
	}
	return ac.Spec.Template.Spec
}

func withForeignVolume(ac *appsv1ac.DeploymentApplyConfiguration) {
	podSpec(ac).WithVolumes(corev1ac.Volume().WithName("policy-cache").WithEmptyDir(corev1ac.EmptyDirVolumeSource()))
}

func withSidecar(ac *appsv1ac.DeploymentApplyConfiguration) {
	podSpec(ac).WithContainers(corev1ac.Container().WithName("policy-agent").WithImage("example.com/agent:1"))
}

func withForeignPort(ac *appsv1ac.DeploymentApplyConfiguration) {
	podSpec(ac).WithContainers(corev1ac.Container().WithName(containerName).
		WithPorts(corev1ac.ContainerPort().WithName("metrics").WithContainerPort(9113).WithProtocol(corev1.ProtocolTCP)))
}

func withForeignMetadata(ac *appsv1ac.DeploymentApplyConfiguration) {
	ac.WithLabels(map[string]string{"policy.example.com/checked": "true"}).
		WithAnnotations(map[string]string{"policy.example.com/report": "pass"})
}

func withForeignOwner(ac *appsv1ac.DeploymentApplyConfiguration) {
	ac.WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("ConfigMap").
		WithName("policy").WithUID("policy-uid"))
}

// neighbourUpdates changes d with an update, as kubectl edit does.
func neighbourUpdates(ctx context.Context, d *appsv1.Deployment, change func(*appsv1.Deployment)) {
	GinkgoHelper()
	patch := client.MergeFrom(d.DeepCopy())
	change(d)
	Expect(k8sClient.Patch(ctx, d, patch, client.FieldOwner(kubectlEdit))).To(Succeed())
}

// olderVersionApplies applies d as an operator version that also set a startup probe, a
// CPU limit and an environment variable would have.
func olderVersionApplies(ctx context.Context, d *appsv1.Deployment) {
	GinkgoHelper()
	foo := newFoo(d.OwnerReferences[0].Name, withNamespace(d.Namespace), withDeploymentName(d.Name),
		withIdentity(string(d.OwnerReferences[0].UID), 1), withReplicas(ptr.Deref(d.Spec.Replicas, 1)))
	older := DeploymentFor(foo, testImage)
	c := &older.Spec.Template.Spec.Containers[0]
	c.WithStartupProbe(corev1ac.Probe().WithTCPSocket(corev1ac.TCPSocketAction().WithPort(intstr.FromString("http")))).
		WithEnv(corev1ac.EnvVar().WithName("NGINX_WORKER_PROCESSES").WithValue("2"))
	(*c.Resources.Limits)[corev1.ResourceCPU] = resource.MustParse("500m")
	older.Labels[DesiredHashLabel] = hashWithReplicas(older, ptr.Deref(d.Spec.Replicas, 1)) // its own hash, not this version's
	Expect(k8sClient.Apply(ctx, older, client.FieldOwner(FieldManager), client.ForceOwnership)).To(Succeed())
}

// impersonating is a client that acts as user.
func impersonating(user string) client.Client {
	GinkgoHelper()
	cfg := rest.CopyConfig(testEnv.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return c
}

// deploymentChanges are the writes among requests that change a Deployment (its status
// aside).
func deploymentChanges(requests []string) []string {
	var out []string
	for _, r := range filter(requests, "/deployments/") {
		if !strings.HasSuffix(r, "/status") {
			out = append(out, r)
		}
	}
	return out
}

// filter returns the requests whose path contains part.
func filter(requests []string, part string) []string {
	var out []string
	for _, r := range requests {
		if strings.Contains(r, part) {
			out = append(out, r)
		}
	}
	return out
}

// withUpdatedReplicas sets the updated replicas of a rollout in progress.
func withUpdatedReplicas(n int32) deploymentOption {
	return func(d *appsv1.Deployment) { d.Status.UpdatedReplicas = n }
}
