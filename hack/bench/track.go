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
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/ptr"
)

// fooReplicas is what the tracker keeps of a Foo.
type fooReplicas struct{ spec, available int64 }

// ready reports whether the Foo asks for target replicas and reports them all available.
func (f fooReplicas) ready(target int64) bool { return f.spec == target && f.available == target }

// tracker follows the Foos and their Deployments with one watch each, begun before the
// first Foo is created, and keeps of each object only its replicas and when it first
// reached the target of the current phase. A phase's times are those of the watch events
// as the benchmark received them: per Foo, not only of the last. Its reads cost the API
// server two watches (and a third, of the Events, see quiet), where listing every Foo and
// Deployment twice a second would load it with the benchmark's own work at thousands of
// Foos; and it holds no objects.
type tracker struct {
	mu          sync.Mutex
	foos        map[string]fooReplicas
	deployments map[string]int64 // spec.replicas
	target      int64
	// off holds the objects seen away from the target since the phase began, or created
	// since: the next time each is at the target is when it reached it.
	fooOff, deploymentOff map[string]bool
	fooAt, deploymentAt   map[string]time.Time
	// lastEvent is when the watch last saw an Event of a namespace of Foos written (created or
	// updated): by the contender, kube-controller-manager or the scheduler.
	lastEvent time.Time
	err       error
}

// track starts watching the Foos, and the Deployments and Events of the namespaces of Foos
// (ofFoos), in every namespace, one watch each: a watch per namespace would add to the API
// server's load with the number of Foos. The watches end with ctx.
func track(ctx context.Context, cl *cluster) (*tracker, error) {
	t := &tracker{foos: map[string]fooReplicas{}, deployments: map[string]int64{}}
	t.begin(0)
	foos, err := cl.foos.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	if err := t.follow(ctx, foos.GetResourceVersion(), func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return cl.foos.Watch(ctx, o)
	}, t.observeFoo); err != nil {
		return nil, err
	}
	deployments, err := cl.kube.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	if err := t.follow(ctx, deployments.ResourceVersion, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return cl.kube.AppsV1().Deployments(metav1.NamespaceAll).Watch(ctx, o)
	}, t.observeDeployment); err != nil {
		return nil, err
	}
	events, err := cl.kube.EventsV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	return t, t.follow(ctx, events.ResourceVersion, func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return cl.kube.EventsV1().Events(metav1.NamespaceAll).Watch(ctx, o)
	}, t.observeEvent)
}

// follow watches from resourceVersion on, resuming where it left off when the API server
// closes the watch, and hands each event to observe until ctx ends.
func (t *tracker) follow(ctx context.Context, resourceVersion string, w cache.WatchFuncWithContext, observe func(watch.Event, time.Time)) error {
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, &cache.ListWatch{WatchFuncWithContext: w})
	if err != nil {
		return err
	}
	go func() {
		defer rw.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-rw.ResultChan():
				if !ok {
					return
				}
				if e.Type == watch.Error {
					t.fail(fmt.Errorf("watch: %v", e.Object))
					return
				}
				observe(e, time.Now())
			}
		}
	}()
	return nil
}

func (t *tracker) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.err = firstErr(t.err, err)
}

func (t *tracker) observeFoo(e watch.Event, now time.Time) {
	foo, ok := e.Object.(*unstructured.Unstructured)
	if !ok || e.Type == watch.Bookmark {
		return
	}
	spec, _, _ := unstructured.NestedInt64(foo.Object, "spec", "replicas")
	available, _, _ := unstructured.NestedInt64(foo.Object, "status", "availableReplicas")
	f := fooReplicas{spec: spec, available: available}
	t.mu.Lock()
	defer t.mu.Unlock()
	name := foo.GetName()
	if e.Type == watch.Deleted {
		delete(t.foos, name)
		return
	}
	if _, known := t.foos[name]; !known {
		t.fooOff[name] = true
	}
	t.foos[name] = f
	reach(name, f.ready(t.target), now, t.fooOff, t.fooAt)
}

func (t *tracker) observeDeployment(e watch.Event, now time.Time) {
	d, ok := e.Object.(*appsv1.Deployment)
	if !ok || e.Type == watch.Bookmark || !ofFoos(d.Namespace) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.Type == watch.Deleted {
		delete(t.deployments, d.Name)
		return
	}
	if _, known := t.deployments[d.Name]; !known {
		t.deploymentOff[d.Name] = true
	}
	replicas := int64(ptr.Deref(d.Spec.Replicas, 1))
	t.deployments[d.Name] = replicas
	reach(d.Name, replicas == t.target, now, t.deploymentOff, t.deploymentAt)
}

func (t *tracker) observeEvent(e watch.Event, now time.Time) {
	if e.Type != watch.Added && e.Type != watch.Modified {
		return
	}
	if o, ok := e.Object.(metav1.Object); !ok || !ofFoos(o.GetNamespace()) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastEvent = now
}

