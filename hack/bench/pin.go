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
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// cpuShares splits the CPUs the benchmark may run on into k sets of as many CPUs (the rest
// unused), one for each contender run side by side: each runs its cluster and itself on CPUs
// of its own, so the contenders meet the machine's speed of the moment, which runs one after
// the other do not (on the machine of docs/benchmark-history.md it drifted by more than the
// differences measured within minutes), and neither takes CPU time from the other. The
// shares come in the order of the time their CPUs served interrupts since the machine
// started, the most first: a machine may send all of its disk's interrupts to one CPU, whose
// contender then serves them for both, so the first contender (the operator: the one the
// targets are of) gets that share, and a target it hits is not the CPUs' doing.
func cpuShares(k int) ([][]int, error) {
	if k == 0 {
		return nil, nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("the benchmark's CPUs: %w", err)
	}
	var cpus []int
	for cpu := range len(set) * 64 {
		if set.IsSet(cpu) {
			cpus = append(cpus, cpu)
		}
	}
	if len(cpus) < k {
		return nil, fmt.Errorf("%d contenders side by side, each on CPUs of its own, need as many CPUs; the benchmark may run on %d", k, len(cpus))
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, err
	}
	shares := make([][]int, k)
	interrupts := make(map[int]time.Duration, k)
	each := len(cpus) / k
	for i := range shares {
		shares[i] = cpus[i*each : (i+1)*each]
		c, err := parseCPUStat(string(stat), shares[i])
		if err != nil {
			return nil, err
		}
		interrupts[shares[i][0]] = c.interrupts
	}
	slices.SortStableFunc(shares, func(a, b []int) int { return cmp.Compare(interrupts[b[0]], interrupts[a[0]]) })
	return shares, nil
}

// pin confines every thread of process pid to cpus, and with them the threads and processes
// they start later, which inherit it. The listing of threads is read again until a pass
// pins no new one, for threads started while it pinned; threads that ended are skipped.
func pin(pid int, cpus []int) error {
	var set unix.CPUSet
	for _, cpu := range cpus {
		set.Set(cpu)
	}
	pinned := map[int]bool{}
	for {
		entries, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
		if err != nil {
			return fmt.Errorf("pin process %d: %w", pid, err)
		}
		more := false
		for _, e := range entries {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || pinned[tid] {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("pin thread %d of process %d to CPUs %v: %w", tid, pid, cpus, err)
			}
			pinned[tid], more = true, true
		}
		if !more {
			return nil
		}
	}
}

// cpuList names cpus as the report does: "0", "2, 3".
func cpuList(cpus []int) string {
	names := make([]string, len(cpus))
	for i, cpu := range cpus {
		names[i] = strconv.Itoa(cpu)
	}
	return strings.Join(names, ", ")
}
