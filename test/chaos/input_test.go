//go:build chaos

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

package chaos

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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
)

func inputSpecs() {
	const scenario = "5. Hostile and odd input"

	It("rejects hostile input at admission with an answer that names the field and what to fix", func() {
		ns := env.CreateNamespace("input-invalid", false)
		invalid := framework.InvalidFoos()
		rejected := 0
		for _, foo := range invalid {
			// Sent as kubectl sends it: strict field validation makes an unknown field an error.
			err := k8s.Create(context.Background(), foo.Object(ns), client.FieldValidation(metav1.FieldValidationStrict))
			Expect(err).To(HaveOccurred(), foo.Description)
			Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "%s: want 422 Invalid or 400 Bad Request, got %v", foo.Description, err)
			Expect(err.Error()).To(And(ContainSubstring(foo.Field), ContainSubstring(foo.Message)), foo.Description)
			rejected++
			figures.add(scenario, "rejected: "+foo.Description, answer(err))
		}
		stored := &samplev1alpha1.FooList{}
		Expect(k8s.List(context.Background(), stored, client.InNamespace(ns))).To(Succeed())
		Expect(stored.Items).To(BeEmpty())
		figures.add(scenario, "invalid Foos rejected, each answer naming the field and what to fix; Foos stored",
			fmt.Sprintf("%d of %d; %d", rejected, len(invalid), len(stored.Items)))
	})

	It("handles odd but valid Foos without harm", func() {
		ns := env.CreateNamespace("input-valid", false)
		startReplica("manager-input")
		foos := map[string]samplev1alpha1.FooSpec{
			strings.Repeat("n", 63): {DeploymentName: "longest-name", Replicas: ptr.To[int32](1)},
			"zero":                  {DeploymentName: "zero", Replicas: ptr.To[int32](0)},
			"hundred":               {DeploymentName: "hundred", Replicas: ptr.To[int32](100)},
			"digest": {DeploymentName: "digest", Replicas: ptr.To[int32](1),
				Image: "registry.example.com/nginx-unprivileged@sha256:" + strings.Repeat("0123456789abcdef", 4)},
			"dotted": {DeploymentName: "web.v2.example", Replicas: ptr.To[int32](1)},
		}
		for name, spec := range foos {
			foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
				Annotations: map[string]string{"note": "ünïcödé ✓ 日本語"}}, Spec: spec}
			Expect(k8s.Create(context.Background(), foo)).To(Succeed(), name)
		}
		converged := expectConverged(ns, len(foos))
		d := &appsv1.Deployment{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "digest"}, d)).To(Succeed())
		Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(foos["digest"].Image))
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "hundred"}, d)).To(Succeed())
		Expect(d.Status.AvailableReplicas).To(Equal(int32(100)))
		figures.add(scenario, "odd but valid Foos (63-character name, replicas 0 and 100, image by digest, dotted deploymentName, unicode annotations) Ready",
			fmt.Sprintf("%d of %d", converged, len(foos)))
	})

	It("never touches a Deployment it does not control", func() {
		ns := env.CreateNamespace("input-foreign", false)
		startReplica("manager-foreign")
		foreign := foreignDeployment(ns, "taken")
		Expect(k8s.Create(context.Background(), foreign)).To(Succeed())
		squatted := time.Now()
		Expect(k8s.Create(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "squatter", Namespace: ns},
			Spec: samplev1alpha1.FooSpec{DeploymentName: "taken"}})).To(Succeed())
		condition := expectDegraded(ns, "squatter", samplev1alpha1.DeploymentConflictReason, `Resource "taken" already exists and is not managed by Foo`)
		figures.add(scenario, "deploymentName of another tenant's Deployment", condition+"; "+expectUnchanged(foreign, squatted))

		By("a thousand Foos naming the same Deployment")
		const many = 1000
		var crowd string
		for i := range many {
			Expect(k8s.Create(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("crowd-%04d", i), Namespace: ns},
				Spec: samplev1alpha1.FooSpec{DeploymentName: "shared"}})).To(Succeed())
		}
		Eventually(func(g Gomega) {
			foos := &samplev1alpha1.FooList{}
			g.Expect(k8s.List(context.Background(), foos, client.InNamespace(ns))).To(Succeed())
			ready, conflict := 0, 0
			for _, f := range foos.Items {
				if !strings.HasPrefix(f.Name, "crowd-") {
					continue
				}
				switch c := meta.FindStatusCondition(f.Status.Conditions, samplev1alpha1.DegradedCondition); {
				case meta.IsStatusConditionTrue(f.Status.Conditions, samplev1alpha1.ReadyCondition):
					ready++
				case c != nil && c.Reason == samplev1alpha1.DeploymentConflictReason:
					conflict++
				}
			}
			g.Expect([]int{ready, conflict}).To(Equal([]int{1, many - 1}))
			crowd = fmt.Sprintf("%d Ready, %d Degraded %s", ready, conflict, samplev1alpha1.DeploymentConflictReason)
		}).Should(Succeed())
		deployments, err := deploymentsIn(ns)()
		Expect(err).NotTo(HaveOccurred())
		Expect(deployments).To(Equal(2), "the foreign Deployment and the one shared name")
		figures.add(scenario, "1,000 Foos naming the same Deployment", fmt.Sprintf("%s, %d Deployment besides the foreign one", crowd, deployments-1))

		By("someone removes the controller reference of a Foo's Deployment")
		Expect(k8s.Create(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "disowned", Namespace: ns},
			Spec: samplev1alpha1.FooSpec{DeploymentName: "disowned"}})).To(Succeed())
		Eventually(func() error {
			return k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "disowned"}, &appsv1.Deployment{})
		}).Should(Succeed())
		d := &appsv1.Deployment{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "disowned"}, d)).To(Succeed())
		patch := client.MergeFrom(d.DeepCopy())
		d.OwnerReferences = nil
		Expect(k8s.Patch(context.Background(), d, patch)).To(Succeed())
		disowned := time.Now()
		condition = expectDegraded(ns, "disowned", samplev1alpha1.DeploymentConflictReason, "not managed by Foo")
		figures.add(scenario, "controller reference removed from a Foo's Deployment", condition+"; "+expectUnchanged(d, disowned))

		By("someone points the controller reference of a Foo's Deployment at another Foo")
		for _, name := range []string{"owner-a", "owner-b"} {
			Expect(k8s.Create(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec: samplev1alpha1.FooSpec{DeploymentName: name}})).To(Succeed())
		}
		for _, name := range []string{"owner-a", "owner-b"} { // owner-b deletes leftovers once its own Deployment is available
			Eventually(func(g Gomega) {
				g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
				g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(1))
			}).Should(Succeed())
		}
		b := &samplev1alpha1.Foo{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "owner-b"}, b)).To(Succeed())
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "owner-a"}, d)).To(Succeed())
		patch = client.MergeFrom(d.DeepCopy())
		d.OwnerReferences[0].Name, d.OwnerReferences[0].UID = b.Name, b.UID
		Expect(k8s.Patch(context.Background(), d, patch)).To(Succeed())
		repointed := time.Now()
		condition = expectDegraded(ns, "owner-a", samplev1alpha1.DeploymentConflictReason, "not managed by Foo")
		// The other Foo, now its controller, does not delete it as a leftover of its own.
		figures.add(scenario, "controller reference of a Foo's Deployment pointed at another Foo", "the Foo that names it "+condition+"; "+expectUnchanged(d, repointed))
	})

	It("recovers from what others do to its objects", func() {
		ns := env.CreateNamespace("input-others", false)
		startReplica("manager-others")
		Expect(k8s.Create(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			Spec: samplev1alpha1.FooSpec{DeploymentName: "web", Replicas: ptr.To[int32](2)}})).To(Succeed())
		expectConverged(ns, 1)

		By("kubectl delete --cascade=orphan of its Deployment")
		d := &appsv1.Deployment{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, d)).To(Succeed())
		Expect(k8s.Delete(context.Background(), d, client.PropagationPolicy(metav1.DeletePropagationOrphan))).To(Succeed())
		Eventually(func(g Gomega) {
			again := &appsv1.Deployment{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, again)).To(Succeed())
			g.Expect(again.UID).NotTo(Equal(d.UID))
		}).Should(Succeed())
		expectConverged(ns, 1)
		pods := podsIn(ns, client.MatchingLabels{"controller": "web"})
		Consistently(pods, 10*time.Second).Should(HaveLen(2), "the new Deployment adopted the orphaned ReplicaSet: no duplicate pods")
		running, err := pods()
		Expect(err).NotTo(HaveOccurred())
		figures.add(scenario, "its Deployment deleted with --cascade=orphan: recreated, the orphaned ReplicaSet adopted; pods of the Foo (it asks for 2) after 10 s", len(running))

		By("kubectl replace of its status with nonsense")
		foo := &samplev1alpha1.Foo{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "web"}, foo)).To(Succeed())
		foo.Status.AvailableReplicas = 99
		foo.Status.Conditions = nil
		replaced := time.Now()
		Expect(k8s.Status().Update(context.Background(), foo)).To(Succeed())
		expectConverged(ns, 1)
		figures.add(scenario, "status replaced with nonsense (kubectl replace --subresource=status)", fmt.Sprintf("corrected within %v (the suite polls every 5 s)", time.Since(replaced).Round(time.Second)))

		By("100 changes of replicas in 10 seconds")
		began := time.Now()
		// A change that takes the Foo to 2 replicas or more, or below, also makes or deletes
		// its PodDisruptionBudget, with an event.
		crossings, before := 0, foo.Spec.DesiredReplicas()
		for i := range 100 { // as `kubectl patch` sends them: no resourceVersion
			replicas := int32(1 + i%3)
			if (replicas >= 2) != (before >= 2) {
				crossings++
			}
			before = replicas
			patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas))
			Expect(k8s.Patch(context.Background(), foo, patch)).To(Succeed())
			time.Sleep(100 * time.Millisecond)
		}
		expectConverged(ns, 1)
		time.Sleep(5 * time.Second) // the audit log is written asynchronously
		writes := len(writesBy(readAudit(), "manager-others", began, time.Now()))
		Expect(writes).To(BeNumerically("<=", 3*100+2*crossings), "at most a Deployment apply, an event and a status write per change, and a budget write and its event per crossing of 2 replicas")
		figures.add(scenario, "100 changes of spec.replicas in 10 s", fmt.Sprintf("%d operator writes (Deployment, events, status; budget and its event at %d crossings of 2 replicas), final state correct", writes, crossings))
	})
}

