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
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// TestOwnershipRemembersWhatItWasComputedFrom checks that a pass reuses the lost fields of
// the last only for the same entries of the operator's and the same desired Deployment, or
// one that differs in its replicas only.
func TestOwnershipRemembersWhatItWasComputedFrom(t *testing.T) {
	foo := newFoo("remembered", withIdentity("remembered-uid", 1))
	key := types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}
	desired := DeploymentFor(foo, testImage)
	want, err := fieldSet(desired)
	if err != nil {
		t.Fatal(err)
	}
	lostReplicas := newDeployment(foo, withOwnedFields(want.Difference(replicasField)))
	var m ownership
	check := func(what string, desired *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment, lost *fieldpath.Set) *fieldpath.Set {
		t.Helper()
		got, err := m.driftOf(key, desired, live)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := (&ownership{}).driftOf(key, desired, live)
		if err != nil {
			t.Fatal(err)
		}
		if !got.lost.Equals(lost) || !fresh.lost.Equals(lost) {
			t.Errorf("%s: lost %s, computed afresh %s; want %s", what, got.lost, fresh.lost, lost)
		}
		return got.lost
	}

	first := check("the replicas taken", desired, lostReplicas, replicasField)
	status := lostReplicas.DeepCopy()
	status.ManagedFields[1].FieldsV1.Raw = []byte(`{"f:status":{"f:replicas":{}}}`)
	if again := check("a status write since", desired, status, replicasField); again != first {
		t.Errorf("a status write since: the lost fields were computed again")
	}
	check("the replicas owned again", desired, newDeployment(foo, withOwnedFields(want)), &fieldpath.Set{})
	taken := check("the replicas taken again", desired, lostReplicas, replicasField)
	scaled := DeploymentFor(newFoo("remembered", withIdentity("remembered-uid", 2), withReplicas(3)), testImage)
	if again := check("a scale: the same fields", scaled, lostReplicas, replicasField); again != taken {
		t.Errorf("a scale: the lost fields were computed again")
	}
	other := DeploymentFor(newFoo("remembered", withIdentity("remembered-uid", 3), withReplicas(3)), "registry.example/nginx:2")
	if again := check("another desired Deployment", other, lostReplicas, replicasField); again == taken {
		t.Errorf("another desired Deployment: the lost fields of the last were reused")
	}
	m.forget(key)
	if len(m.byFoo) != 0 {
		t.Errorf("forget left %d Foos", len(m.byFoo))
	}
}

// TestWantedFieldsAreTheDesiredDeployments checks that the fields desired sets, put
// together from its ownerReferences and the shape of the rest, are those fieldSet types
// from the whole, and that Foos of one template share one shape.
func TestWantedFieldsAreTheDesiredDeployments(t *testing.T) {
	var shapes fieldShapes
	var first *fieldpath.Set
	for i, foo := range []*samplev1alpha1.Foo{
		newFoo("one", withIdentity("one-uid", 1)),
		newFoo("two", withIdentity("two-uid", 4), withReplicas(3)),
		newFoo("three", withIdentity("three-uid", 2), withImage("registry.example/nginx:2")),
	} {
		desired := DeploymentFor(foo, testImage)
		want, err := fieldSet(desired)
		if err != nil {
			t.Fatal(err)
		}
		got, shape, err := shapes.wantedFields(desired, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equals(want) {
			t.Errorf("%s: wanted fields %s, want %s", foo.Name, got, want)
		}
		if again, _, err := shapes.wantedFields(desired, shape); err != nil || !again.Equals(want) {
			t.Errorf("%s: wanted fields from the shape %s (%v), want %s", foo.Name, again, err, want)
		}
		if i == 0 {
			first = shape
		} else if shape != first {
			t.Errorf("%s: a shape of its own, not the first Foo's", foo.Name)
		}
	}

	for i := range maxFieldShapes + 2 {
		shapes.shared(fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "labels", fmt.Sprint(i))))
	}
	if len(shapes.sets) != maxFieldShapes {
		t.Errorf("fieldShapes holds %d sets, want at most %d", len(shapes.sets), maxFieldShapes)
	}
}

// BenchmarkDriftOf measures the ownership part of a pass over a Foo whose Deployment the
// operator created: typing the desired Deployment and parsing the entries, the pass that
// finds both as the last one did, and passes that find the entries changed each time (a
// drift and its set back).
func BenchmarkDriftOf(b *testing.B) {
	foo := newFoo("benchmarked", withIdentity("benchmarked-uid", 1))
	key := types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}
	desired := DeploymentFor(foo, testImage)
	want, err := fieldSet(desired)
	if err != nil {
		b.Fatal(err)
	}
	live := newDeployment(foo, withOwnedFields(want))
	b.Run("computed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := (&ownership{}).driftOf(key, desired, live); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("remembered", func(b *testing.B) {
		var m ownership
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.driftOf(key, desired, live); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("entries changed", func(b *testing.B) {
		var m ownership
		lives := []*appsv1.Deployment{live, newDeployment(foo, withOwnedFields(want.Difference(replicasField)))}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := m.driftOf(key, desired, lives[i%2]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// TestDesiredHashesRememberWhatTheyWereComputedFrom checks that a pass stamps the hash
// DeploymentFor gives, reusing the last one only for the same Foo UID, generation and
// default image.
func TestDesiredHashesRememberWhatTheyWereComputedFrom(t *testing.T) {
	var h desiredHashes
	check := func(what string, foo *samplev1alpha1.Foo, image, want string) {
		t.Helper()
		if got := h.deploymentFor(foo, image).Labels[DesiredHashLabel]; got != want {
			t.Errorf("%s: stamped %q, want %q", what, got, want)
		}
	}
	hashFor := func(foo *samplev1alpha1.Foo, image string) string {
		return DeploymentFor(foo, image).Labels[DesiredHashLabel]
	}

	two := newFoo("remembered", withIdentity("remembered-uid", 1), withReplicas(2))
	check("the first pass", two, testImage, hashFor(two, testImage))
	// Within a generation the spec does not change; a Foo that claims it did shows that
	// the hash is remembered, not computed again.
	sameGeneration := newFoo("remembered", withIdentity("remembered-uid", 1), withReplicas(3))
	check("a pass at the same generation", sameGeneration, testImage, hashFor(two, testImage))

	three := newFoo("remembered", withIdentity("remembered-uid", 2), withReplicas(3))
	check("a new generation", three, testImage, hashFor(three, testImage))
	check("another default image", three, "registry.example/nginx:2", hashFor(three, "registry.example/nginx:2"))
	recreated := newFoo("remembered", withIdentity("recreated-uid", 2), withReplicas(2))
	check("a Foo of the same name and generation, created again", recreated, "registry.example/nginx:2", hashFor(recreated, "registry.example/nginx:2"))

	h.forget(types.NamespacedName{Namespace: recreated.Namespace, Name: recreated.Name})
	if len(h.byFoo) != 0 {
		t.Errorf("after forget, %d Foos are remembered", len(h.byFoo))
	}
	unstored := newFoo("unstored", withReplicas(2))
	check("a Foo without a UID", unstored, testImage, hashFor(unstored, testImage))
	if len(h.byFoo) != 0 {
		t.Errorf("a Foo without a UID is remembered")
	}
}
