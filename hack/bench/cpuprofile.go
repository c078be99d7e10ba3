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
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// cpuProfileSlice is how long each of the CPU profiles lasts that together cover the
// convergence: they are taken back to back until every Foo is ready, and merged, so that
// the profile ends with the convergence (within a slice) without guessing its time.
const cpuProfileSlice = 2 * time.Second

// profileUntil takes CPU profiles with get (each of the seconds it is given) back to back
// until done is closed, and merges them.
func profileUntil(done <-chan struct{}, get func(seconds int) ([]byte, error)) (*profile.Profile, error) {
	var ps []*profile.Profile
	for {
		raw, err := get(int(cpuProfileSlice / time.Second))
		if err != nil {
			return nil, err
		}
		p, err := profile.ParseData(raw)
		if err != nil {
			return nil, fmt.Errorf("CPU profile: %w", err)
		}
		ps = append(ps, p)
		select {
		case <-done:
			return profile.Merge(ps)
		default:
		}
	}
}

// writeProfile writes p to path.
func writeProfile(p *profile.Profile, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(p.Write(f), f.Close())
}

// operatorCPUProfile gets one CPU profile of the operator from its pprof endpoint.
func operatorCPUProfile(seconds int) ([]byte, error) {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", operatorPprof, seconds)) //nolint:noctx // a local endpoint, bounded by seconds
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET /debug/pprof/profile: %s: %s", resp.Status, raw)
	}
	return raw, err
}

// apiserverCPUProfile gets one CPU profile of kube-apiserver, which serves Go's profiles
// to its admin (--profiling is on by default).
func (cl *cluster) apiserverCPUProfile(seconds int) ([]byte, error) {
	return cl.kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
		Param("seconds", strconv.Itoa(seconds)).DoRaw(context.Background())
}

// cpuGroups are the kinds of work the report gives the CPU share of: each the samples with
// any function of the group on the stack (one whose name starts with one of prefixes, but
// with none of except), so that a sample may count in several (JSON decoding within
// server-side apply counts in both) and the shares do not add up.
var cpuGroups = []struct {
	name             string
	prefixes, except []string
}{
	{"garbage collection (background marking and sweeping, allocation assists)", []string{"runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.bgsweep", "runtime.bgscavenge"}, nil},
	{"server-side apply and managed fields (structured-merge-diff)", []string{"sigs.k8s.io/structured-merge-diff/", "k8s.io/apimachinery/pkg/util/managedfields", "k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager"}, nil},
	{"JSON encoding and decoding", []string{"encoding/json.", "sigs.k8s.io/json", "k8s.io/apimachinery/pkg/runtime/serializer/json.", "github.com/json-iterator/", "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured.(*unstructuredJSONScheme)"}, nil},
	{"protobuf encoding and decoding", []string{"k8s.io/apimachinery/pkg/runtime/serializer/protobuf.", "github.com/gogo/protobuf/", "google.golang.org/protobuf/"}, nil},
	{"TLS and network system calls", []string{"crypto/", "vendor/golang.org/x/crypto/", "syscall.", "internal/poll."}, nil},
	{"audit logging (the benchmark's audit policy logs every request)", []string{"k8s.io/apiserver/pkg/audit.", "k8s.io/apiserver/plugin/pkg/audit/", "k8s.io/apiserver/pkg/endpoints/filters.WithAudit"}, nil},
	{"etcd client", []string{"go.etcd.io/etcd/client/"}, nil},
	// Every write passes through the cacher package's CacheDelegator on its way to etcd3's
	// store: that frame is not the watch cache's work.
	{"watch cache (kube-apiserver's cacher: its store, its watchers, the encoding of their events; not the writes it passes on to etcd)", []string{"k8s.io/apiserver/pkg/storage/cacher."}, []string{"k8s.io/apiserver/pkg/storage/cacher.(*CacheDelegator)."}},
	{"client-go informers and workqueue", []string{"k8s.io/client-go/tools/cache.", "k8s.io/client-go/util/workqueue."}, nil},
	{"the operator's reconciles", []string{"github.com/example/foo-operator/controllers.(*FooReconciler)."}, nil},
	{"the operator's metrics endpoint (the benchmark reads its workqueue depth every 2s while profiling)", []string{"github.com/prometheus/client_golang/prometheus/promhttp."}, nil},
	{"validation of custom resources (the Foos: their CRD's schema and CEL rules)", []string{"k8s.io/apiextensions-apiserver/pkg/apiserver/validation.", "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel."}, nil},
	{"the operator's events (client-go's event recorder)", []string{"k8s.io/client-go/tools/events."}, nil},
	{"writes of the Foos' status (their status subresource)", []string{"k8s.io/apiextensions-apiserver/pkg/registry/customresource.(*StatusREST).Update"}, nil},
	{"writes of the status of Deployments, ReplicaSets and Pods (kube-controller-manager's, kwok's)", []string{
		"k8s.io/kubernetes/pkg/registry/apps/deployment/storage.(*StatusREST).Update",
		"k8s.io/kubernetes/pkg/registry/apps/replicaset/storage.(*StatusREST).Update",
		"k8s.io/kubernetes/pkg/registry/core/pod/storage.(*StatusREST).Update",
	}, nil},
	{"creates of built-in objects (Deployments, events, ReplicaSets, Pods, bindings)", []string{"k8s.io/apiserver/pkg/endpoints/handlers.CreateResource.", "k8s.io/apiserver/pkg/endpoints/handlers.CreateNamedResource."}, nil},
}

// cpuShare is the CPU time of a function or of a group of cpuGroups.
type cpuShare struct {
	name string
	cpu  time.Duration
}

