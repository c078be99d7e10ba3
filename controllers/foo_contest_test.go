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
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// An autoscaler of the Deployment takes spec.replicas back 15 s after each correction (an
// HPA's period), and the operator looks whenever the Deployment changes: its corrections
// come at 0 s, then after 30 s, 60 s, 120 s... at most every 10 minutes.
func TestContestBacksOff(t *testing.T) {
	g := NewWithT(t)
	hpa := fieldTaker{manager: "horizontal-pod-autoscaler", subresource: "scale", field: ".spec.replicas"}
	start := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := &contest{}

	var corrections []time.Duration
	for at := start; at.Before(start.Add(time.Hour)); at = at.Add(15 * time.Second) {
		if dec := c.taken(hpa, at, DefaultConflictRecheckInterval, DefaultMaxConflictRecheckInterval); dec.apply {
			c.corrected(hpa, at, DefaultMaxConflictRecheckInterval)
			corrections = append(corrections, at.Sub(start))
			g.Expect(dec.degraded).To(Equal(len(corrections) > 1), "a first correction is an ordinary one")
		} else {
			g.Expect(dec.degraded).To(BeTrue())
			g.Expect(dec.wait).To(BeNumerically(">", 0))
		}
	}
	m := time.Minute
	g.Expect(corrections[:7]).To(Equal([]time.Duration{0, 30 * time.Second, 90 * time.Second, 210 * time.Second, 450 * time.Second, 930 * time.Second, 1530 * time.Second}))
	g.Expect(corrections).To(HaveLen(10), "in an hour; an operator that fought every round would write 240 times")
	g.Expect(corrections[9] - corrections[8]).To(Equal(10 * m))

	// The field holds: the contest stays reported until the last correction held for the
	// window (the longest interval), then ends.
	last := start.Add(corrections[9])
	dec, over := c.held(last.Add(10*time.Second), DefaultMaxConflictRecheckInterval)
	g.Expect(over).To(BeFalse())
	g.Expect(dec.degraded).To(BeTrue())
	g.Expect(dec.wait).To(Equal(DefaultMaxConflictRecheckInterval - 10*time.Second))
	_, over = c.held(last.Add(DefaultMaxConflictRecheckInterval), DefaultMaxConflictRecheckInterval)
	g.Expect(over).To(BeTrue())
}

// A correction the API server refused (a Conflict: the Deployment changed since it was
// read) does not count: the next pass takes the field back at once, not after the
// recheck interval.
func TestContestCountsOnlyWrittenCorrections(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := &contest{}
	edit := fieldTaker{manager: "kubectl-edit", field: ".spec.replicas"}
	g.Expect(c.taken(edit, now, time.Minute, time.Hour).apply).To(BeTrue())
	// The apply failed: nothing recorded. The retry a moment later applies.
	g.Expect(c.taken(edit, now.Add(time.Second), time.Minute, time.Hour)).To(Equal(contestDecision{apply: true, wait: time.Minute}))
	c.corrected(edit, now.Add(time.Second), time.Hour)
	// Taken again at once after the written correction: now a contest, which waits.
	g.Expect(c.taken(edit, now.Add(2*time.Second), time.Minute, time.Hour)).To(Equal(contestDecision{degraded: true, wait: time.Minute - time.Second}))
}

