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
			c.corrected(hpa, at)
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
	// first interval, then ends.
	last := start.Add(corrections[9])
	dec, over := c.held(last.Add(10*time.Second), DefaultConflictRecheckInterval)
	g.Expect(over).To(BeFalse())
	g.Expect(dec.degraded).To(BeTrue())
	g.Expect(dec.wait).To(Equal(20 * time.Second))
	_, over = c.held(last.Add(DefaultConflictRecheckInterval), DefaultConflictRecheckInterval)
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
	c.corrected(edit, now.Add(time.Second))
	// Taken again at once after the written correction: now a contest, which waits.
	g.Expect(c.taken(edit, now.Add(2*time.Second), time.Minute, time.Hour)).To(Equal(contestDecision{degraded: true, wait: time.Minute - time.Second}))
}

// A one-off edit is corrected at once and does not make the Foo Degraded; another writer
// or field starts a new contest.
func TestContestStartsAnewForAnotherWriter(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	c := &contest{}
	edit := fieldTaker{manager: "kubectl-edit", field: ".spec.template.spec.containers[name=\"nginx\"].image"}
	g.Expect(c.taken(edit, now, time.Second, time.Minute)).To(Equal(contestDecision{apply: true, wait: time.Second}))
	c.corrected(edit, now)
	_, over := c.held(now.Add(time.Second), time.Second)
	g.Expect(over).To(BeTrue())

	argo := fieldTaker{manager: "argocd-controller", field: ".spec.replicas"}
	g.Expect(c.taken(argo, now, time.Second, time.Minute)).To(Equal(contestDecision{apply: true, wait: time.Second}))
	c.corrected(argo, now)
	g.Expect(c.taken(edit, now.Add(100*time.Millisecond), time.Second, time.Minute).apply).To(BeTrue(), "another writer: a new contest")
}