// cpuFigures are what the report shows of a CPU profile: the time it covered, the CPU time
// it sampled, the functions that used the most CPU themselves (flat), and each of cpuGroups.
type cpuFigures struct {
	took, cpu time.Duration
	top       []cpuShare
	groups    []cpuShare
}

// topFunctions is how many functions the report lists of a CPU profile.
const topFunctions = 10

// analyse computes the cpuFigures of a CPU profile.
func analyse(p *profile.Profile) (cpuFigures, error) {
	v := slices.IndexFunc(p.SampleType, func(t *profile.ValueType) bool { return t.Type == "cpu" })
	if v < 0 {
		return cpuFigures{}, fmt.Errorf("the CPU profile has no cpu samples")
	}
	f := cpuFigures{took: time.Duration(p.DurationNanos), groups: make([]cpuShare, len(cpuGroups))}
	for i, g := range cpuGroups {
		f.groups[i].name = g.name
	}
	flat := map[string]time.Duration{}
	for _, s := range p.Sample {
		d := time.Duration(s.Value[v])
		f.cpu += d
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 && s.Location[0].Line[0].Function != nil {
			// The first line of the first location is the innermost function, inlined or not.
			flat[s.Location[0].Line[0].Function.Name] += d
		}
		for i, g := range cpuGroups {
			if onStack(s, g.prefixes, g.except) {
				f.groups[i].cpu += d
			}
		}
	}
	for name, d := range flat {
		f.top = append(f.top, cpuShare{name, d})
	}
	slices.SortFunc(f.top, func(a, b cpuShare) int { return cmp.Or(cmp.Compare(b.cpu, a.cpu), cmp.Compare(a.name, b.name)) })
	f.top = f.top[:min(topFunctions, len(f.top))]
	return f, nil
}

// onStack reports whether a function whose name starts with one of prefixes, and with
// none of except, is on the sample's stack.
func onStack(s *profile.Sample, prefixes, except []string) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && startsWithAny(line.Function.Name, prefixes) && !startsWithAny(line.Function.Name, except) {
				return true
			}
		}
	}
	return false
}

// startsWithAny reports whether name starts with one of prefixes.
func startsWithAny(name string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(prefix string) bool { return strings.HasPrefix(name, prefix) })
}

// The phases whose CPU the profiled runs profile (result.profiles), from the benchmark's
// first request of the phase until the last Foo (or Deployment) is where it waits for.
const (
	converging = iota
	scaling
	settingBack
	profiledPhases
)

// phaseNames are what the report calls each profiled phase.
var phaseNames = [profiledPhases]string{
	converging:  "the whole convergence, from before the first Foo was created until all were ready",
	scaling:     "the scale of every Foo 1 → 2 (B9), from before the first Foo was scaled until all reported 2 available",
	settingBack: "the setting back of every drifted Deployment (B8), from before the first was scaled to 3 until all asked for 2 again",
}

// phaseProfile are the CPU profiles of one phase: the operator's (empty for the other
// contenders, which serve none) and its cluster's kube-apiserver's.
type phaseProfile struct {
	operator, apiserver cpuFigures
}

// keptProfiles is the directory (-profile-dir) where profilePhase keeps the CPU profiles it
// merged, for go tool pprof; none when empty.
var keptProfiles string

// phaseFiles are what the kept profiles' file names call each profiled phase.
var phaseFiles = [profiledPhases]string{converging: "converging", scaling: "scaling", settingBack: "setting-back"}

// profilePhase profiles, from now until done is closed, the CPU of kube-apiserver and,
// for the operator, of the operator; wait returns their figures. With keptProfiles it keeps
// each profile there as <kept>-<process>.pb.gz.
func profilePhase(c contender, cl *cluster, kept string, done <-chan struct{}) (wait func() (phaseProfile, error)) {
	type result struct {
		f   cpuFigures
		err error
	}
	run := func(name string, get func(int) ([]byte, error)) <-chan result {
		out := make(chan result, 1)
		go func() {
			p, err := profileUntil(done, get)
			if err == nil && kept != "" {
				err = writeProfile(p, kept+"-"+name+".pb.gz")
			}
			if err != nil {
				out <- result{err: fmt.Errorf("CPU profile of %s: %w", name, err)}
				return
			}
			f, err := analyse(p)
			out <- result{f, err}
		}()
		return out
	}
	apiserver := run("kube-apiserver", cl.apiserverCPUProfile)
	var operator <-chan result
	if c.scraped {
		operator = run("operator", operatorCPUProfile)
	}
	return func() (phaseProfile, error) {
		a := <-apiserver
		if operator == nil {
			return phaseProfile{apiserver: a.f}, a.err
		}
		o := <-operator
		return phaseProfile{operator: o.f, apiserver: a.f}, firstErr(o.err, a.err)
	}
}

// profiling profiles phase of r when r is profiled, from now until the returned end is
// called, which stores the figures in r.profiles (and does nothing for a run not profiled).
func (u *run) profiling(r *result, phase int) (end func() error) {
	if !r.profiled {
		return func() error { return nil }
	}
	done := make(chan struct{})
	var kept string
	if keptProfiles != "" {
		kept = filepath.Join(keptProfiles, strings.Join([]string{strings.ReplaceAll(u.c.name, " ", "-"),
			strings.ReplaceAll(u.l.String(), "/", "-"), strconv.Itoa(u.n), phaseFiles[phase]}, "-"))
	}
	wait := profilePhase(u.c, u.cl, kept, done)
	return func() error {
		close(done)
		var err error
		r.profiles[phase], err = wait()
		return err
	}
}
