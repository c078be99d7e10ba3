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
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// TestHeapByCategory checks that each sample goes to the first category any function of its
// stack belongs to, whatever the frame's depth, and the rest to "other".
func TestHeapByCategory(t *testing.T) {
	fn := func(names ...string) []*profile.Location {
		locs := make([]*profile.Location, len(names))
		for i, name := range names {
			locs[i] = &profile.Location{Line: []profile.Line{{Function: &profile.Function{Name: name}}}}
		}
		return locs
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_space"}, {Type: "inuse_space"}},
		Sample: []*profile.Sample{
			// An informer decoding an object: the informer's, though the scheme decodes it.
			{Value: []int64{99, 100}, Location: fn("k8s.io/apimachinery/pkg/runtime.(*Scheme).New", "k8s.io/client-go/tools/cache.(*Reflector).watch")},
			{Value: []int64{99, 50}, Location: fn("k8s.io/api/apps/v1.(*Deployment).Unmarshal", "k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive")},
			{Value: []int64{99, 20}, Location: fn("github.com/prometheus/client_golang/prometheus.NewDesc", "runtime.doInit1")},
			{Value: []int64{99, 3}, Location: fn("encoding/json.typeFields", "runtime.doInit1")},
			{Value: []int64{99, 4}, Location: fn("runtime.mallocgc", "main.main")},
		},
	}
	shares, err := heapByCategory(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range shares {
		if s.bytes != 0 {
			got[s.category] = s.bytes
		}
	}
	want := map[string]int64{
		"informer caches (the Foos and Deployments it watches)": 150,
		"Prometheus metrics registry":                           20,
		"package initialisation (other global variables)":       3,
		"other": 4,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for c, b := range want {
		if got[c] != b {
			t.Errorf("%s: got %d bytes, want %d (all: %v)", c, got[c], b, got)
		}
	}
	if shares[len(shares)-1].category != "other" {
		t.Errorf("the last share is %q, want other", shares[len(shares)-1].category)
	}
}

// TestAnalyseCPUProfile checks that flat CPU goes to the innermost function (the first line
// of the first location, an inlined function included), and that a group counts every
// sample with one of its functions anywhere on the stack, so that groups may overlap, but
// for the functions a group excepts: a write the watch cache's delegator passes on to etcd
// is not the watch cache's.
func TestAnalyseCPUProfile(t *testing.T) {
	stack := func(frames ...[]string) []*profile.Location {
		locs := make([]*profile.Location, len(frames))
		for i, lines := range frames {
			locs[i] = &profile.Location{}
			for _, name := range lines {
				locs[i].Line = append(locs[i].Line, profile.Line{Function: &profile.Function{Name: name}})
			}
		}
		return locs
	}
	ms := int64(time.Millisecond)
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DurationNanos: int64(2 * time.Second),
		Sample: []*profile.Sample{
			// JSON decoding within server-side apply: in both groups.
			{Value: []int64{3, 30 * ms}, Location: stack([]string{"encoding/json.(*decodeState).object"}, []string{"sigs.k8s.io/structured-merge-diff/v6/typed.(*TypedValue).Merge"})},
			// An inlined function: the innermost line is the flat one.
			{Value: []int64{5, 50 * ms}, Location: stack([]string{"runtime.memmove", "runtime.growslice"}, []string{"runtime.gcBgMarkWorker"})},
			{Value: []int64{2, 20 * ms}, Location: stack([]string{"runtime.memmove"}, []string{"main.main"})},
			// A Foo's status write, JSON encoding within it; a create, by its handler's closure.
			{Value: []int64{1, 10 * ms}, Location: stack([]string{"encoding/json.Marshal"}, []string{"k8s.io/apiextensions-apiserver/pkg/registry/customresource.(*StatusREST).Update"})},
			{Value: []int64{1, 10 * ms}, Location: stack([]string{"k8s.io/apiserver/pkg/endpoints/handlers.CreateResource.createHandler.func1.2"})},
			// A write through the watch cache's delegator; the encoding of a watch event.
			{Value: []int64{4, 40 * ms}, Location: stack([]string{"k8s.io/apiserver/pkg/storage/etcd3.(*store).GuaranteedUpdate"}, []string{"k8s.io/apiserver/pkg/storage/cacher.(*CacheDelegator).GuaranteedUpdate"})},
			{Value: []int64{1, 10 * ms}, Location: stack([]string{"k8s.io/apiserver/pkg/storage/cacher.(*cachingObject).CacheEncode"})},
		},
	}
	f, err := analyse(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.cpu != 170*time.Millisecond || f.took != 2*time.Second {
		t.Errorf("cpu %v, took %v", f.cpu, f.took)
	}
	if len(f.top) != 6 || f.top[0] != (cpuShare{"runtime.memmove", 70 * time.Millisecond}) || f.top[2].name != "encoding/json.(*decodeState).object" {
		t.Errorf("top: %+v", f.top)
	}
	got := map[string]time.Duration{}
	for _, g := range f.groups {
		got[g.name] = g.cpu
	}
	for name, want := range map[string]time.Duration{
		cpuGroups[0].name: 50 * time.Millisecond, // garbage collection
		cpuGroups[1].name: 30 * time.Millisecond, // server-side apply
		cpuGroups[2].name: 40 * time.Millisecond, // JSON
		cpuGroups[3].name: 0,
		"writes of the Foos' status (their status subresource)":                                                                             10 * time.Millisecond,
		"creates of built-in objects (Deployments, events, ReplicaSets, Pods, bindings)":                                                    10 * time.Millisecond,
		"watch cache (kube-apiserver's cacher: its store, its watchers, the encoding of their events; not the writes it passes on to etcd)": 10 * time.Millisecond,
	} {
		if got[name] != want {
			t.Errorf("%s: got %v, want %v", name, got[name], want)
		}
	}
}
