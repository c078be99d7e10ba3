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
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
)

// recorder is a fake test: its steps record that they ran and fail when told.
type recorder struct {
	ran      []string
	cleanups int
}

func (r *recorder) step(name string, err error) step {
	return step{name, func(context.Context) error {
		r.ran = append(r.ran, name)
		return err
	}}
}

func (r *recorder) cleanup(context.Context) { r.cleanups++ }

func TestRunPassesWhenEveryStepPasses(t *testing.T) {
	g := NewWithT(t)
	r := &recorder{}
	result := test{name: "t", steps: []step{r.step("one", nil), r.step("two", nil)}, cleanup: r.cleanup}.
		run(context.Background(), time.Second, &testLog{})
	g.Expect(result.Name).To(Equal("t"))
	g.Expect(result.State).To(Equal(scapiv1alpha3.PassState))
	g.Expect(result.Errors).To(BeEmpty())
	g.Expect(r.ran).To(Equal([]string{"one", "two"}))
	g.Expect(r.cleanups).To(BeZero())
	g.Expect(result.Log).To(MatchRegexp(`step "one": started\nstep "one": passed in \S+\nstep "two": started\n`))
}

func TestRunStopsAtTheFailedStepAndCleansUp(t *testing.T) {
	g := NewWithT(t)
	r := &recorder{}
	steps := []step{r.step("one", nil), r.step("two", errors.New("saw 0 of 1")), r.step("three", nil)}
	result := test{name: "t", steps: steps, cleanup: r.cleanup}.run(context.Background(), time.Second, &testLog{})
	g.Expect(result.State).To(Equal(scapiv1alpha3.FailState))
	g.Expect(result.Errors).To(Equal([]string{`step "two" failed: saw 0 of 1`}))
	g.Expect(r.ran).To(Equal([]string{"one", "two"}))
	g.Expect(r.cleanups).To(Equal(1))
	g.Expect(result.Log).To(ContainSubstring(`step "two": failed after`))
	g.Expect(result.Log).To(ContainSubstring("saw 0 of 1"))
}

func TestRunBoundsEachStepAndCleansUpAfterCancellation(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	var cleanupErr error
	waits := step{"waits", func(ctx context.Context) error {
		<-ctx.Done()
		cancel() // the run is cancelled too: cleanup must still get time
		return ctx.Err()
	}}
	cleanup := func(ctx context.Context) { cleanupErr = ctx.Err() }
	start := time.Now()
	result := test{name: "t", steps: []step{waits}, cleanup: cleanup}.run(ctx, 50*time.Millisecond, &testLog{})
	g.Expect(time.Since(start)).To(BeNumerically("<", 5*time.Second))
	g.Expect(result.Errors).To(ConsistOf(ContainSubstring("deadline exceeded")))
	g.Expect(cleanupErr).NotTo(HaveOccurred())
}

func TestPollRetriesUntilTheCheckPasses(t *testing.T) {
	g := NewWithT(t)
	calls := 0
	err := poll(context.Background(), time.Millisecond, func(context.Context) error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(calls).To(Equal(3))
}

func TestPollGivesUpWithTheLastObservation(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := poll(ctx, time.Millisecond, func(ctx context.Context) error {
		if ctx.Err() != nil {
			return ctx.Err() // a call the deadline cut short observes nothing
		}
		return errors.New("1 of 2 available")
	})
	g.Expect(err).To(MatchError(MatchRegexp(`^gave up after \S+: 1 of 2 available$`)))
}
