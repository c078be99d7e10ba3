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
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// The Go runtime gets 85 % of the container's limit, leaving room for memory it does not
// manage; an explicit GOMEMLIMIT, or no limit, leaves the runtime alone.
func TestSoftMemoryLimit(t *testing.T) {
	tests := []struct {
		name, gomemlimit, containerLimit string
		want                             int64
		set                              bool
	}{
		{name: "the shipped limit, 384 MiB", containerLimit: "402653184", want: 342255206, set: true},
		{name: "GOMEMLIMIT set explicitly", gomemlimit: "300MiB", containerLimit: "402653184"},
		{name: "no container limit", containerLimit: ""},
		{name: "not a number", containerLimit: "384Mi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, set := softMemoryLimit(tt.gomemlimit, tt.containerLimit)
			g.Expect(set).To(Equal(tt.set))
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

// The percent is a quarter up to a small heap, Go's default from a large one, and rises in a
// straight line between them.
func TestGCPercent(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{live: 0, want: 25},
		{live: 8 << 20, want: 25}, // 100 Foos (docs/benchmarks.md)
		{live: smallHeap, want: 25},
		{live: smallHeap + 1<<20, want: 25},
		{live: (smallHeap + largeHeap) / 2, want: 62},
		{live: 180 << 20, want: 74}, // 10,000 Foos (docs/benchmarks-large.md)
		{live: largeHeap - 1, want: 99},
		{live: largeHeap, want: 100},
		{live: 1 << 30, want: 100},
	}
	for _, tt := range tests {
		NewWithT(t).Expect(gcPercent(tt.live)).To(Equal(tt.want), "live heap %d bytes", tt.live)
	}
}

// The runtime's percent follows the live heap as it grows and shrinks.
func TestFollowLiveHeap(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go followLiveHeap(ctx, 10*time.Millisecond)
	percent := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	collected := func() uint64 { runtime.GC(); return percent() }

	g.Eventually(collected).WithTimeout(5 * time.Second).Should(BeEquivalentTo(smallHeapGCPercent))
	kept := make([]byte, largeHeap)
	g.Eventually(collected).WithTimeout(5 * time.Second).Should(BeEquivalentTo(largeHeapGCPercent))
	runtime.KeepAlive(kept)
	g.Eventually(collected).WithTimeout(5 * time.Second).Should(BeEquivalentTo(smallHeapGCPercent))
}
