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

// Command bench measures the operator side by side with kubernetes/sample-controller and a
// bare client (the least work that converges Foos), each on a fresh local cluster (kwok,
// hack/local-cluster.sh) whose kube-apiserver writes an audit log of every request. Every
// contender of a configuration runs under the same client limits and at the same time as the
// others; unthrottled and at equal limits, where they wait on the CPU, the operator and the
// bare client are each pinned to CPUs of its own (so make bench needs two CPUs at least), but
// at the numbers of Foos of -one-at-a-time-n, which they run one after the other on all CPUs;
// each figure is the median of -repeats runs (-repeats-at: as many as it says at the numbers
// of Foos it names), the repeats interleaved. CPU profiles and the
// operator's workqueue depth are taken at the numbers of Foos of -profile-n only, in the last
// repeat, since they add to the operator's memory: with more than one repeat, the memory
// after convergence is of the others. It fails when a contender sent more requests than its client limits let
// through. Run it with `make bench` (100 and 2,000 Foos) and `make bench-large` (10,000 and
// the idle window), on a working tree that is its commit (-dirty for a development run, whose
// report goes to -out).
//
//	bench [-n 100,2000,10000] [-limited-n 100] [-equal-limits 50/100] [-equal-limits-n 2000] [-repeats 3] [-repeats-at N=R,...] [-idle 10m] [-idle-n 10000] [-contenders operator,sample-controller,bare-client] [-profile-n 2000,10000] [-manager bin/manager] [-workers N] [-foos-per-namespace 1000] [-profile-dir DIR] [-dirty] [-out docs/benchmarks.md]
//	bench bare-client -kubeconfig FILE [-qps Q -burst B]   # the bare client contender, run by bench as a process
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// configuration is a set of contenders measured under the same client limits.
type configuration struct {
	limits     limits
	contenders []string
	ns         []int
	// pinned runs each contender with its cluster on CPUs of its own (cpuShares): where the
	// CPU is what they wait on, they then share the machine's speed of the moment and not
	// its CPUs. Unpinned, they share all CPUs: at 5 requests per second they wait on their
	// client limits, not on the CPU.
	pinned bool
}

// defaultOut is where make bench writes its report, and recordOuts are the reports of record
// (make bench's and make bench-large's), which a -dirty run may not write.
const defaultOut = "docs/benchmarks.md"