// quietFor is how long no Event may be written before quiet takes a phase's events to be
// all written.
const quietFor = 3 * time.Second

// quiet waits, once a phase that began at began has reached its target, until no Event of
// the namespaces of Foos was written for quietFor, counted from the later of the last one and the
// call, and returns the time from began to the last written after it (zero for none). A
// contender may send the events of a phase after its Foos reached the target (the operator
// sends them only when its bucket is full when its client limit binds, so none while its
// other requests take every token): waiting for them counts them in the phase that caused
// them, not in the next.
func (t *tracker) quiet(began time.Time, timeout time.Duration) (time.Duration, error) {
	ready := time.Now()
	for {
		t.mu.Lock()
		last, err := t.lastEvent, t.err
		t.mu.Unlock()
		if err != nil {
			return 0, err
		}
		if time.Since(ready) >= quietFor && time.Since(last) >= quietFor {
			return max(last.Sub(began), 0), nil
		}
		if time.Since(began) > timeout {
			return 0, fmt.Errorf("events were still written %v after the phase began", timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// reach records when name reached the phase's target: the first time it is there after
// having been away (off) since the phase began.
func reach(name string, there bool, now time.Time, off map[string]bool, at map[string]time.Time) {
	if _, done := at[name]; done {
		return
	}
	switch {
	case !there:
		off[name] = true
	case off[name]:
		at[name] = now
		delete(off, name)
	}
}

// begin starts a phase whose target is target replicas: each Foo then reaches it when it
// asks for them and reports them all available, each Deployment when it asks for them.
func (t *tracker) begin(target int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.target = target
	t.fooOff, t.deploymentOff = map[string]bool{}, map[string]bool{}
	t.fooAt, t.deploymentAt = map[string]time.Time{}, map[string]time.Time{}
	for name, f := range t.foos {
		if !f.ready(target) {
			t.fooOff[name] = true
		}
	}
	for name, replicas := range t.deployments {
		if replicas != target {
			t.deploymentOff[name] = true
		}
	}
}

// reached is how many Foos and Deployments reached the phase's target, and when the last of
// each did (zero before they all did).
func (t *tracker) reached(n int) (foos, deployments int, lastFoo, lastDeployment time.Time, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := func(at map[string]time.Time) time.Time {
		var l time.Time
		if len(at) < n {
			return l
		}
		for _, when := range at {
			if when.After(l) {
				l = when
			}
		}
		return l
	}
	return len(t.fooAt), len(t.deploymentAt), last(t.fooAt), last(t.deploymentAt), t.err
}

// settled reports whether all n Foos are ready at the phase's target and all n Deployments
// ask for it, now.
func (t *tracker) settled(n int) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	count := 0
	for _, f := range t.foos {
		if f.ready(t.target) {
			count++
		}
	}
	for _, r := range t.deployments {
		if r == t.target {
			count++
		}
	}
	return count == 2*n, t.err
}

// times is, for each of the n Foos (or, with deployments, their Deployments), the time from
// changed[i], when the benchmark's request that changed it returned, until it reached the
// phase's target; the watch may see that a little before the request's answer arrives, so
// no time is below zero.
func (t *tracker) times(changed []time.Time, deployments bool) []time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := t.fooAt
	if deployments {
		at = t.deploymentAt
	}
	out := make([]time.Duration, 0, len(changed))
	for i, c := range changed {
		if when, ok := at[fooName(i)]; ok {
			out = append(out, max(when.Sub(c), 0))
		}
	}
	return out
}

// wait waits until every one of the n Foos (unless deploymentsOnly) and of their
// Deployments reached the phase's target, and returns the times from began until the last
// Deployment and the last Foo did. It gives up after timeout.
func (t *tracker) wait(n int, deploymentsOnly bool, began time.Time, timeout time.Duration, label string) (deployments, foos time.Duration, err error) {
	lastReport := time.Now()
	for {
		nFoos, nDeployments, lastFoo, lastDeployment, err := t.reached(n)
		if err != nil {
			return 0, 0, err
		}
		if nDeployments == n && (deploymentsOnly || nFoos == n) {
			if deploymentsOnly {
				return lastDeployment.Sub(began), 0, nil
			}
			return lastDeployment.Sub(began), lastFoo.Sub(began), nil
		}
		if time.Since(began) > timeout {
			return 0, 0, fmt.Errorf("%d of %d Deployments and %d of %d Foos reached %d replicas within %v", nDeployments, n, nFoos, n, t.target, timeout)
		}
		if time.Since(lastReport) > 10*time.Second {
			progress("%s: %d of %d Deployments and %d of %d Foos at %d replicas", label, nDeployments, n, nFoos, n, t.target)
			lastReport = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
}
