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
	"crypto/sha256"
	"fmt"
	"slices"
	"time"
)

// machineCheckMiB is how much a machine check hashes: about half a second of one CPU of the
// machine the record runs on.
const machineCheckMiB = 1024

// machineCheck times a fixed piece of work on one CPU, SHA-256 over machineCheckMiB MiB, and
// gives the fastest of three. It runs while nothing of the benchmark does (before and after
// each group of contenders run side by side), so one check slower than another of the same
// run means the machine was slower then (another tenant of its host, a throttled CPU), not a
// contender. The figures of runs whose checks differ do not compare.
func machineCheck() time.Duration {
	buf := make([]byte, 1<<20)
	took := make([]time.Duration, 3)
	for i := range took {
		start := time.Now()
		h := sha256.New()
		for range machineCheckMiB {
			h.Write(buf)
		}
		h.Sum(nil)
		took[i] = time.Since(start)
	}
	return slices.Min(took)
}

// machineChecks are the fastest and the slowest machine check of runs, before or after any.
func machineChecks(runs []result) (fastest, slowest time.Duration) {
	for _, r := range runs {
		for _, c := range r.machine {
			if fastest == 0 || c < fastest {
				fastest = c
			}
			slowest = max(slowest, c)
		}
	}
	return fastest, slowest
}

// machineCheckLabel says what a machine check is, for the report.
var machineCheckLabel = fmt.Sprintf("SHA-256 of %d MiB on one CPU, the fastest of 3", machineCheckMiB)