var recordOuts = []string{defaultOut, "docs/benchmarks-large.md"}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bare-client" {
		if err := runBareClient(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "Error:", err)
			os.Exit(1)
		}
		return
	}
	sizes := flag.String("n", "100,2000,10000", "comma-separated numbers of Foos, unthrottled")
	limitedSizes := flag.String("limited-n", "100", "comma-separated numbers of Foos at sample-controller's client limits (5/10), all contenders side by side; empty for none")
	equalLimits := flag.String("equal-limits", "50/100", "qps/burst of the configuration in which the operator and the bare client run under the same client limits")
	equalSizes := flag.String("equal-limits-n", "2000", "comma-separated numbers of Foos at -equal-limits; empty for none")
	repeats := flag.Int("repeats", 3, "runs of each contender, configuration and number of Foos")
	repeatsAtList := flag.String("repeats-at", "", "comma-separated N=R: R runs instead of -repeats at N Foos, in every configuration (cheap numbers of Foos, whose figures differ between single runs by as much as the targets' margins)")
	idle := flag.Duration("idle", 10*time.Minute, "how long the idle scenario watches a converged cluster")
	idleSizes := flag.String("idle-n", "", "comma-separated numbers of Foos at which the idle scenario runs (default: the largest of -n)")
	oneAtATimeSizes := flag.String("one-at-a-time-n", "10000", "comma-separated numbers of Foos at which the operator and the bare client run one after the other on all CPUs, not side by side on half of them each (on two CPUs, 10,000 Foos on one each would take hours); empty for none")
	profileSizes := flag.String("profile-n", "2000,10000", "comma-separated numbers of Foos at which the convergence, the scale and the setting back are profiled (the operator's and kube-apiserver's CPU; the operator's workqueue depth while converging), in the last repeat; empty for none")
	names := flag.String("contenders", "operator,sample-controller,bare-client", "comma-separated contenders")
	flag.StringVar(&manager, "manager", manager, "the operator's executable, named manager")
	flag.IntVar(&unrelatedObjects, "unrelated", unrelatedObjects, "how many Deployments, and how many ConfigMaps, B7 adds in a namespace of their own before it restarts the contender")
	flag.IntVar(&foosPerNamespace, "foos-per-namespace", foosPerNamespace, "how many Foos share a namespace (within Kubernetes' scalability thresholds of 2,000 Deployments and 3,000 pods per namespace)")
	flag.IntVar(&workers, "workers", 0, "how many Foos the operator and the bare client work on at once (default: the operator's shipped --max-concurrent-reconciles)")
	flag.StringVar(&keptProfiles, "profile-dir", "", "a directory where the profiled runs keep their CPU profiles (the operator's and kube-apiserver's, of each phase), named <contender>-<client limits>-<Foos>-<phase>-<process>.pb.gz; none when empty")
	dirty := flag.Bool("dirty", false, "run on a working tree that differs from its commit: a development run, whose report says so and goes to -out, not "+strings.Join(recordOuts, " or "))
	out := flag.String("out", defaultOut, "the Markdown report (its plot is written beside it)")
	flag.Parse()

	if foosPerNamespace < 1 {
		check(fmt.Errorf("-foos-per-namespace %d: want at least 1", foosPerNamespace))
	}
	ns, err := numbers(*sizes)
	check(err)
	limitedNs, err := numbers(*limitedSizes)
	check(err)
	equal, err := parseLimits(*equalLimits)
	check(err)
	equalNs, err := numbers(*equalSizes)
	check(err)
	idleNs, err := numbers(*idleSizes)
	check(err)
	profileNs, err := numbers(*profileSizes)
	check(err)
	oneAtATimeNs, err := numbers(*oneAtATimeSizes)
	check(err)
	repeatsAt, err := parseRepeats(*repeatsAtList, *repeats)
	check(err)
	if *idleSizes == "" && len(ns) > 0 {
		idleNs = []int{slices.Max(ns)}
	}
	var chosen []string
	for _, name := range strings.Split(*names, ",") {
		name = strings.TrimSpace(name)
		if _, ok := contenders[name]; !ok {
			check(fmt.Errorf("unknown contender %q", name))
		}
		chosen = append(chosen, name)
	}
	run, err := newRunFacts() // before the runs: the commit measured
	check(err)
	switch {
	case run.dirty && !*dirty:
		check(fmt.Errorf("the working tree differs from commit %s (git status --porcelain): commit first, or pass -dirty for a development run", run.commit))
	case *dirty && slices.Contains(recordOuts, filepath.Clean(*out)):
		check(fmt.Errorf("a -dirty run is not the benchmark of record: give it an -out other than %s", strings.Join(recordOuts, " or ")))
	}
	if keptProfiles != "" { // made now, not after the first profiled run's minutes
		check(os.MkdirAll(keptProfiles, 0o755))
	}
	run.shipped, err = shippedLimits()
	check(err)
	if workers == 0 {
		workers, err = shippedWorkers()
		check(err)
	}
	// sample-controller has no flag for its client limits: it runs only at client-go's.
	others := slices.DeleteFunc(slices.Clone(chosen), func(name string) bool { return name == sampleControllerName })
	configs := []configuration{
		{limits: clientGoDefaults, contenders: chosen, ns: limitedNs},
		{limits: limits{qps: -1, burst: 30}, contenders: others, ns: ns, pinned: true},
		{limits: equal, contenders: others, ns: equalNs, pinned: true},
	}

	var runs []result
	for repeat := 1; repeat <= repeatsAt.most(); repeat++ {
		for _, config := range configs {
			for _, n := range config.ns {
				of := repeatsAt.at(n)
				if repeat > of {
					continue
				}
				progress("repeat %d of %d: %v, %d Foos", repeat, of, config.limits, n)
				idleFor := time.Duration(0)
				if slices.Contains(idleNs, n) {
					idleFor = *idle
				}
				profiled := repeat == of && slices.Contains(profileNs, n)
				measureAll := measureSideBySide
				if config.pinned && slices.Contains(oneAtATimeNs, n) {
					measureAll = measureOneAtATime
				}
				rs, err := measureAll(config, n, repeat, idleFor, profiled)
				check(err)
				runs = append(runs, rs...)
			}
		}
	}
	run.took = time.Since(run.began)
	check(report(runs, run, *out))
	check(verifyLimits(runs))
}

