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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

func TestDeploymentFor(t *testing.T) {
	tests := []struct {
		name         string
		foo          *samplev1alpha1.Foo
		wantName     string
		wantImage    string
		wantReplicas int32
	}{
		{
			name:         "sample-controller's example",
			foo:          newFoo("example-foo", withDeploymentName("example-foo"), withReplicas(1)),
			wantName:     "example-foo",
			wantImage:    testImage,
			wantReplicas: 1,
		},
		{
			name:         "replicas and image from the spec",
			foo:          newFoo("a", withReplicas(3), withImage("nginx@sha256:0123456789abcdef0123456789abcdef")),
			wantName:     "a-web",
			wantImage:    "nginx@sha256:0123456789abcdef0123456789abcdef",
			wantReplicas: 3,
		},
		{
			name:         "scaled to zero",
			foo:          newFoo("a", withReplicas(0)),
			wantName:     "a-web",
			wantImage:    testImage,
			wantReplicas: 0,
		},
		{
			name:         "replicas not defaulted by the API server",
			foo:          newFoo("a", withoutReplicas()),
			wantName:     "a-web",
			wantImage:    testImage,
			wantReplicas: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			tt.foo.UID = "uid-1"
			d, err := asDeployment(DeploymentFor(tt.foo, testImage))
			g.Expect(err).NotTo(HaveOccurred())

			g.Expect(d.Name).To(Equal(tt.wantName))
			g.Expect(d.Namespace).To(Equal(tt.foo.Namespace))
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To(tt.wantReplicas)))

			// sample-controller's selector, plus the recommended labels on Deployment and pods.
			selector := map[string]string{"app": "nginx", "controller": tt.foo.Name}
			g.Expect(d.Spec.Selector.MatchLabels).To(Equal(selector))
			for _, labels := range []map[string]string{d.Labels, d.Spec.Template.Labels} {
				g.Expect(labels).To(HaveKeyWithValue("app", "nginx"))
				g.Expect(labels).To(HaveKeyWithValue("controller", tt.foo.Name))
				g.Expect(labels).To(HaveKeyWithValue("app.kubernetes.io/name", "nginx"))
				g.Expect(labels).To(HaveKeyWithValue("app.kubernetes.io/instance", tt.foo.Name))
				g.Expect(labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "foo-operator"))
			}

			g.Expect(d.OwnerReferences).To(ConsistOf(metav1.OwnerReference{
				APIVersion:         "samplecontroller.example.com/v1alpha1",
				Kind:               "Foo",
				Name:               tt.foo.Name,
				UID:                "uid-1",
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}))

			pod := d.Spec.Template.Spec
			g.Expect(pod.Containers).To(HaveLen(1))
			c := pod.Containers[0]
			g.Expect(c.Image).To(Equal(tt.wantImage))
			g.Expect(c.Ports).To(ConsistOf(corev1.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}))
			expectRestricted(g, d.Spec.Template)
		})
	}
}

// expectRestricted checks a pod against the Pod Security "restricted" profile with the
// API server's own evaluator.
func expectRestricted(g Gomega, pod corev1.PodTemplateSpec) {
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	g.Expect(err).NotTo(HaveOccurred())
	restricted := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	result := policy.AggregateCheckResults(evaluator.EvaluatePod(restricted, &pod.ObjectMeta, &pod.Spec))
	g.Expect(result.Allowed).To(BeTrue(), "violates restricted: %s: %s", result.ForbiddenReason(), result.ForbiddenDetail())
}

func TestConflictRecheckAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	r := &FooReconciler{}
	tests := []struct {
		name  string
		since time.Time
		want  time.Duration
	}{
		{name: "conflict just began", since: now, want: DefaultConflictRecheckInterval},
		{name: "conflict for 10 s", since: now.Add(-10 * time.Second), want: DefaultConflictRecheckInterval},
		{name: "conflict for 30 s", since: now.Add(-30 * time.Second), want: 30 * time.Second},
		{name: "conflict for 2 min", since: now.Add(-2 * time.Minute), want: 2 * time.Minute},
		{name: "conflict for 3 h", since: now.Add(-3 * time.Hour), want: DefaultMaxConflictRecheckInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(r.conflictRecheckAfter(tt.since, now)).To(Equal(tt.want))
		})
	}

	t.Run("the intervals double from the first one to the limit", func(t *testing.T) {
		g := NewWithT(t)
		r := &FooReconciler{ConflictRecheckInterval: time.Second, MaxConflictRecheckInterval: 16 * time.Second}
		var waits []time.Duration
		for at := now; len(waits) < 8; {
			wait := r.conflictRecheckAfter(now, at)
			waits = append(waits, wait)
			at = at.Add(wait)
		}
		s := time.Second
		g.Expect(waits).To(Equal([]time.Duration{s, s, 2 * s, 4 * s, 8 * s, 16 * s, 16 * s, 16 * s}))
	})
}

// A Foo Degraded for another reason for an hour (its condition's lastTransitionTime an hour
// old) whose name then becomes taken rechecks it after the first interval: the conflict's
// own start counts, not the condition's. Before, the recheck waited the maximum at once.
func TestNameTakenRechecksFromTheConflictsStart(t *testing.T) {
	g := NewWithT(t)
	r := &FooReconciler{ConflictRecheckInterval: time.Second, MaxConflictRecheckInterval: time.Hour}
	foo := newFoo("degraded-before", withStatus(samplev1alpha1.FooStatus{Conditions: []metav1.Condition{{
		Type: samplev1alpha1.DegradedCondition, Status: metav1.ConditionTrue, Reason: samplev1alpha1.DeploymentWriteFailedReason,
		LastTransitionTime: metav1.NewTime(time.Now().Add(-time.Hour)),
	}}}))
	kind, recheckAfter := kindOf(r.nameTaken(foo, "taken", time.Now()))
	g.Expect(kind).To(Equal(nameTaken))
	g.Expect(recheckAfter).To(Equal(time.Second))
	r.memory.forget(client.ObjectKeyFromObject(foo))
	g.Expect(r.memory.byFoo).To(BeEmpty(), "a Foo that is gone leaves nothing in memory")
}

func TestScaleOnly(t *testing.T) {
	foo := newFoo("scale", withReplicas(3))
	lost := func(paths ...fieldpath.Path) *fieldpath.Set { return fieldpath.NewSet(paths...) }
	image := fieldpath.MakePathOrDie("spec", "template", "spec", "containers", fieldpath.KeyByFields("name", containerName), "image")
	for _, tt := range []struct {
		name  string
		drift drift
		live  int32
		want  bool
	}{
		{"the Foo scaled", drift{changed: true, replicasOnly: true, lost: lost()}, 1, true},
		{"another writer's scale set back", drift{lost: replicasField}, 5, true},
		{"the Foo scaled over another writer's scale", drift{changed: true, replicasOnly: true, lost: replicasField}, 5, true},
		{"the pod template changed too", drift{changed: true, lost: lost()}, 1, false},
		{"another field taken too", drift{lost: lost(image).Union(replicasField)}, 5, false},
		{"the replicas taken at the Foo's value: a patch would change no ownership", drift{lost: replicasField}, 3, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			live := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To(tt.live)}}
			if got := scaleOnly(seen{live: live, controlled: true, drift: tt.drift}, foo.Spec.DesiredReplicas()); got != tt.want {
				t.Errorf("scaleOnly = %t, want %t", got, tt.want)
			}
		})
	}
}
