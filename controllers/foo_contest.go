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
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// contest is a Foo's running dispute over one field of its Deployment with the writers that
// take it: an HPA that targets the Deployment instead of the Foo, a GitOps tool that
// re-applies the Deployment from git every few minutes, a person scaling by hand, or several
// of them in turn. (A second installation of the operator writes under the same field
// manager, so it takes no field; OLM refuses such an install in overlapping
// OperatorGroups.) The contest is the field's, whoever takes it: writers that alternate
// share one back-off. The operator takes the field back once at once (someone's one-off
// edit is corrected, as any drift is). When anyone takes it again within the window (the
// longest recheck interval, 10 minutes by default, longer than the interval of GitOps tools
// that re-apply on a timer), the Foo is Degraded with FieldManagerConflict, and the
// operator takes it back only after the recheck interval, then after twice as long each
// round, at most after the longest interval; a change of the Foo is applied at once, and
// takes the field back with it (fieldTaken). The contest ends, and the Foo is no longer
// Degraded, once the operator's last correction held for the window; it is over one
// Deployment (contestOver).
type contest struct {
	// takers are the writers that took the field since the contest began, by manager and
	// subresource.
	takers []fieldTaker
	// corrections is how often the operator took the field back in this contest.
	corrections int
	// lastCorrection is when it last did.
	lastCorrection time.Time
	// takenSince: a pass found the field taken after the last correction, which therefore
	// did not hold, however long ago it was.
	takenSince bool
	// correctedIn is the Deployment the last correction wrote.
	correctedIn deploymentVersion
	// correctedFor is the generation of the Foo the last correction applied.
	correctedFor int64
}

// deploymentVersion names one state of a Deployment: its UID and generation, which every
// change of its spec (and so every take of a field that changes its value) moves.
type deploymentVersion struct {
	uid        types.UID
	generation int64
}

func versionOf(d *appsv1.Deployment) deploymentVersion {
	return deploymentVersion{uid: d.UID, generation: d.Generation}
}