// verifyLimits writes each limited run's peak requests to standard error, beside the
// windows nearest the bound of its client limits, and fails when any passed its bound.
func verifyLimits(runs []result) error {
	var over []string
	for _, r := range runs {
		if !r.limits.limited() {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s (%v, %d token buckets), %d Foos: most rate-limited requests (all but watches) within %v: %v; the windows nearest their bounds: %v\n", r.contender, r.limits, r.buckets, r.n, rateWindows, r.peaks, r.nearest)
		for i, win := range r.nearest {
			if win.over() {
				over = append(over, fmt.Sprintf("%s (%v), %d Foos: within %v, %v (%s)", r.contender, r.limits, r.n, rateWindows[i], win, r.busiest[i]))
			}
		}
	}
	if len(over) > 0 {
		return fmt.Errorf("client limits exceeded:\n%s", strings.Join(over, "\n"))
	}
	return nil
}

// measureSideBySide measures the contenders of config with n Foos side by side, each on its
// own cluster (pinned: the i-th contender of a repeat on the i-th share of the CPUs, in turn
// with the repeats), profiling their convergence when profiled, with a machine check before
// and after them. Each creates its Foos once all have started their workers, not while
// another's cluster starts; one that fails before counts as ready.
func measureSideBySide(config configuration, n int, repeat int, idle time.Duration, profiled bool) ([]result, error) {
	rs := make([]result, len(config.contenders))
	errs := make([]error, len(config.contenders))
	shares := make([][]int, len(config.contenders))
	if config.pinned && len(config.contenders) > 0 {
		var err error
		if shares, err = cpuShares(len(config.contenders)); err != nil {
			return nil, err
		}
	}
	var ready, wg sync.WaitGroup
	ready.Add(len(config.contenders))
	before := machineCheck()
	for i, name := range config.contenders {
		arrived := sync.OnceFunc(ready.Done)
		h := how{idle: idle, profiled: profiled, cpus: shares[(i+repeat-1)%len(shares)], ready: func() { arrived(); ready.Wait() }}
		wg.Go(func() {
			defer arrived()
			if rs[i], errs[i] = measure(contenders[name], config.limits, n, h); errs[i] != nil {
				errs[i] = fmt.Errorf("%s (%v), %d Foos: %w", name, config.limits, n, errs[i])
			}
		})
	}
	wg.Wait()
	after := machineCheck()
	for i := range rs {
		rs[i].machine = [2]time.Duration{before, after}
	}
	return rs, errors.Join(errs...)
}

// measureOneAtATime measures the contenders of config with n Foos one after the other, each
// on its own cluster and all CPUs, profiling their convergence when profiled, with a machine
// check between the runs.
func measureOneAtATime(config configuration, n int, _ int, idle time.Duration, profiled bool) ([]result, error) {
	rs := make([]result, len(config.contenders))
	errs := make([]error, len(config.contenders))
	before := machineCheck()
	for i, name := range config.contenders {
		if rs[i], errs[i] = measure(contenders[name], config.limits, n, how{idle: idle, profiled: profiled, ready: func() {}}); errs[i] != nil {
			errs[i] = fmt.Errorf("%s (%v), %d Foos: %w", name, config.limits, n, errs[i])
		}
		after := machineCheck()
		rs[i].machine = [2]time.Duration{before, after}
		before = after
	}
	return rs, errors.Join(errs...)
}

// numbers parses a comma-separated list of positive numbers; empty for none.
func numbers(list string) ([]int, error) {
	var ns []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q: want positive numbers", list)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// repeatCounts is how many runs the benchmark makes at each number of Foos: def, but where
// the list (N=R, comma-separated) says otherwise.
type repeatCounts struct {
	def int
	byN map[int]int
}

func parseRepeats(list string, def int) (repeatCounts, error) {
	rc := repeatCounts{def: def, byN: map[int]int{}}
	if def <= 0 {
		return rc, fmt.Errorf("-repeats %d: want a positive number", def)
	}
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, r, ok := strings.Cut(s, "=")
		ns, errN := strconv.Atoi(n)
		rs, errR := strconv.Atoi(r)
		if !ok || errN != nil || errR != nil || ns <= 0 || rs <= 0 {
			return rc, fmt.Errorf("%q: want N=R, both positive, comma-separated", list)
		}
		rc.byN[ns] = rs
	}
	return rc, nil
}

// at is how many runs to make at n Foos.
func (rc repeatCounts) at(n int) int {
	if r, ok := rc.byN[n]; ok {
		return r
	}
	return rc.def
}

// most is the most runs made at any number of Foos.
func (rc repeatCounts) most() int {
	most := rc.def
	for _, r := range rc.byN {
		most = max(most, r)
	}
	return most
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

// progress prints what the benchmark is doing, with the time.
func progress(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