// Before: the cache lags the operator's own writes, so a pass after a correction could read
// the Deployment as it was before it (here: the Deployment controller's status write for
// the other writer's scale came in after the operator's set-back) and count the field taken
// again: the Foo was written Degraded (FieldManagerConflict) with a Warning event, then not,
// within a second (make bench at 1d8c81d, 100 Foos unthrottled, its first set-back).
func TestContestIgnoresADeploymentFromBeforeItsCorrection(t *testing.T) {
	g := NewWithT(t)
	m := &memories{}
	now := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	foo := newFoo("a", withIdentity("uid-foo", 1))
	edit := fieldTaker{manager: "kubectl-edit", field: ".spec.replicas"}
	at := func(uid string, generation int64) *appsv1.Deployment {
		d := newDeployment(foo)
		d.UID, d.Generation = types.UID(uid), generation
		return d
	}
	apply, err := m.fieldTaken(foo, edit, at("uid-d", 2), false, now, time.Minute, time.Hour)
	g.Expect(apply).To(BeTrue())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.fieldCorrected(foo, edit, at("uid-d", 3), now, time.Minute, time.Hour)).To(Succeed())

	apply, err = m.fieldTaken(foo, edit, at("uid-d", 2), false, now.Add(time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeFalse(), "the correction wrote generation 3: nothing to take back")
	g.Expect(err).NotTo(HaveOccurred(), "no contest from a Deployment older than the correction")

	apply, err = m.fieldTaken(foo, edit, at("uid-new", 1), false, now.Add(time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeTrue(), "a Deployment created again starts its generations anew, and a contest of its own: its first take is taken back at once")
	g.Expect(err).NotTo(HaveOccurred())

	apply, err = m.fieldTaken(foo, edit, at("uid-d", 4), false, now.Add(2*time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeFalse(), "taken again after the correction: the contest waits")
	g.Expect(err).To(MatchError(ContainSubstring("kubectl-edit")))

	// A contest of several corrections stays reported while the cache lags the last one.
	_, _ = m.fieldTaken(foo, edit, at("uid-d", 4), false, now.Add(time.Hour), time.Minute, time.Hour)
	g.Expect(m.fieldCorrected(foo, edit, at("uid-d", 5), now.Add(time.Hour), time.Minute, time.Hour)).To(HaveOccurred())
	_, err = m.fieldTaken(foo, edit, at("uid-d", 4), false, now.Add(time.Hour+time.Second), time.Minute, time.Hour)
	g.Expect(err).To(MatchError(ContainSubstring("took it back 2 times")))
}

// Before: a pass that started while the operator's status write was under way (a requeue
// falling due, another watch event) read the Foo from before the write and sent a status
// write that failed its optimistic lock: a request for nothing (in CI, a second status
// PATCH at the end of an autoscaler's scale).
func TestMemoriesKnowTheFooTheOperatorsStatusWriteReplaced(t *testing.T) {
	g := NewWithT(t)
	m := &memories{}
	at := func(uid, resourceVersion string) *samplev1alpha1.Foo {
		foo := newFoo("a", withIdentity(uid, 1))
		foo.ResourceVersion = resourceVersion
		return foo
	}
	g.Expect(m.predatesStatusWrite(at("uid-foo", "10"))).To(BeFalse(), "no status write yet")
	m.statusWritten(at("uid-foo", "10"))
	g.Expect(m.predatesStatusWrite(at("uid-foo", "10"))).To(BeTrue(), "the cache lags the write")
	g.Expect(m.predatesStatusWrite(at("uid-foo", "10"))).To(BeTrue(), "on every pass until it shows it")

	g.Expect(m.predatesStatusWrite(at("uid-foo", "11"))).To(BeFalse(), "the cache shows the write")
	g.Expect(m.byFoo).To(BeEmpty(), "the memory of the write ends with it")

	m.statusWritten(at("uid-foo", "12"))
	g.Expect(m.predatesStatusWrite(at("uid-again", "12"))).To(BeFalse(), "a Foo created again under the name is another")
}

// takes plays writers taking field at the given offsets from start, the operator looking
// at each take, and returns the offsets of its corrections and the contest.
func takes(writers []fieldTaker, every time.Duration, n int) ([]time.Duration, *contest) {
	start := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := &contest{}
	var corrections []time.Duration
	for i := range n {
		at := start.Add(time.Duration(i) * every)
		w := writers[i%len(writers)]
		if c.taken(w, at, DefaultConflictRecheckInterval, DefaultMaxConflictRecheckInterval).apply {
			c.corrected(w, at, DefaultMaxConflictRecheckInterval)
			corrections = append(corrections, at.Sub(start))
		}
	}
	return corrections, c
}

// Before: a contest started anew whenever the taker changed, so two writers taking
// spec.replicas in turn (kubectl scale, then a GitOps tool's patch) were each corrected at
// once: 8 takes 10 s apart cost 8 corrections. Now the back-off is the field's.
func TestContestIsTheFieldsWhoeverTakesIt(t *testing.T) {
	g := NewWithT(t)
	kubectl := fieldTaker{manager: "kubectl", subresource: "scale", field: ".spec.replicas"}
	bot := fieldTaker{manager: "gitops-bot", field: ".spec.replicas"}

	alone, _ := takes([]fieldTaker{kubectl}, 10*time.Second, 8)
	alternating, c := takes([]fieldTaker{kubectl, bot}, 10*time.Second, 8)
	g.Expect(alternating).To(Equal(alone))
	g.Expect(len(alternating)).To(BeNumerically("<=", 6))
	g.Expect(c.err("web", ".spec.replicas", time.Minute, DefaultMaxConflictRecheckInterval)).To(MatchError(ContainSubstring(
		`written by field manager "gitops-bot" and field manager "kubectl" through the scale subresource`)))
}

// Before: a contest ended once the operator's correction held for 30 s, so a GitOps tool
// that re-applies every few minutes (Flux, Argo CD: 1 to 10 minutes) was corrected each
// time as a one-off edit and never reported.
func TestContestCatchesAWriterThatComesBackWithinTheWindow(t *testing.T) {
	g := NewWithT(t)
	flux := fieldTaker{manager: "kustomize-controller", field: ".spec.replicas"}
	start := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := &contest{}
	g.Expect(c.taken(flux, start, DefaultConflictRecheckInterval, DefaultMaxConflictRecheckInterval)).To(Equal(contestDecision{apply: true, wait: DefaultConflictRecheckInterval}))
	c.corrected(flux, start, DefaultMaxConflictRecheckInterval)

	back := start.Add(5 * time.Minute)
	dec := c.taken(flux, back, DefaultConflictRecheckInterval, DefaultMaxConflictRecheckInterval)
	g.Expect(dec.degraded).To(BeTrue(), "back within the window: a contest")
	g.Expect(dec.apply).To(BeTrue(), "the back-off after one correction has passed")

	// A take after the window is a new one-off edit.
	fresh := &contest{}
	fresh.corrected(flux, start, DefaultMaxConflictRecheckInterval)
	g.Expect(fresh.taken(flux, start.Add(DefaultMaxConflictRecheckInterval), DefaultConflictRecheckInterval, DefaultMaxConflictRecheckInterval)).
		To(Equal(contestDecision{apply: true, wait: DefaultConflictRecheckInterval}))
}

// The message of a contest changes with a correction or a new writer, never with time:
// a status rewritten on every Deployment event (a countdown) would cost a write each.
func TestContestMessageHasNoCountdown(t *testing.T) {
	g := NewWithT(t)
	c := &contest{}
	hpa := fieldTaker{manager: "hpa", subresource: "scale", field: ".spec.replicas"}
	c.corrected(hpa, time.Now(), time.Hour)
	c.corrected(hpa, time.Now(), time.Hour)
	g.Expect(c.err("web", ".spec.replicas", 17*time.Second, time.Hour).Error()).To(Equal(c.err("web", ".spec.replicas", 3*time.Second, time.Hour).Error()))
}

// Before: while a contest waited, a change of the Foo (a new image, a scale of the Foo by
// the autoscaler the message advises) reached the Deployment only with the next correction,
// up to the longest recheck interval later, while the Foo's status named the new generation.
func TestContestAppliesAChangeOfTheFooAtOnce(t *testing.T) {
	g := NewWithT(t)
	m := &memories{}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	foo, changedFoo := newFoo("a", withIdentity("uid-foo", 1)), newFoo("a", withIdentity("uid-foo", 2), withImage("nginx:1.29"))
	hpa := fieldTaker{manager: "hpa", subresource: "scale", field: ".spec.replicas"}
	at := func(generation int64) *appsv1.Deployment {
		d := newDeployment(foo)
		d.UID, d.Generation = "uid-d", generation
		return d
	}
	apply, _ := m.fieldTaken(foo, hpa, at(2), false, now, time.Minute, time.Hour)
	g.Expect(apply).To(BeTrue(), "a first take is taken back at once")
	g.Expect(m.fieldCorrected(foo, hpa, at(3), now, time.Minute, time.Hour)).To(Succeed())
	apply, err := m.fieldTaken(foo, hpa, at(4), false, now.Add(time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeFalse(), "taken again: the contest waits")
	g.Expect(err).To(MatchError(ContainSubstring("hpa")))
	apply, _ = m.fieldTaken(foo, hpa, at(4), true, now.Add(time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeFalse(), "the Deployment lacks what the operator applies, but the Foo is the one corrected for: a writer took the operator's label, and waits")

	apply, _ = m.fieldTaken(changedFoo, hpa, at(4), true, now.Add(2*time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeTrue(), "the Foo changed since the correction: its change is applied at once")
	apply, _ = m.fieldTaken(changedFoo, hpa, at(4), false, now.Add(2*time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeFalse(), "the Deployment has what the operator applies for the changed Foo: nothing of the Foo's to apply")
	g.Expect(m.fieldCorrected(changedFoo, hpa, at(5), now.Add(2*time.Second), time.Minute, time.Hour)).To(MatchError(ContainSubstring("took it back 2 times")), "the apply took the field back too")
	apply, _ = m.fieldTaken(changedFoo, hpa, at(6), true, now.Add(3*time.Second), time.Minute, time.Hour)
	g.Expect(apply).To(BeFalse(), "the change was applied: the contest waits again")
}

// Before: a contest was the Foo's, whatever its Deployment: a Foo renamed, or whose
// Deployment was deleted with the autoscaler that took its replicas and created again, was
// Degraded with FieldManagerConflict naming the new Deployment, which no one else wrote,
// until the old contest's window ended.
func TestContestIsOverOneDeployment(t *testing.T) {
	g := NewWithT(t)
	m := &memories{}
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	foo := newFoo("a", withIdentity("uid-foo", 1))
	hpa := fieldTaker{manager: "hpa", subresource: "scale", field: ".spec.replicas"}
	old, created := newDeployment(foo), newDeployment(foo)
	old.UID, created.UID = "uid-old", "uid-created"
	for i := range 2 {
		_ = m.fieldCorrected(foo, hpa, old, now.Add(time.Duration(i)*time.Minute), time.Minute, time.Hour)
	}
	g.Expect(m.fieldsHeld(foo, old, now.Add(2*time.Minute), time.Hour)).To(MatchError(ContainSubstring("took it back 2 times")), "the control: the contest over the old Deployment goes on")

	apply, err := m.fieldTaken(foo, hpa, created, false, now.Add(2*time.Minute), time.Minute, time.Hour)
	g.Expect(apply).To(BeTrue(), "a first take of the new Deployment's field is taken back at once, the old Deployment's contest still kept")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.fieldsHeld(foo, created, now.Add(2*time.Minute), time.Hour)).To(Succeed(), "no one holds a field of the new Deployment")
	g.Expect(m.byFoo).To(BeEmpty(), "the old Deployment's contest ended with it")
}

// Before: the memory of a Foo was kept by name, so a Foo deleted and created again between
// two passes inherited the old one's back-off and conflict.
func TestMemoryIsTheFoosByUID(t *testing.T) {
	g := NewWithT(t)
	m := &memories{}
	now := time.Now()
	old := newFoo("a", withIdentity("uid-1", 1))
	hpa := fieldTaker{manager: "hpa", subresource: "scale", field: ".spec.replicas"}
	m.nameTaken(old, now.Add(-time.Hour))
	for range 3 {
		_ = m.fieldCorrected(old, hpa, newDeployment(old), now, time.Second, time.Hour)
	}
	again := newFoo("a", withIdentity("uid-2", 1))
	g.Expect(m.nameTaken(again, now)).To(Equal(now), "the new Foo's conflict starts now")
	apply, err := m.fieldTaken(again, hpa, newDeployment(again), false, now, time.Second, time.Hour)
	g.Expect(apply).To(BeTrue(), "the new Foo has no contest: a first take is corrected at once")
	g.Expect(err).NotTo(HaveOccurred())
	m.nameFree(again)
	g.Expect(m.byFoo).To(BeEmpty(), "an empty memory is dropped")
}

// Before: the counter's labels were the other writer's field manager, chosen by that
// writer, and the whole field path, which names an ownerReference by UID.
func TestTakeoverLabelsAreBounded(t *testing.T) {
	g := NewWithT(t)
	l := &takeoverLabels{}
	seen := map[string]bool{}
	for i := range 100 {
		manager, field := l.of(fieldTaker{manager: fmt.Sprintf("writer-%d", i), field: fmt.Sprintf(`.metadata.ownerReferences[uid="%d"]`, i)})
		seen[manager+" "+field] = true
	}
	g.Expect(seen).To(HaveLen(maxManagerLabels + 1))
	g.Expect(seen).To(HaveKey(otherManager + " .metadata.ownerReferences[*]"))
	manager, field := l.of(fieldTaker{manager: "writer-3", field: `.spec.template.spec.containers[name="nginx"].image`})
	g.Expect([]string{manager, field}).To(Equal([]string{"writer-3", ".spec.template.spec.containers[*].image"}))
}
