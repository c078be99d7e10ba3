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
	"strings"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
)

// pollInterval is how often a step looks again at what it waits for.
const pollInterval = time.Second

// step is one named step of a test. run returns what it observed when the step fails.
type step struct {
	name string
	run  func(context.Context) error
}

// testLog is the log of a test run, which becomes the result's Log.
type testLog struct {
	strings.Builder
}

// logf adds a line to the log.
func (l *testLog) logf(format string, args ...any) {
	fmt.Fprintf(l, format+"\n", args...)
}

// HandleWarningHeaderWithContext logs a warning of the API server, so that client-go does
// not print it on stderr: the pod's log, stdout and stderr, is the test's result.
func (l *testLog) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	l.logf("API server warning: %s", text)
}

// test is a named sequence of steps, and what undoes them after a failure.
type test struct {
	name    string
	steps   []step
	cleanup func(context.Context)
}

// run runs the steps in order, each within timeout, and stops at the first that fails: the
// result then fails, naming the step and what it observed, and cleanup runs (within timeout
// too, even when ctx was cancelled).
func (t test) run(ctx context.Context, timeout time.Duration, log *testLog) scapiv1alpha3.TestResult {
	result := scapiv1alpha3.TestResult{Name: t.name, State: scapiv1alpha3.PassState}
	for _, s := range t.steps {
		if err := runStep(ctx, s, timeout, log); err != nil {
			result.State = scapiv1alpha3.FailState
			result.Errors = []string{fmt.Sprintf("step %q failed: %v", s.name, err)}
			t.cleanupWithin(ctx, timeout)
			break
		}
	}
	result.Log = log.String()
	return result
}

// cleanupWithin runs the cleanup within timeout, even when ctx was cancelled.
func (t test) cleanupWithin(ctx context.Context, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	t.cleanup(ctx)
}

// runStep runs s within timeout and logs how it went and how long it took.
func runStep(ctx context.Context, s step, timeout time.Duration, log *testLog) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	log.logf("step %q: started", s.name)
	err := s.run(ctx)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		log.logf("step %q: failed after %s: %v", s.name, took, err)
		return err
	}
	log.logf("step %q: passed in %s", s.name, took)
	return nil
}

// poll calls check every interval until it returns nil, and gives up when ctx is done with
// the last thing check observed.
func poll(ctx context.Context, interval time.Duration, check func(context.Context) error) error {
	start := time.Now()
	var last error
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if last == nil || ctx.Err() == nil {
			last = err // keep what was observed, not the deadline that cut a call short
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up after %s: %w", time.Since(start).Round(time.Second), last)
		case <-time.After(interval):
		}
	}
}