// answer is the API server's answer as the report shows it: a run of more than 16 of one
// character shortened to 16 and a count, escaped for a Markdown table cell (a regular
// expression's [a-z0-9](...) would read as a link).
func answer(err error) string {
	var b strings.Builder
	runes := []rune(err.Error())
	for i := 0; i < len(runes); {
		j := i
		for j < len(runes) && runes[j] == runes[i] {
			j++
		}
		if j-i > 16 {
			fmt.Fprintf(&b, "%s…(%d in all)", strings.Repeat(string(runes[i]), 16), j-i)
		} else {
			b.WriteString(string(runes[i:j]))
		}
		i = j
	}
	return strings.NewReplacer("|", `\|`, "[", `\[`, "]", `\]`, "<", `\<`).Replace(b.String())
}

// foreignDeployment is a Deployment some other tenant owns.
func foreignDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": "someone-else"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}}},
			},
		},
	}
}

// expectDegraded waits until a Foo is Degraded for reason, with message in the condition,
// and returns the condition as read: "Degraded <reason>".
func expectDegraded(ns, name, reason, message string) string {
	GinkgoHelper()
	var c *metav1.Condition
	Eventually(func(g Gomega) {
		foo := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, foo)).To(Succeed())
		c = meta.FindStatusCondition(foo.Status.Conditions, samplev1alpha1.DegradedCondition)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Status).To(Equal(metav1.ConditionTrue))
		g.Expect(c.Reason).To(Equal(reason))
		g.Expect(c.Message).To(ContainSubstring(message))
	}).Should(Succeed())
	return c.Type + " " + c.Reason
}

