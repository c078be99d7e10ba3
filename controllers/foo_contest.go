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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// contest is a Foo's running dispute with another writer over a field of its Deployment:
// an HPA that targets the Deployment instead of the Foo, a GitOps tool that re-applies the
// Deployment from git. (A second installation of the operator writes under the same field
// manager, so it takes no field; OLM refuses such an install in overlapping
// OperatorGroups.) The operator takes the field
// back once at once (someone's one-off edit is corrected, as any drift is). When the other
// writer takes it again before the correction held for the recheck interval, the Foo is
// Degraded with FieldManagerConflict, and the operator takes it back only after the
// recheck interval, then after twice as long each round, at most after the maximum
// interval: the two writers' rounds stay bounded instead of alternating every few seconds.
type contest struct {
	taker fieldTaker
	// corrections is how often the operator took the field back in this contest.
	corrections int
	// lastCorrection is when it last did.
	lastCorrection time.Time
}

// contestDecision is what a pass does about a taken field.
type contestDecision struct {
	// apply: take the field back now.
	apply bool
	// degraded: the Foo is in a contest (reported as FieldManagerConflict).
	degraded bool
	// wait is how long until the next step of the contest: the next correction, or the end
	// of the contest when the last correction holds.
	wait time.Duration
}

// taken decides what to do when the pass finds t owning a field of the operator's at now.
// first and limit are the recheck intervals. A correction counts once it is written
// (corrected): one the API server refused (a Conflict) is tried again at once.
func (c *contest) taken(t fieldTaker, now time.Time, first, limit time.Duration) contestDecision {
	if c.corrections == 0 || c.taker != t {
		return contestDecision{apply: true, wait: first}
	}
	if due := c.lastCorrection.Add(c.backoff(first, limit)); now.Before(due) {
		return contestDecision{degraded: true, wait: due.Sub(now)}
	}
	next := contest{taker: t, corrections: c.corrections + 1}
	return contestDecision{apply: true, degraded: true, wait: next.backoff(first, limit)}
}

// corrected records that the operator took t's field back at now.
func (c *contest) corrected(t fieldTaker, now time.Time) {
	if c.corrections == 0 || c.taker != t {
		*c = contest{taker: t}
	}
	c.corrections++
	c.lastCorrection = now
}

// held decides what a pass that finds the field the operator's does: the contest ends once
// the last correction held for the first recheck interval; until then a Foo that was in a
// contest stays Degraded, so the condition does not flap with each round. over reports
// whether the contest ended.
func (c *contest) held(now time.Time, first time.Duration) (d contestDecision, over bool) {
	end := c.lastCorrection.Add(first)
	if !now.Before(end) {
		return contestDecision{}, true
	}
	return contestDecision{degraded: c.corrections > 1, wait: end.Sub(now)}, false
}

// backoff is the wait after the last correction: first after the second, doubling each
// round, at most limit.
func (c *contest) backoff(first, limit time.Duration) time.Duration {
	wait := first
	for i := 1; i < c.corrections && wait < limit; i++ {
		wait *= 2
	}
	return min(wait, limit)
}

// contestError is the Degraded reason of a Foo in a contest.
func (c *contest) err(deployment string, wait time.Duration) error {
	advice := "remove the other writer, or make it leave this field to the operator"
	if c.taker.field == ".spec.replicas" {
		advice = "to scale a Foo, scale the Foo (kubectl scale foo/NAME, or an HorizontalPodAutoscaler whose scaleTargetRef is the Foo), not its Deployment"
	}
	return &passError{
		kind: fieldContest,
		err: fmt.Errorf("Deployment %s: %s, which the operator sets; it took the field back %d times and waits %s before the next: %s", //nolint:staticcheck // a condition message, starting with the kind
			deployment, c.taker, c.corrections, wait.Round(time.Second), advice),
		recheckAfter: wait,
	}
}

// fooMemory is what the reconciler remembers about a Foo between passes. It lives in
// memory only: after a restart or a failover a contest starts anew (one correction more) and
// a name conflict is rechecked soon.
type fooMemory struct {
	// contest is the Foo's contest over a field, if any.
	contest *contest
	// conflictSince is when the Foo first found its Deployment name taken in the current
	// DeploymentConflict; zero when there is none.
	conflictSince time.Time
}

// memories holds the fooMemory of each Foo, by namespace and name.
type memories struct {
	mu    sync.Mutex
	byFoo map[types.NamespacedName]*fooMemory
}

// with runs f on the memory of foo, creating it when needed, and drops a memory that f left
// empty, so memories never outgrow the Foos in a contest or conflict.
func (m *memories) with(foo types.NamespacedName, f func(*fooMemory)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byFoo == nil {
		m.byFoo = map[types.NamespacedName]*fooMemory{}
	}
	mem := m.byFoo[foo]
	if mem == nil {
		mem = &fooMemory{}
	}
	f(mem)
	if mem.contest == nil && mem.conflictSince.IsZero() {
		delete(m.byFoo, foo)
		return
	}
	m.byFoo[foo] = mem
}

// forget drops the memory of a Foo that is gone.
func (m *memories) forget(foo types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byFoo, foo)
}
