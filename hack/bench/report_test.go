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

import "testing"

func TestRecurring(t *testing.T) {
	for key, want := range map[string]bool{
		"update coordination.k8s.io/leases":                true,
		"create authentication.k8s.io/tokenreviews":        true,
		"create authorization.k8s.io/subjectaccessreviews": true,
		"watch apps/deployments":                           true,
		"watch samplecontroller.example.com/foos":          true,
		"create apps/deployments":                          false,
		"patch apps/deployments":                           false,
		"create events.k8s.io/events":                      false,
		"patch samplecontroller.example.com/foos/status":   false,
		"list apps/deployments":                            false,
	} {
		if got := recurring(key); got != want {
			t.Errorf("recurring(%q) = %t, want %t", key, got, want)
		}
	}
}

func TestUnprofiled(t *testing.T) {
	rs := []result{{n: 1}, {n: 2}, {n: 3, profiled: true}}
	if got := unprofiled(rs); len(got) != 2 || got[0].n != 1 || got[1].n != 2 {
		t.Errorf("unprofiled of two runs and a profiled one = %+v, want the two", got)
	}
	one := []result{{n: 1, profiled: true}}
	if got := unprofiled(one); len(got) != 1 || got[0].n != 1 {
		t.Errorf("unprofiled of a single profiled run = %+v, want that run", got)
	}
}

func TestPairedRatio(t *testing.T) {
	seconds := func(r result) float64 { return float64(r.n) }
	// The bare client's machine was twice as fast from the second repeat on: the medians of
	// the times (150 against 100) would give x1.50, where the repeats' ratios are x1.00,
	// x1.50 and x1.10, median x1.10.
	ops := []result{{n: 200}, {n: 150}, {n: 110}}
	refs := []result{{n: 200}, {n: 100}, {n: 100}}
	if got, each := pairedRatio(ops, refs, seconds); got != 1.1 || each != "x1.00 / x1.50 / x1.10" {
		t.Errorf("pairedRatio = %v, %q; want 1.1, \"x1.00 / x1.50 / x1.10\"", got, each)
	}
	if got, _ := pairedRatio(ops[:2], refs[:2], seconds); got != 1.25 {
		t.Errorf("pairedRatio of two repeats = %v, want 1.25", got)
	}
}