// expectUnchanged checks that the operator sends no write to d after since: for ten seconds
// its spec, owners and labels stay as they are, and the audit log holds no write of the
// operator's service account to it (a create of its name that the API server refused with
// AlreadyExists wrote nothing: that is how the operator finds a name taken). It returns a
// description of what was observed.
func expectUnchanged(d *appsv1.Deployment, since time.Time) string {
	GinkgoHelper()
	key := client.ObjectKeyFromObject(d)
	latest := &appsv1.Deployment{}
	Expect(k8s.Get(context.Background(), key, latest)).To(Succeed())
	Consistently(func(g Gomega) {
		now := &appsv1.Deployment{}
		g.Expect(k8s.Get(context.Background(), key, now)).To(Succeed())
		g.Expect(now.Spec).To(Equal(latest.Spec))
		g.Expect(now.OwnerReferences).To(Equal(latest.OwnerReferences))
		g.Expect(now.Labels).To(Equal(latest.Labels))
	}, 10*time.Second).Should(Succeed())
	var writes []string
	for _, e := range readAudit() {
		refused := e.Verb == "create" && e.ResponseStatus.Code == http.StatusConflict
		if e.IsWrite() && !refused && e.User.Username == operatorUser && e.ObjectRef.Resource == "deployments" &&
			e.ObjectRef.Namespace == d.Namespace && e.ObjectRef.Name == d.Name && e.Received.After(since) {
			writes = append(writes, fmt.Sprintf("%s at %v", e.Verb, e.Received))
		}
	}
	Expect(writes).To(BeEmpty(), "the operator's writes to %s", key)
	return fmt.Sprintf("the Deployment's spec, owners and labels unchanged for 10 s, %d writes of the operator to it", len(writes))
}
