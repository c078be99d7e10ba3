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

package main

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

func fooEvent(kind watch.EventType, spec, available int64) watch.Event {
	foo := newFoo(fooGroup, 0)
	_ = unstructured.SetNestedField(foo.Object, spec, "spec", "replicas")
	if available > 0 {
		_ = unstructured.SetNestedField(foo.Object, available, "status", "availableReplicas")
	}
	return watch.Event{Type: kind, Object: foo}
}

func deploymentEvent(kind watch.EventType, replicas int32) watch.Event {
	return watch.Event{Type: kind, Object: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: fooName(0), Namespace: fooNamespace(0)}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas)}}}
}

// eventEvent is a watch event of kind about an Event in the first namespace of Foos.
func eventEvent(kind watch.EventType) watch.Event {
	return watch.Event{Type: kind, Object: &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: fooNamespace(0)}}}
}

func second(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// TestTrackerPhases follows one Foo and its Deployment through converge, scale and drift:
// each reaches a phase's target the first time it is there after having been away from
// it (or not there at all) since the phase began.
func TestTrackerPhases(t *testing.T) {
	tr := &tracker{foos: map[string]fooReplicas{}, deployments: map[string]int64{}}

	tr.begin(1)
	tr.observeFoo(fooEvent(watch.Added, 1, 0), second(1))
	tr.observeDeployment(deploymentEvent(watch.Added, 1), second(2))
	tr.observeFoo(fooEvent(watch.Modified, 1, 1), second(5))
	tr.observeFoo(fooEvent(watch.Modified, 1, 1), second(6)) // a later write: not the first time
	foos, deployments, lastFoo, lastDeployment, err := tr.reached(1)
	if err != nil || foos != 1 || deployments != 1 || !lastFoo.Equal(second(5)) || !lastDeployment.Equal(second(2)) {
		t.Fatalf("converge: got %d %d %v %v %v", foos, deployments, lastFoo, lastDeployment, err)
	}
	if got := tr.times([]time.Time{second(1)}, false); len(got) != 1 || got[0] != 4*time.Second {
		t.Errorf("converge: Foo's time %v, want 4s", got)
	}
	if _, _, lastFoo, _, _ := tr.reached(2); !lastFoo.IsZero() {
		t.Errorf("the last of 2 Foos when 1 reached: got %v, want none", lastFoo)
	}

	tr.begin(2)
	tr.observeFoo(fooEvent(watch.Modified, 2, 1), second(10))
	tr.observeDeployment(deploymentEvent(watch.Modified, 2), second(11))
	if foos, _, _, _, _ := tr.reached(1); foos != 0 {
		t.Errorf("scale: the Foo asks for 2 with 1 available: got %d reached", foos)
	}
	tr.observeFoo(fooEvent(watch.Modified, 2, 2), second(14))
	if got := tr.times([]time.Time{second(10)}, false); len(got) != 1 || got[0] != 4*time.Second {
		t.Errorf("scale: Foo's time %v, want 4s", got)
	}
	if settled, _ := tr.settled(1); !settled {
		t.Error("scale: want settled at 2")
	}

	tr.begin(2)
	tr.observeDeployment(deploymentEvent(watch.Modified, 2), second(20)) // a status update at the target
	if _, deployments, _, _, _ := tr.reached(1); deployments != 0 {
		t.Error("drift: a Deployment at the target since the phase began has not reached it")
	}
	tr.observeDeployment(deploymentEvent(watch.Modified, 3), second(21))
	if settled, _ := tr.settled(1); settled {
		t.Error("drift: want not settled with the Deployment at 3")
	}
	unrelated := deploymentEvent(watch.Modified, 2)
	unrelated.Object.(*appsv1.Deployment).Namespace = unrelatedNamespace // of the same name
	tr.observeDeployment(unrelated, second(22))
	if settled, _ := tr.settled(1); settled {
		t.Error("drift: a Deployment outside the namespaces of Foos counted")
	}
	tr.observeDeployment(deploymentEvent(watch.Modified, 2), second(23))
	if got := tr.times([]time.Time{second(21)}, true); len(got) != 1 || got[0] != 2*time.Second {
		t.Errorf("drift: Deployment's time %v, want 2s", got)
	}
	// The watch may see the change before the request's answer arrives: no negative time.
	if got := tr.times([]time.Time{second(24)}, true); got[0] != 0 {
		t.Errorf("drift: got %v, want 0", got[0])
	}

	tr.observeFoo(fooEvent(watch.Deleted, 2, 2), second(30))
	if settled, _ := tr.settled(1); settled {
		t.Error("the Foo deleted: want not settled")
	}
}

// TestTrackerQuiet: a phase's events are those written until 3 s passed without one after
// the phase reached its target, even when the contender held them back through a longer
// silence before (as the operator does while its writes take every token of its client
// limit).
func TestTrackerQuiet(t *testing.T) {
	tr := &tracker{}
	began := time.Now().Add(-10 * time.Second)
	tr.observeEvent(eventEvent(watch.Added), began.Add(time.Second))
	// The last event 9 s ago: a silence, but the phase's own events are still to come.
	deferred := began.Add(10*time.Second + 1500*time.Millisecond)
	go func() {
		time.Sleep(time.Until(deferred))
		tr.observeEvent(eventEvent(watch.Added), deferred)
	}()
	last, err := tr.quiet(began, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := deferred.Sub(began); last != want {
		t.Errorf("quiet: the last event %v after the phase began, want %v", last, want)
	}

	// A bookmark or a deletion is no event written, nor one in a namespace without Foos.
	tr.observeEvent(eventEvent(watch.Deleted), time.Now())
	tr.observeEvent(eventEvent(watch.Bookmark), time.Now())
	tr.observeEvent(watch.Event{Type: watch.Added, Object: &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system"}}}, time.Now())
	if !tr.lastEvent.Equal(deferred) {
		t.Errorf("lastEvent %v, want %v", tr.lastEvent, deferred)
	}
}

// TestFooNamespace: foosPerNamespace Foos to a namespace, all named for ofFoos.
func TestFooNamespace(t *testing.T) {
	for i, want := range map[int]string{0: "foos-1", foosPerNamespace - 1: "foos-1", foosPerNamespace: "foos-2", 10*foosPerNamespace - 1: "foos-10"} {
		if got := fooNamespace(i); got != want || !ofFoos(got) {
			t.Errorf("fooNamespace(%d) = %q (of Foos: %v), want %q", i, got, ofFoos(got), want)
		}
	}
	for _, ns := range []string{contenderNamespace, unrelatedNamespace, "kube-system"} {
		if ofFoos(ns) {
			t.Errorf("ofFoos(%q): want false", ns)
		}
	}
}