// predates reports whether v, the Deployment a pass read, is the one the last correction
// wrote or older: the cache lags the operator's own write (as when the Deployment
// controller's status write for the other writer's change comes in after the correction),
// so the field it shows taken was taken back since, and no one took it again.
func (c *contest) predates(v deploymentVersion) bool {
	return c.corrections > 0 && v.uid == c.correctedIn.uid && v.generation <= c.correctedIn.generation
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

// over reports whether the contest ended at now: no correction yet, or the last one held
// for the window.
func (c *contest) over(now time.Time, window time.Duration) bool {
	return c.corrections == 0 || (!c.takenSince && !now.Before(c.lastCorrection.Add(window)))
}

// taken decides what to do when the pass finds t owning the field at now. first and limit
// are the recheck intervals; limit is also the window. A correction counts once it is
// written (corrected): one the API server refused (a Conflict) is tried again at once.
func (c *contest) taken(t fieldTaker, now time.Time, first, limit time.Duration) contestDecision {
	if c.over(now, limit) {
		return contestDecision{apply: true, wait: first}
	}
	c.addTaker(t)
	c.takenSince = true
	if due := c.lastCorrection.Add(c.backoff(first, limit)); now.Before(due) {
		return contestDecision{degraded: true, wait: due.Sub(now)}
	}
	next := contest{corrections: c.corrections + 1}
	return contestDecision{apply: true, degraded: true, wait: next.backoff(first, limit)}
}

// corrected records that the operator took t's field back at now.
func (c *contest) corrected(t fieldTaker, now time.Time, window time.Duration) {
	if c.over(now, window) {
		*c = contest{}
	}
	c.addTaker(t)
	c.corrections++
	c.lastCorrection = now
	c.takenSince = false
}

// addTaker records t among the takers, once per manager and subresource.
func (c *contest) addTaker(t fieldTaker) {
	t.field = ""
	if !slices.Contains(c.takers, t) {
		c.takers = append(c.takers, t)
	}
}

// held decides what a pass that finds the field the operator's does: until the last
// correction held for the window, a Foo that was in a contest stays Degraded, so the
// condition does not flap with each round. over reports whether the contest ended.
func (c *contest) held(now time.Time, window time.Duration) (d contestDecision, over bool) {
	c.takenSince = false // the field is the operator's again
	if c.over(now, window) {
		return contestDecision{}, true
	}
	return contestDecision{degraded: c.corrections > 1, wait: c.lastCorrection.Add(window).Sub(now)}, false
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

// maxNamedTakers is how many writers a FieldManagerConflict message names.
const maxNamedTakers = 5

// err is the Foo's FieldManagerConflict for a contest over field, due to look again after
// wait. Its message changes only with a correction or a new writer, not with time, so
// that the status is not written again on every pass.
func (c *contest) err(deployment, field string, wait, window time.Duration) error {
	advice := "remove the other writers, or make them leave this field to the operator"
	if field == ".spec.replicas" {
		advice = "to scale a Foo, scale the Foo (kubectl scale foo/NAME, or an HorizontalPodAutoscaler whose scaleTargetRef is the Foo), not its Deployment"
	}
	return &passError{
		kind: fieldContest,
		err: fmt.Errorf("Deployment %s: field %s, which the operator sets, is written by %s; the operator took it back %d times, at growing intervals, and reports this until the field stays its own for %s: %s", //nolint:staticcheck // a condition message, starting with the kind
			deployment, field, describeTakers(c.takers), c.corrections, window, advice),
		recheckAfter: wait,
	}
}

// describeTakers names the writers, sorted, at most maxNamedTakers of them.
func describeTakers(takers []fieldTaker) string {
	names := make([]string, 0, len(takers))
	for _, t := range takers {
		names = append(names, t.writer())
	}
	slices.Sort(names)
	if len(names) > maxNamedTakers {
		names = append(names[:maxNamedTakers], fmt.Sprintf("%d more", len(names)-maxNamedTakers))
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// fooMemory is what the reconciler remembers about one Foo, by UID, between passes. It
// lives in memory only: after a restart or a failover a contest starts anew (one correction
// more) and a name conflict is rechecked soon.
type fooMemory struct {
	// uid is the Foo's: a Foo deleted and created again under the same name starts afresh.
	uid types.UID
	// contests are the Foo's contests, by field path: over its current Deployment (the one
	// their last correction wrote, see contestOver).
	contests map[string]*contest
	// conflictSince is when the Foo first found its Deployment name taken in the current
	// DeploymentConflict; zero when there is none.
	conflictSince time.Time
	// statusWrittenOver is the resourceVersion of the Foo the operator's last status write
	// replaced, until a pass reads a newer Foo; empty when there is none.
	statusWrittenOver string
}

// keep records c as the contest over field.
func (mem *fooMemory) keep(field string, c *contest) {
	if mem.contests == nil {
		mem.contests = map[string]*contest{}
	}
	mem.contests[field] = c
}

// contestOver is the contest over field in d: the one kept, when its last correction wrote
// d, or a new one. A contest is over one Deployment: the Deployment of a Foo renamed, or
// deleted and created again, starts with none, whatever was fought over its predecessor.
func (mem *fooMemory) contestOver(field string, d *appsv1.Deployment) *contest {
	if c, ok := mem.contests[field]; ok && c.correctedIn.uid == d.UID {
		return c
	}
	return &contest{}
}

// memories holds the fooMemory of each Foo, by namespace and name. Its methods are the only
// writers of a fooMemory; each takes the Foo, the clock and the reconciler's recheck bounds.
type memories struct{ perFoo[*fooMemory] }

// nameTaken records that foo found its Deployment name taken at now, and returns since
// when the conflict has lasted.
func (m *memories) nameTaken(foo *samplev1alpha1.Foo, now time.Time) (since time.Time) {
	m.update(foo, func(mem *fooMemory) {
		if mem.conflictSince.IsZero() {
			mem.conflictSince = now
		}
		since = mem.conflictSince
	})
	return since
}

// nameFree records that foo is not in a name conflict.
func (m *memories) nameFree(foo *samplev1alpha1.Foo) {
	m.update(foo, func(mem *fooMemory) { mem.conflictSince = time.Time{} })
}

// inConflict reports whether foo found its Deployment name taken and has not found it
// free since.
func (m *memories) inConflict(foo *samplev1alpha1.Foo) (conflict bool) {
	m.read(client.ObjectKeyFromObject(foo), func(mem *fooMemory, ok bool) {
		conflict = ok && mem.uid == foo.UID && !mem.conflictSince.IsZero()
	})
	return conflict
}

// fieldTaken says whether a pass that found taker owning a field of d the operator sets
// takes it back now; the error is the Foo's FieldManagerConflict while it waits (see
// contest). A d that predates the last correction changes nothing: the pass writes nothing,
// and the Foo stays as that correction left it.
//
// A change of the Foo is applied at once, whatever the contest's wait: a user's change is
// not held back for minutes by a writer of one field, and its apply takes that field back
// too (a correction, see fieldCorrected). changed says that d lacks what the operator
// applies for the Foo now (drift.changed); the Foo's generation since the last correction
// says that the Foo changed, not a writer who took the label the operator records its
// applied Foo in, which would otherwise end every wait.
func (m *memories) fieldTaken(foo *samplev1alpha1.Foo, taker fieldTaker, d *appsv1.Deployment, changed bool, now time.Time, first, limit time.Duration) (apply bool, err error) {
	m.update(foo, func(mem *fooMemory) {
		c := mem.contestOver(taker.field, d)
		if changed && c.corrections > 0 && c.correctedFor != foo.Generation {
			apply = true
			return
		}
		if c.predates(versionOf(d)) {
			if c.corrections > 1 {
				err = c.err(d.Name, taker.field, c.backoff(first, limit), limit)
			}
			return
		}
		dec := c.taken(taker, now, first, limit)
		apply = dec.apply
		if !apply && dec.degraded {
			mem.keep(taker.field, c)
			err = c.err(d.Name, taker.field, dec.wait, limit)
		}
	})
	return apply, err
}

// fieldCorrected records that the operator took taker's field back, writing d; the error is
// the Foo's FieldManagerConflict when that was not the first correction of the contest.
func (m *memories) fieldCorrected(foo *samplev1alpha1.Foo, taker fieldTaker, d *appsv1.Deployment, now time.Time, first, limit time.Duration) (err error) {
	m.update(foo, func(mem *fooMemory) {
		c := mem.contestOver(taker.field, d)
		c.corrected(taker, now, limit)
		c.correctedIn, c.correctedFor = versionOf(d), foo.Generation
		mem.keep(taker.field, c)
		if c.corrections > 1 {
			err = c.err(d.Name, taker.field, c.backoff(first, limit), limit)
		}
	})
	return err
}

// fieldsHeld records that a pass found the operator's fields of d its own; the error is
// the Foo's FieldManagerConflict while one of its contests over d has not ended. Contests
// over another Deployment end.
func (m *memories) fieldsHeld(foo *samplev1alpha1.Foo, d *appsv1.Deployment, now time.Time, limit time.Duration) (err error) {
	m.update(foo, func(mem *fooMemory) {
		for _, field := range slices.Sorted(maps.Keys(mem.contests)) {
			c := mem.contests[field]
			dec, over := c.held(now, limit)
			if over || c.correctedIn.uid != d.UID {
				delete(mem.contests, field)
			} else if dec.degraded && err == nil {
				err = c.err(d.Name, field, dec.wait, limit)
			}
		}
	})
	return err
}

// statusWritten records that a status write of the operator replaced foo with a newer Foo;
// not for a write that changed nothing, which no watch event follows.
func (m *memories) statusWritten(foo *samplev1alpha1.Foo) {
	m.update(foo, func(mem *fooMemory) { mem.statusWrittenOver = foo.ResourceVersion })
}

// predatesStatusWrite reports whether foo, the Foo a pass read, is the one the operator's
// last status write replaced: the cache lags that write, and a status write based on foo
// would fail its optimistic lock. The write's watch event starts the pass that reads it. A
// newer Foo ends the memory of the write.
func (m *memories) predatesStatusWrite(foo *samplev1alpha1.Foo) (predates bool) {
	m.update(foo, func(mem *fooMemory) {
		predates = mem.statusWrittenOver != "" && mem.statusWrittenOver == foo.ResourceVersion
		if !predates {
			mem.statusWrittenOver = ""
		}
	})
	return predates
}

// update runs f on the memory of foo, creating it when needed (also when the one of its
// name belongs to an earlier Foo), and drops a memory that f left empty, so memories never
// outgrow the Foos in a contest or conflict, or whose last status write the cache has not
// shown yet.
func (m *memories) update(foo *samplev1alpha1.Foo, f func(*fooMemory)) {
	m.change(client.ObjectKeyFromObject(foo), func(mem *fooMemory, ok bool) (*fooMemory, bool) {
		if !ok || mem.uid != foo.UID {
			mem = &fooMemory{uid: foo.UID} // most passes leave it empty: no map until a contest
		}
		f(mem)
		return mem, len(mem.contests) > 0 || !mem.conflictSince.IsZero() || mem.statusWrittenOver != ""
	})
}
