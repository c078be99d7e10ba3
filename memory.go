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
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"time"
)

// setGoMemory sets the Go runtime's soft memory limit from the container's, unless GOMEMLIMIT
// is set, and has the garbage collector's percent follow the live heap, unless GOGC is set.
func setGoMemory() {
	if limit, ok := softMemoryLimit(os.Getenv("GOMEMLIMIT"), os.Getenv("MEMORY_LIMIT")); ok {
		debug.SetMemoryLimit(limit)
		setupLog.Info("Set the Go runtime's soft memory limit from the container's", "bytes", limit, "containerLimit", os.Getenv("MEMORY_LIMIT"))
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		go followLiveHeap(context.Background(), time.Second)
		setupLog.Info("The garbage collector's percent follows the live heap (GOGC is not set)",
			"percent", fmt.Sprintf("%d up to %d MiB, %d from %d MiB", smallHeapGCPercent, smallHeap>>20, largeHeapGCPercent, largeHeap>>20))
	}
}

// memoryLimitShare is the share of the container's memory limit that the Go runtime gets as
// its soft limit (GOMEMLIMIT): the rest is for memory the runtime does not manage, chiefly
// the binary's mapped pages, which docs/benchmarks.md shows in the operator's base RSS.
const memoryLimitShare = 0.85

// softMemoryLimit is the Go runtime's soft memory limit for a container limit of
// containerLimit bytes (MEMORY_LIMIT, from the Downward API), unless GOMEMLIMIT is set,
// which the runtime then applies itself.
func softMemoryLimit(gomemlimit, containerLimit string) (int64, bool) {
	limit, err := strconv.ParseInt(containerLimit, 10, 64)
	if gomemlimit != "" || err != nil || limit <= 0 {
		return 0, false
	}
	return int64(float64(limit) * memoryLimitShare), true
}

// The garbage collector's percent (GOGC: how far the heap grows beyond what the last
// collection kept before the next one starts) follows the live heap when GOGC is not set.
// A small heap, a few hundred Foos, grows by a quarter: an operator that watches few objects is
// judged by its footprint, which then is mostly the binary and the runtime (docs/benchmarks.md).
// A large one grows by as much as itself (Go's default): at 10,000 Foos, collecting at a
// quarter took about half of the operator's CPU (docs/benchmark-history.md), the extra memory
// is a smaller share of the whole, and the soft memory limit still bounds it. In between the
// percent rises in a straight line, so the heap goal never jumps as the heap grows.
const (
	smallHeapGCPercent = 25
	largeHeapGCPercent = 100
	smallHeap          = 32 << 20
	largeHeap          = 256 << 20
)

// gcPercent is the garbage collector's percent for a live heap of live bytes.
func gcPercent(live uint64) int {
	switch {
	case live <= smallHeap:
		return smallHeapGCPercent
	case live >= largeHeap:
		return largeHeapGCPercent
	}
	return smallHeapGCPercent + int((live-smallHeap)*(largeHeapGCPercent-smallHeapGCPercent)/(largeHeap-smallHeap))
}

// followLiveHeap sets the garbage collector's percent from the live heap that the last
// collection measured, at once and then every interval until ctx ends.
func followLiveHeap(ctx context.Context, interval time.Duration) {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for percent := -1; ; {
		metrics.Read(live)
		if p := gcPercent(live[0].Value.Uint64()); p != percent {
			debug.SetGCPercent(p)
			percent = p
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
