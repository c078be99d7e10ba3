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
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/example/foo-operator/test/framework"
)

// readingGuide says what the figures are, and where the operator's differ from the bare client's.
var readingGuide = `How to read it:

- Each cell is the median of the repeats, with the lowest and highest in brackets.
- A time target divides the operator's time by the bare client's in each repeat, whose two
  runs met the same machine, and takes the median of these ratios: the machine's speed moves
  between repeats by more than the differences measured, and the two contenders' medians can
  come from different repeats. Each repeat's ratio is given beside it.
- Requests are every request the contender sent, as kube-apiserver's audit log records them
  (a watch counts when it starts): reads (get, list, watch) and writes, by verb and resource.
  Idle requests include the operator's Lease renewals (leader election) and the TokenReview and
  SubjectAccessReview with which its metrics endpoint checks a scrape every 30 s (each cached
  by the endpoint for 1 and 5 minutes); they are divided by the idle window as measured, and
  the idle scenario runs only at the numbers of Foos of ` + "`-idle-n`" + `. A phase's requests
  are counted until no Event was written in the Foos' namespaces for 3 s (a third watch of the
  benchmark's, on the Events), and the next phase begins only then: the events a contender
  sends after its Foos are ready (the operator's, when its client limit binds) count in the
  phase that caused them. The "until the last event" rows give how long they took.
- The operator runs as config/manager ships it: leader election, the authenticated HTTPS metrics
  endpoint, the memory limit it derives its Go soft limit from; only its client limits change
  with the configuration ("shipped" marks the limits its --help gives as its defaults). It
  serves Go's profiles (--pprof-bind-address, off as shipped) only in the profiled runs and
  the heap profile's restart.
  sample-controller has no flag for its client limits: it appears only at client-go's defaults
  (5 requests per second, bursts of 10).
- Client limits are checked, not assumed: a token bucket of qps Q and burst B lets through at
  most B + Q·w requests in any window of w. The requests of each contender's in every window
  of 1 s and of 10 s (sliding over the audit log's receipt times, within each of its processes)
  must stay within that bound times its token buckets, plus, per bucket, one request for the
  token on the window's edge and Q·P, where P is the longest pause between two of its
  receipts into the window or within it: the server stamps a request when it reads it, and
  one that got no CPU for P reads what was sent meanwhile at once. The benchmark fails
  otherwise, and gives for each the window that came nearest its bound.
  Watches are not counted there: client-go sends them without waiting on the bucket.
  The operator and the bare client have one bucket that all their clients share.
  sample-controller has three: its rest.Config leaves QPS at 0, so client-go gives each API
  group's client a bucket of its defaults, and it uses three groups (apps/v1 for its
  Deployments, core/v1 for its events, samplecontroller.k8s.io for its Foos): its bound is three
  times one bucket's.
- Per-Foo times (p50, p99) are from a watch on the Foos and one on the Deployments, begun before
  the first Foo is created: from the moment the benchmark's request that created (or scaled)
  the Foo returned until the watch saw its status.availableReplicas equal its spec.replicas;
  for a drift, from the benchmark's change of the Deployment until the watch saw the Deployment
  ask for its Foo's replicas again. The phase times (converge, scale, set back) are until the
  last of them, from before the benchmark's first request. The contender's part of a phase is
  until the watch saw every Deployment ask for its Foo's replicas: per Foo from the benchmark's
  request, and beside it the time until the last of the benchmark's own requests (16 at a
  time) returned: the contender cannot act on a Foo before the benchmark's request for it.
- CPU per 1,000 Foos is the contender's utime + stime (/proc/PID/stat) from the first Foo created
  until the last was ready, per 1,000 Foos. Peak RSS is the highest VmHWM of its processes
  (read before each is stopped) but the heap profile's restart.
- The CPU of the cluster while converging (B1), scaling (B9) and setting back (B8) is the
  utime + stime of each process of the contender's cluster (by kwokctl's pid files) and of the
  contender over the phase, and the idle time of the CPUs they ran on (/proc/stat: idle and I/O
  wait) and the time those CPUs served interrupts (hard and soft: the disk's completions, the
  network's), against the phase's length times those CPUs. Where they are hardly ever idle, the
  phase took as long as the CPU its processes needed, whoever of them needed it, and the time
  spent on interrupts was not theirs (on a machine that sends all of its disk's interrupts to
  one CPU, the contender pinned to that one serves them for both).
- The writes of the cluster's components (kube-controller-manager, kube-scheduler, kwok) in each
  phase, from the audit log, are the work the contender's writes made for its cluster: where
  they are the same for two contenders and one's cluster used more CPU, each write cost it more.
- kube-apiserver's figures are of the contender's own cluster, so of all its clients: the
  contender, kube-controller-manager, the scheduler, kwok and the benchmark (whose three watches
  count among the open watches). Latencies are the p99 of apiserver_request_duration_seconds
  between a scrape before the Foos were created and one once they were ready (histogram_quantile,
  linear within a bucket), by verb, of requests for resources (not /metrics nor /debug/pprof)
  other than the long-running WATCH and CONNECT.
- kube-controller-manager's workqueues are those of its Deployment and ReplicaSet controllers,
  which roll out every contender's Deployments alike (client-go's workqueue metrics, from its
  /metrics before the phase and once it ended): the syncs per Foo, how long a key waited in the
  queue and how long a sync took. Where a phase waits on the cluster rather than on the
  contender, they show it.
- The bare client is the lower bound: the same work (the operator's Deployment for each Foo,
  its pod template included, its replicas, the Foo's availableReplicas), the same client limits,
  as many workers and the same cache scope as the operator, and nothing else. What the operator does beyond it shows in the difference: an event
  for each change it makes to a Deployment (sent one at a time once no Foo waits for its
  workers and, under a client limit, with tokens none of its other requests could use, its
  bucket being full; dropped past 1000 waiting); status conditions (Ready, Progressing) and
  observedGeneration, written with availableReplicas, and the steps of rollouts that take longer
  than ` + "`--progress-report-delay`" + ` (15 s), but for scales of Ready Foos and for the Foos of a mass rollout (more Foos that are not Ready waiting on rollouts at once than ` + "`--progress-report-max-rollouts`" + `); leader election (a Lease renewal every 2 s while idle); the
  metrics endpoint's authentication; and a read of the stored Deployment when another writer
  took one of its fields (B8), whose managedFields say who (its cache keeps only its own).
- Memory: the anonymous part is what the process allocated; the rest of the RSS are pages of its
  executable (B6 gives its size). The operator's Go figures are its own go_memstats metrics, and
  its heap profile, by what holds it, after the tables.
- The profiles of "where the time goes" (CPU profiles of the operator and of kube-apiserver
  while the Foos converge, scale and are set back, and the operator's workqueue depth while
  they converge, read from its metrics every ` + depthSampleInterval.String() + `) are taken
  only at the numbers of Foos of ` + "`-profile-n`" + `, in the last repeat, of every contender
  alike. They add to the CPU of the phases they cover (kube-apiserver's profiling for every
  contender alike, the operator's own for the operator). They add to the operator's memory,
  and the other contenders have no such endpoints:
  at those numbers of Foos the memory after convergence, the peak RSS and the Go runtime's
  figures are the medians of the other repeats, or of the profiled run when there is only one
  (the cells say "profiled").

`

// runFacts describe a run of the benchmark: the machine, the commit, the operator's shipped
// client limits, when and how long.
type runFacts struct {
	machine, commit string
	// dirty: the working tree differed from the commit (a -dirty development run).
	dirty   bool
	shipped limits
	began   time.Time
	took    time.Duration
}

// newRunFacts describes the machine and the commit measured, and whether the working tree
// differs from it.
func newRunFacts() (runFacts, error) {
	facts := []string{fmt.Sprintf("%d CPUs", runtime.NumCPU()), runtime.Version()}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		first, _, _ := strings.Cut(string(raw), "\n")
		facts = append(facts, strings.Join(strings.Fields(first), " "))
	}
	run := runFacts{machine: strings.Join(facts, ", "), began: time.Now()}
	commit, err := exec.Command("git", "-C", framework.Root(), "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return run, fmt.Errorf("git rev-parse: %w", err)
	}
	status, err := exec.Command("git", "-C", framework.Root(), "status", "--porcelain").Output()
	if err != nil {
		return run, fmt.Errorf("git status: %w", err)
	}
	run.commit, run.dirty = strings.TrimSpace(string(commit)), len(status) > 0
	return run, nil
}

// group is the runs of one configuration and number of Foos, by contender in run order.
type group struct {
	limits limits
	n      int
	names  []string
	runs   map[string][]result
}

func groups(runs []result) []*group {
	var out []*group
	for _, r := range runs {
		i := slices.IndexFunc(out, func(g *group) bool { return g.limits == r.limits && g.n == r.n })
		if i < 0 {
			out = append(out, &group{limits: r.limits, n: r.n, runs: map[string][]result{}})
			i = len(out) - 1
		}
		g := out[i]
		if _, ok := g.runs[r.contender]; !ok {
			g.names = append(g.names, r.contender)
		}
		g.runs[r.contender] = append(g.runs[r.contender], r)
	}
	return out
}

// report writes the Markdown tables of runs to path, the plots beside it, and the tables to
// standard output.
func report(runs []result, run runFacts, path string) error {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	commit := "commit " + run.commit
	if run.dirty {
		b.WriteString("**A development run (`-dirty`) of a working tree that differs from commit " + run.commit + ": its figures are of no commit, and it is not the benchmark of record.**\n\n")
		commit += " (dirty: the working tree differs from it)"
	}
	fmt.Fprintf(&b, "Run of `bench` on %s: %s, %s. The run (`%s`) took %v.\n\n",
		run.began.UTC().Format("2006-01-02"), run.machine, commit, strings.Join(os.Args[1:], " "), run.took.Round(time.Minute))
	fastest, slowest := machineChecks(runs)
	fmt.Fprintf(&b, "The machine checks before and after each run, or each group of contenders run side by side (%s, with nothing of the benchmark running) took %v to %v (x%.2f): where a run's checks took longer than another's, the machine was slower then, and the two runs' figures do not compare; contenders side by side met the same machine.\n\n",
		machineCheckLabel, twoDigits(fastest), twoDigits(slowest), slowest.Seconds()/fastest.Seconds())
	fmt.Fprintf(&b, "Each contender runs on a fresh local cluster (kwok, one simulated node, the real kube-controller-manager with client limits of %d requests per second, bursts of %d, the same for all). ", controllerManagerQPS, 2*controllerManagerQPS)
	fmt.Fprintf(&b, "The Foos are in namespaces of at most %d each (foos-1, foos-2, ...): Kubernetes' scalability thresholds per namespace are 2,000 Deployments and 3,000 pods, and a drift set back has 3 pods per Foo. Each contender's Lease is in %s. ", foosPerNamespace, contenderNamespace)
	fmt.Fprintf(&b, "Each contender has started its workers before the first Foo is created. ")
	fmt.Fprintf(&b, "At sample-controller's client limits the contenders run at once on all CPUs: they wait on their client limits, not on the CPU. In the other configurations the operator and the bare client run at once, each with its cluster's processes and its own pinned to an equal share of the CPUs (the row \"CPUs\": the operator's are those that served the most interrupts since the machine started, so that a target it hits in a single run is not the CPUs' doing; the shares go round with the repeats, so that with an even number of them each contender has each share as often), but at the numbers of Foos of -one-at-a-time-n, which they run one after the other on all CPUs (the row says \"all\"; at 10,000 Foos, one CPU each would take hours on a machine of two), so that side by side both meet the machine's speed of the moment, which can drift over minutes by more than the differences measured (as docs/benchmark-history.md found), and neither runs on the other's CPUs (interrupts aside: B1, B9 and B8 give the time each contender's CPUs served them). The benchmark's own processes (it creates, scales and watches the Foos of both, and reads the operator's heap profile) run on all CPUs. ")
	fmt.Fprintf(&b, "The time from the contender's part (every Deployment asks for the Foo's replicas) to every Foo reporting them is the Deployment and ReplicaSet controllers'. ")
	fmt.Fprintf(&b, "The operator's shipped client limits (the defaults of its --kube-api-qps and --kube-api-burst) are %v.\n\n", run.shipped)
	fmt.Fprintf(&b, "![convergence time and RSS against the number of Foos](%s)\n\n", filepath.Base(plotPath(path)))
	b.WriteString(readingGuide)
	gs := groups(runs)
	targets(&b, gs, run.shipped)
	for _, g := range gs {
		table(&b, g)
	}
	slopes(&b, gs)
	whereTheTimeGoes(&b, gs)
	heapProfiles(&b, gs)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(b.String())
	return plotRuns(gs, plotPath(path))
}

// table writes the figures of one group.
func table(b *strings.Builder, g *group) {
	fmt.Fprintf(b, "## %d Foos, client limits %v\n\n| | %s |\n|---|%s\n", g.n, g.limits, strings.Join(g.names, " | "), strings.Repeat("---|", len(g.names)))
	line := func(label string, cell func(rs []result) string) {
		cells := make([]string, len(g.names))
		for i, name := range g.names {
			cells[i] = cell(g.runs[name])
		}
		fmt.Fprintf(b, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	duration := func(f func(r result) time.Duration) func([]result) string {
		return func(rs []result) string {
			return spread(rs, func(r result) float64 { return f(r).Seconds() }, func(v float64) string { return seconds(time.Duration(v * float64(time.Second))) })
		}
	}
	mib := func(f func(r result) int64) func([]result) string {
		return func(rs []result) string {
			return spread(rs, func(r result) float64 { return float64(f(r)) / (1 << 20) }, func(v float64) string { return fmt.Sprintf("%.1f MiB", v) })
		}
	}
	count := func(f func(r result) float64) func([]result) string {
		return func(rs []result) string {
			return spread(rs, f, func(v float64) string { return fmt.Sprintf("%.0f", v) })
		}
	}
	// perPhase is f while converging, scaling and setting back (profiledPhases' order), each
	// spread over the repeats as format gives it.
	perPhase := func(format string, f func(r result, phase int) float64) func([]result) string {
		return func(rs []result) string {
			cells := make([]string, profiledPhases)
			for phase := range profiledPhases {
				cells[phase] = spread(rs, func(r result) float64 { return f(r, phase) }, func(v float64) string { return fmt.Sprintf(format, v) })
			}
			return strings.Join(cells, " / ")
		}
	}
	pair := func(f func(r result) latencies) func([]result) string {
		return func(rs []result) string {
			return duration(func(r result) time.Duration { return f(r).p50 })(rs) + " / " + duration(func(r result) time.Duration { return f(r).p99 })(rs)
		}
	}
	short := func(f func(r result) time.Duration) func([]result) string {
		return func(rs []result) string {
			return spread(rs, func(r result) float64 { return f(r).Seconds() }, func(v float64) string { return twoDigits(time.Duration(v * float64(time.Second))).String() })
		}
	}
	// quantiles are the medians of a quantile, "or more" when a repeat's passed its
	// histogram's last bound.
	quantiles := func(f func(r result) quantileOf) func([]result) string {
		return func(rs []result) string {
			s := short(func(r result) time.Duration { return f(r).at })(rs)
			if slices.ContainsFunc(rs, func(r result) bool { return f(r).atLeast }) {
				s += " or more"
			}
			return s
		}
	}
	idle := func(cell func([]result) string) func([]result) string {
		return func(rs []result) string {
			if rs[0].idle == 0 {
				return "not measured at this size"
			}
			return cell(rs)
		}
	}
	// processes is the CPU time of each of the cluster's processes and the contender's in a
	// phase, and how much of the CPU time of the CPUs they ran on (the phase's length times
	// those CPUs) was idle, and how much went to interrupts: on CPUs without idle time, the
	// phase took as long as the CPU it needed, and what interrupts took was not its.
	processes := func(f func(r result) clusterCPU, phase func(r result) time.Duration) func([]result) string {
		return func(rs []result) string {
			names := slices.Sorted(maps.Keys(f(rs[0]).processes))
			cells := make([]string, 0, len(names))
			for _, name := range names {
				cells = append(cells, name+" "+duration(func(r result) time.Duration { return f(r).processes[name] })(rs))
			}
			whose := "its CPUs"
			if len(rs[0].cpus) == 0 {
				whose = "the machine's CPUs"
			}
			return strings.Join(cells, ", ") + "; " + whose + " idle " + duration(func(r result) time.Duration { return f(r).idle })(rs) +
				", serving interrupts " + duration(func(r result) time.Duration { return f(r).interrupts })(rs) +
				" of " + duration(func(r result) time.Duration { return phase(r) * time.Duration(cmp.Or(len(r.cpus), runtime.NumCPU())) })(rs)
		}
	}
	line("machine check before / after the run ("+machineCheckLabel+"; side by side, before and after them all)", func(rs []result) string {
		return short(func(r result) time.Duration { return r.machine[0] })(rs) + " / " + short(func(r result) time.Duration { return r.machine[1] })(rs)
	})
	line("CPUs of its cluster's processes and its own", func(rs []result) string {
		return perRepeat(rs, func(r result) string {
			if len(r.cpus) == 0 {
				return fmt.Sprintf("all %d", runtime.NumCPU())
			}
			return cpuList(r.cpus)
		})
	})
	line("B1 converge (all Foos report 1 available replica)", duration(func(r result) time.Duration { return r.converge }))
	line("B1 the contender's part (all Deployments created)", duration(func(r result) time.Duration { return r.convergeOwn }))
	line("B1 the benchmark's creates of the Foos (until the last returned)", duration(func(r result) time.Duration { return r.convergeWrites }))
	line("B1 each Foo's Deployment, from the Foo's create request until created: p50 / p99", pair(func(r result) latencies { return r.convergeOwnEach }))
	line("B1 each Foo, from its create request until it reports its replica available: p50 / p99", pair(func(r result) latencies { return r.convergeReady }))
	line("B1 until the last event written in the Foos' namespaces (the contender's and the cluster's)", duration(func(r result) time.Duration { return r.convergeEvents }))
	line("B1 CPU per 1,000 Foos while converging (utime + stime)", duration(func(r result) time.Duration { return r.convergeCPU() * 1000 / time.Duration(r.n) }))
	line("B1 CPU while converging (utime + stime) of the cluster's processes and the contender's, and the idle and interrupt time of the CPUs they ran on", processes(func(r result) clusterCPU { return r.convergeCluster }, func(r result) time.Duration { return r.converge }))
	line(fmt.Sprintf("most rate-limited requests (all but watches) in any window of %v / %v (sliding, each of its processes)", rateWindows[0], rateWindows[1]), func(rs []result) string {
		cells := make([]string, len(rateWindows))
		for i := range rateWindows {
			cells[i] = count(func(r result) float64 { return float64(r.peaks[i]) })(rs)
		}
		s := strings.Join(cells, " / ")
		if rs[0].limits.limited() {
			w := worstWindows(rs)
			s += fmt.Sprintf(" (the windows nearest their bounds: %v / %v; %d token bucket(s))", w[0], w[1], rs[0].buckets)
		}
		return s
	})
	line("B2 requests per Foo to converge", func(rs []result) string { return perFoo(rs, func(r result) map[string]int { return r.convergeReqs }) })
	line("B3 requests while idle, per minute (of the window measured)", idle(func(rs []result) string {
		return perMinute(rs, func(r result) map[string]int { return r.idleReqs })
	}))
	line("B3 idle window measured", idle(duration(func(r result) time.Duration { return r.idle })))
	line("B4 CPU while idle", idle(duration(func(r result) time.Duration { return r.idleCPU })))
	line("B4 passes over a Foo while idle (the operator's reconciles, the others' synced lines)", idle(count(func(r result) float64 { return float64(r.idlePasses) })))
	line("passes over a Foo per Foo while converging / scaling / setting back, each until the phase's last event (the operator's reconciles, the others' synced lines)",
		perPhase("%.2f", func(r result, phase int) float64 { return float64(r.passes[phase]) / float64(r.n) }))
	line("B5 restart: until a pass over every Foo", duration(func(r result) time.Duration { return r.restart }))
	line("B5 CPU of that restart", duration(func(r result) time.Duration { return r.restartCPU }))
	line("B5 requests per Foo after the restart", func(rs []result) string { return perFoo(rs, func(r result) map[string]int { return r.restartReqs }) })
	line("B6 RSS after convergence", unprofiledRuns(mib(func(r result) int64 { return r.mem.rss })))
	line("B6 anonymous memory after convergence", unprofiledRuns(mib(func(r result) int64 { return r.mem.anon })))
	line("B6 peak RSS (VmHWM, the highest of its processes over the run)", unprofiledRuns(mib(func(r result) int64 { return r.peakRSS })))
	line("B6 size of the executable (the RSS beyond the anonymous part are its pages)", mib(func(r result) int64 { return r.exe }))
	line("B6 the Go runtime's memory ("+goMemoryLabels()+"; go_memstats, from runtime/metrics, after convergence)", unprofiledRuns(func(rs []result) string {
		if rs[0].goMem == nil {
			return "(no metrics)"
		}
		cells := make([]string, len(goMetrics))
		for i, m := range goMetrics {
			cells[i] = spread(rs, func(r result) float64 { return r.goMem[m.name] / (1 << 20) }, func(v float64) string { return fmt.Sprintf("%.1f MiB", v) })
		}
		return strings.Join(cells, "; ")
	}))
	line("B6 RSS after the restart", mib(func(r result) int64 { return r.restartMem.rss }))
	line("B6 anonymous memory after the restart", mib(func(r result) int64 { return r.restartMem.anon }))
	line(fmt.Sprintf("B7 RSS after a restart with %d unrelated Deployments and ConfigMaps", unrelatedObjects), mib(func(r result) int64 { return r.unrelatedMem.rss }))
	line("B7 anonymous memory then", mib(func(r result) int64 { return r.unrelatedMem.anon }))
	line("B9 scale every Foo 1 → 2", duration(func(r result) time.Duration { return r.scale }))
	line("B9 the contender's part (all Deployments scaled)", duration(func(r result) time.Duration { return r.scaleOwn }))
	line("B9 the benchmark's scales of the Foos (until the last returned)", duration(func(r result) time.Duration { return r.scaleWrites }))
	line("B9 each Foo's Deployment, from the Foo's scale request until it asks for 2: p50 / p99", pair(func(r result) latencies { return r.scaleOwnEach }))
	line("B9 each Foo, from its scale request until it reports 2 available: p50 / p99", pair(func(r result) latencies { return r.scaleReady }))
	line("B9 until the last event written in the Foos' namespaces", duration(func(r result) time.Duration { return r.scaleEvents }))
	line("B9 CPU while scaling (utime + stime) of the cluster's processes and the contender's, and the idle and interrupt time of the CPUs they ran on", processes(func(r result) clusterCPU { return r.scaleCluster }, func(r result) time.Duration { return r.scale }))
	line("B9 requests per Foo to scale", func(rs []result) string { return perFoo(rs, func(r result) map[string]int { return r.scaleReqs }) })
	line("B8 someone scales every Deployment 2 → 3: time until all set back", duration(func(r result) time.Duration { return r.drift }))
	line("B8 each Deployment, from the change until set back: p50 / p99", pair(func(r result) latencies { return r.driftBack }))
	line("B8 until the last event written in the Foos' namespaces", duration(func(r result) time.Duration { return r.driftEvents }))
	line("B8 CPU while setting back (utime + stime) of the cluster's processes and the contender's, and the idle and interrupt time of the CPUs they ran on", processes(func(r result) clusterCPU { return r.driftCluster }, func(r result) time.Duration { return r.drift }))
	line("B8 corrective requests per Foo (until the Foos settle and the events are written)", func(rs []result) string { return perFoo(rs, func(r result) map[string]int { return r.driftReqs }) })
	for _, c := range components {
		line(c.name+"'s writes while converging / scaling / setting back", perPhase("%.0f", func(r result, phase int) float64 { return float64(r.componentWrites[phase][c.name]) }))
	}
	line("watches kube-apiserver closed for falling behind, from the first create until the drifts were set back (its cluster: all clients; apiserver_terminated_watchers_total)", func(rs []result) string {
		return perRepeat(rs, func(r result) string {
			if len(r.terminatedWatchers) == 0 {
				return "none"
			}
			parts := make([]string, 0, len(r.terminatedWatchers))
			for _, resource := range slices.Sorted(maps.Keys(r.terminatedWatchers)) {
				parts = append(parts, fmt.Sprintf("%s %d", resource, r.terminatedWatchers[resource]))
			}
			return strings.Join(parts, ", ")
		})
	})
	line("kwok's watches of pods begun while converging / scaling / setting back (each lasts 5 to 10 minutes; more: kube-apiserver closed some as kwok fell behind)", perPhase("%.0f", func(r result, phase int) float64 { return float64(r.kwokPodWatches[phase]) }))
	line("kube-apiserver p99 latency by verb while converging (its cluster: all clients)", func(rs []result) string {
		verbs := map[string]bool{}
		for _, r := range rs {
			for _, v := range r.apiserver {
				verbs[v.verb] = true
			}
		}
		cells := make([]string, 0, len(verbs))
		for _, verb := range slices.Sorted(maps.Keys(verbs)) {
			of := func(r result) verbLatency { // zero in a repeat without requests of verb
				if i := slices.IndexFunc(r.apiserver, func(v verbLatency) bool { return v.verb == verb }); i >= 0 {
					return r.apiserver[i]
				}
				return verbLatency{}
			}
			cells = append(cells, fmt.Sprintf("%s %s (%s requests)", verb,
				spread(rs, func(r result) float64 { return float64(of(r).p99.Microseconds()) / 1000 }, func(v float64) string { return fmt.Sprintf("%.0f ms", v) }),
				spread(rs, func(r result) float64 { return of(r).requests }, func(v float64) string { return fmt.Sprintf("%.0f", v) })))
		}
		return strings.Join(cells, ", ")
	})
	line("kube-apiserver open watches after convergence (its cluster: all clients)", count(func(r result) float64 { return float64(r.watches) }))
	line("workers (Foos worked on at once: the operator's controller_runtime_max_concurrent_reconciles, the others' logs)", count(func(r result) float64 { return float64(r.workers) }))
	line(fmt.Sprintf("workqueue while converging: deepest (sampled every %v, in the profiled run); a Foo's wait in it p50 / p99; a reconcile p50 / p99 (decade buckets: interpolated within a power of ten, so a figure says only its decade: one between 100 s and 1,000 s can exceed the phase)", depthSampleInterval), func(rs []result) string {
		if rs[0].goMem == nil {
			return "(no metrics)"
		}
		deepest := "not sampled"
		if profiled := whereProfiled(rs, true); len(profiled) > 0 {
			deepest = count(func(r result) float64 { return float64(r.queue.maxDepth) })(profiled)
		}
		return deepest + "; " +
			quantiles(func(r result) quantileOf { return r.queue.waitP50 })(rs) + " / " + quantiles(func(r result) quantileOf { return r.queue.waitP99 })(rs) + "; " +
			quantiles(func(r result) quantileOf { return r.queue.workP50 })(rs) + " / " + quantiles(func(r result) quantileOf { return r.queue.workP99 })(rs)
	})
	for phase, what := range []string{converging: "converging", scaling: "scaling"} {
		line("kube-controller-manager's Deployment and ReplicaSet controllers while "+what+" (its cluster: every contender's Deployments): syncs per Foo; a key's wait in the queue p50 / p99; a sync p50 / p99 (decade buckets: interpolated within a power of ten; the last is 10 s)", func(rs []result) string {
			cells := make([]string, 0, len(controllerQueues))
			for _, q := range controllerQueues {
				of := func(r result) queueFigures { return r.controllerQueues[phase][q] }
				cells = append(cells, fmt.Sprintf("%s %s; %s / %s; %s / %s", q,
					spread(rs, func(r result) float64 { return of(r).worked / float64(r.n) }, func(v float64) string { return fmt.Sprintf("%.2f", v) }),
					quantiles(func(r result) quantileOf { return of(r).waitP50 })(rs), quantiles(func(r result) quantileOf { return of(r).waitP99 })(rs),
					quantiles(func(r result) quantileOf { return of(r).workP50 })(rs), quantiles(func(r result) quantileOf { return of(r).workP99 })(rs)))
			}
			return strings.Join(cells, ", ")
		})
	}
	b.WriteString("\n")
}

// unprofiledRuns makes cell read only the runs whose convergence was not profiled
// (result.profiled), or all of them, marked so, when every run was.
func unprofiledRuns(cell func([]result) string) func([]result) string {
	return func(rs []result) string {
		u := unprofiled(rs)
		return cell(u) + profiledMark(u)
	}
}

// profiledMark marks figures of profiled runs.
func profiledMark(rs []result) string {
	if rs[0].profiled {
		return " (profiled)"
	}
	return ""
}

// unprofiled are the runs of rs whose convergence was not profiled, or rs when every one was.
func unprofiled(rs []result) []result {
	if out := whereProfiled(rs, false); len(out) > 0 {
		return out
	}
	return rs
}

// whereProfiled are the runs of rs whose result.profiled is profiled.
func whereProfiled(rs []result, profiled bool) []result {
	return slices.DeleteFunc(slices.Clone(rs), func(r result) bool { return r.profiled != profiled })
}

// pairedRatio is the median over the repeats of f of the operator's run divided by f of
// the bare client's run of the same repeat, and each repeat's ratio ("x1.08 / x1.14").
// The two runs of a repeat met the same machine (side by side, or one right after the
// other), whose speed moves between repeats by more than the differences measured; a ratio
// of the two contenders' medians can divide one repeat's time by another's.
func pairedRatio(ops, refs []result, f func(r result) float64) (median float64, each string) {
	ratios := make([]float64, min(len(ops), len(refs)))
	cells := make([]string, len(ratios))
	for i := range ratios {
		ratios[i] = f(ops[i]) / f(refs[i])
		cells[i] = fmt.Sprintf("x%.2f", ratios[i])
	}
	median, _, _ = stats(ratios)
	return median, strings.Join(cells, " / ")
}

// median, low and high of values.
func stats(values []float64) (median, low, high float64) {
	s := slices.Clone(values)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return m, s[0], s[len(s)-1]
}

func values(rs []result, f func(r result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func medianOf(rs []result, f func(r result) float64) float64 {
	m, _, _ := stats(values(rs, f))
	return m
}

// perRepeat is f of each of rs, in run order, when they differ: "0 / 1 / 0".
func perRepeat(rs []result, f func(r result) string) string {
	cells := make([]string, len(rs))
	for i, r := range rs {
		cells[i] = f(r)
	}
	if len(slices.Compact(slices.Clone(cells))) == 1 {
		return cells[0]
	}
	return strings.Join(cells, " / ")
}

// spread is the median of f over rs, and the lowest and highest in brackets.
func spread(rs []result, f func(r result) float64, format func(float64) string) string {
	m, low, high := stats(values(rs, f))
	if len(rs) == 1 {
		return format(m)
	}
	return fmt.Sprintf("%s [%s – %s]", format(m), format(low), format(high))
}

// perFoo is the requests per Foo: reads and writes, and each verb and resource, medians.
func perFoo(rs []result, f func(r result) map[string]int) string {
	return requests(rs, f, func(r result) float64 { return 1 / float64(r.n) }, func(v float64) string { return fmt.Sprintf("%.2f", v) })
}

// perMinute is the requests per minute of the idle scenario, each run's divided by the
// window it measured.
func perMinute(rs []result, f func(r result) map[string]int) string {
	return requests(rs, f, func(r result) float64 { return 1 / r.idle.Minutes() }, func(v float64) string { return fmt.Sprintf("%.1f", v) })
}

// requests formats the median total of requests, its spread, the reads and writes, and the
// median of each verb and resource, each run's counts multiplied by scale.
func requests(rs []result, f func(r result) map[string]int, scale func(r result) float64, format func(float64) string) string {
	keys := map[string]bool{}
	for _, r := range rs {
		for k := range f(r) {
			keys[k] = true
		}
	}
	sorted := slices.Sorted(maps.Keys(keys))
	parts := make([]string, 0, len(sorted))
	for _, k := range sorted {
		parts = append(parts, fmt.Sprintf("%s %s", k, format(medianOf(rs, func(r result) float64 { return float64(f(r)[k]) * scale(r) }))))
	}
	sum := func(keep func(string) bool) func(r result) float64 {
		return func(r result) float64 {
			t := 0
			for k, v := range f(r) {
				if keep(k) {
					t += v
				}
			}
			return float64(t) * scale(r)
		}
	}
	all := sum(func(string) bool { return true })
	reads := sum(isRead)
	writes := sum(func(k string) bool { return !isRead(k) })
	return fmt.Sprintf("**%s**: reads %s, writes %s (%s)", spread(rs, all, format),
		format(medianOf(rs, reads)), format(medianOf(rs, writes)), strings.Join(parts, ", "))
}

// recurring reports whether a "verb resource" key is of the requests that recur with time,
// not with Foos: the leader's Lease renewals, the metrics endpoint's TokenReviews and
// SubjectAccessReviews, and the watches client-go's informers start again every 5 to 10
// minutes.
func recurring(key string) bool {
	verb, resource, _ := strings.Cut(key, " ")
	if verb == verbWatch {
		return true
	}
	switch resource {
	case "coordination.k8s.io/leases", "authentication.k8s.io/tokenreviews", "authorization.k8s.io/subjectaccessreviews":
		return true
	}
	return false
}

// isRead reports whether a "verb resource" key is a read.
func isRead(key string) bool {
	verb, _, _ := strings.Cut(key, " ")
	return verb == "get" || verb == "list" || verb == verbWatch
}

func seconds(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// slopes writes each contender's memory per Foo in each configuration: the slope of the
// median RSS after convergence between the smallest and the largest number of Foos.
func slopes(b *strings.Builder, gs []*group) {
	header := false
	for _, first := range gs {
		for _, last := range gs {
			if last.limits != first.limits || last.n <= first.n || slices.ContainsFunc(gs, func(g *group) bool {
				return g.limits == first.limits && (g.n < first.n || g.n > last.n)
			}) {
				continue
			}
			for _, name := range first.names {
				if last.runs[name] == nil {
					continue
				}
				if !header {
					b.WriteString("## Memory per Foo (B6, the slope of the medians)\n\n| | client limits | RSS per Foo | anonymous memory per Foo | RSS at 0 Foos (extrapolated) | anonymous at 0 Foos |\n|---|---|---|---|---|---|\n")
					header = true
				}
				rss := func(g *group) float64 {
					return medianOf(unprofiled(g.runs[name]), func(r result) float64 { return float64(r.mem.rss) })
				}
				anon := func(g *group) float64 {
					return medianOf(unprofiled(g.runs[name]), func(r result) float64 { return float64(r.mem.anon) })
				}
				dn := float64(last.n - first.n)
				slope, anonSlope := (rss(last)-rss(first))/dn, (anon(last)-anon(first))/dn
				fmt.Fprintf(b, "| %s | %v | %.1f KiB | %.1f KiB | %.0f MiB | %.0f MiB |\n", name, first.limits, slope/1024, anonSlope/1024,
					(rss(first)-slope*float64(first.n))/(1<<20), (anon(first)-anonSlope*float64(first.n))/(1<<20))
			}
		}
	}
	if header {
		b.WriteString("\n")
	}
}

// targets writes where the operator stands against the targets of its design, from the
// medians: requests per Foo at most the bare client's and one, times at most 1.1 times the
// bare client's (the median of the repeats' ratios: pairedRatio), no gets or lists while
// idle, under the same limits; memory at or below
// sample-controller's in the shipped configuration; and every limited contender's
// requests within its client limits.
func targets(b *strings.Builder, gs []*group, shipped limits) {
	b.WriteString("## Targets\n\n| target | Foos | client limits | contender | measured | reference | |\n|---|---|---|---|---|---|---|\n")
	row := func(what string, g *group, name, measured, reference string, ok bool) {
		verdict := "hit"
		if !ok {
			verdict = "**missed**"
		}
		limits := g.limits.String()
		if g.limits.sameAs(shipped) {
			limits += " (shipped)"
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s |\n", what, g.n, limits, name, measured, reference, verdict)
	}
	median := func(g *group, name string, f func(r result) float64) float64 { return medianOf(g.runs[name], f) }
	for _, g := range gs {
		if g.runs["operator"] != nil && g.runs["bare client"] != nil {
			for _, phase := range []struct {
				what string
				f    func(r result) map[string]int
			}{
				{"converge", func(r result) map[string]int { return r.convergeReqs }},
				{"scale", func(r result) map[string]int { return r.scaleReqs }},
				{"set back a drift", func(r result) map[string]int { return r.driftReqs }},
			} {
				count := func(r result) float64 {
					t := 0
					for k, v := range phase.f(r) {
						if !recurring(k) {
							t += v
						}
					}
					return float64(t) / float64(r.n)
				}
				op, ref := median(g, "operator", count), median(g, "bare client", count)
				row("requests per Foo to "+phase.what+" at most the bare client's + 1 (without the Lease's, the metrics authentication's and the informers' watches, which recur with time: B3)",
					g, "operator", fmt.Sprintf("%.3f", op), fmt.Sprintf("%.3f + 1", ref), op <= ref+1)
			}
			for _, phase := range []struct {
				what string
				f    func(r result) time.Duration
			}{
				{"convergence (B1)", func(r result) time.Duration { return r.converge }},
				{"scaling every Foo (B9)", func(r result) time.Duration { return r.scale }},
				{"setting every drifted Deployment back (B8)", func(r result) time.Duration { return r.drift }},
			} {
				d := func(r result) float64 { return phase.f(r).Seconds() }
				op, ref := median(g, "operator", d), median(g, "bare client", d)
				ratio, each := pairedRatio(g.runs["operator"], g.runs["bare client"], d)
				row(phase.what+" within 1.1x the bare client's (the median of the repeats' ratios)", g, "operator", fmt.Sprintf("%.1f s", op),
					fmt.Sprintf("%.1f s; ratio x%.2f (each repeat: %s)", ref, ratio, each), ratio <= 1.1)
			}
			if g.runs["operator"][0].idle > 0 {
				reads := median(g, "operator", func(r result) float64 {
					t := 0
					for k, v := range r.idleReqs {
						// A watch's renewal (client-go's reflector ends each watch after 5 to 10
						// minutes and opens the next) is not a read of the objects.
						if isRead(k) && !strings.HasPrefix(k, "watch ") && (strings.HasSuffix(k, "/deployments") || strings.HasSuffix(k, "/foos")) {
							t += v
						}
					}
					return float64(t)
				})
				row("no gets or lists of Deployments or Foos while idle (watch renewals are not counted)", g, "operator", fmt.Sprintf("%.0f", reads), "0", reads == 0)
			}
		}
		if g.limits.sameAs(shipped) && g.runs["operator"] != nil {
			for _, sc := range gs {
				if sc.n != g.n || sc.runs["sample-controller"] == nil {
					continue
				}
				for _, m := range []struct {
					what string
					f    func(r result) float64
				}{
					{"RSS after convergence", func(r result) float64 { return float64(r.mem.rss) }},
					{"anonymous memory after convergence", func(r result) float64 { return float64(r.mem.anon) }},
					{"RSS after a restart", func(r result) float64 { return float64(r.restartMem.rss) }},
				} {
					ops, refs := unprofiled(g.runs["operator"]), unprofiled(sc.runs["sample-controller"])
					op, ref := medianOf(ops, m.f), medianOf(refs, m.f)
					row(fmt.Sprintf("%s at most sample-controller's (at its %v)", m.what, sc.limits), g, "operator",
						fmt.Sprintf("%.1f MiB%s", op/(1<<20), profiledMark(ops)), fmt.Sprintf("%.1f MiB%s", ref/(1<<20), profiledMark(refs)), op <= ref)
				}
			}
		}
		if g.limits.limited() {
			for _, name := range g.names {
				rs := g.runs[name]
				w := worstWindows(rs)
				row(fmt.Sprintf("rate-limited requests in every %v / %v window within the client limits (the window nearest its bound, every repeat)", rateWindows[0], rateWindows[1]), g, name,
					fmt.Sprintf("%d / %d", w[0].count, w[1].count),
					fmt.Sprintf("%d / %d (pauses of %v / %v; %d token bucket(s))", w[0].bound, w[1].bound, w[0].pause.Round(time.Millisecond), w[1].pause.Round(time.Millisecond), rs[0].buckets),
					!anyOver(w))
			}
		}
	}
	b.WriteString("\n")
}

// whereTheTimeGoes writes, for each configuration and number of Foos the operator ran at,
// its last repeat's workqueue while converging and its CPU profiles of each phase, beside
// kube-apiserver's profiles of each contender's cluster, when that repeat was profiled.
func whereTheTimeGoes(b *strings.Builder, gs []*group) {
	for _, g := range gs {
		rs := g.runs["operator"]
		if rs == nil || !rs[len(rs)-1].profiled {
			continue
		}
		op := rs[len(rs)-1]
		fmt.Fprintf(b, "## Where the time goes, %d Foos, client limits %v\n\n", g.n, g.limits)
		fmt.Fprintf(b, "The operator's last repeat: it converged %d Foos in %v with %d workers, using %v of CPU (%.2f cores on average). "+
			"Its workqueue was at most %d deep (sampled every %v); a Foo waited in it %v at the median and %v at p99, and a reconcile took %v and %v "+
			"(controller-runtime's workqueue histograms between a scrape before the Foos were created and one once they were ready; their buckets are powers of ten, so these are interpolated within a decade and say only the decade).\n\n",
			g.n, seconds(op.converge), op.workers, seconds(op.convergeCPU()), op.convergeCPU().Seconds()/op.converge.Seconds(),
			op.queue.maxDepth, depthSampleInterval, op.queue.waitP50, op.queue.waitP99, op.queue.workP50, op.queue.workP99)
		for phase := range profiledPhases {
			cpuProfiles(b, g, op, phase)
		}
	}
}

// cpuProfiles writes the CPU profiles of phase in the last repeat of g's contenders, op
// being the operator's: the groups of cpuGroups in the operator and in each contender's
// kube-apiserver, and the functions that used the most CPU in the operator and in its
// kube-apiserver.
func cpuProfiles(b *strings.Builder, g *group, op result, phase int) {
	fmt.Fprintf(b, "CPU profiles of %s, in slices of %v: "+
		"each cell is the CPU time of the samples with a function of the group on the stack, and its share of the profile's (a sample may count in several groups).\n\n", phaseNames[phase], cpuProfileSlice)
	type column struct {
		name string
		f    cpuFigures
	}
	columns := []column{{"operator", op.profiles[phase].operator}}
	for _, name := range g.names {
		if runs := g.runs[name]; len(runs) > 0 {
			columns = append(columns, column{"kube-apiserver of the " + name + "'s cluster", runs[len(runs)-1].profiles[phase].apiserver})
		}
	}
	fmt.Fprintf(b, "| |")
	for _, c := range columns {
		fmt.Fprintf(b, " %s |", c.name)
	}
	fmt.Fprintf(b, "\n|---|%s\n| profiled (CPU sampled) |", strings.Repeat("---|", len(columns)))
	for _, c := range columns {
		fmt.Fprintf(b, " %v (%v) |", seconds(c.f.took), twoDigits(c.f.cpu))
	}
	b.WriteString("\n")
	for i, group := range cpuGroups {
		fmt.Fprintf(b, "| %s |", group.name)
		for _, c := range columns {
			fmt.Fprintf(b, " %s |", share(c.f.groups[i].cpu, c.f.cpu))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, c := range []column{columns[0], {"kube-apiserver of the operator's cluster", op.profiles[phase].apiserver}} {
		fmt.Fprintf(b, "The %d functions of the %s that used the most CPU themselves (flat):\n\n```\n", topFunctions, c.name)
		for _, f := range c.f.top {
			fmt.Fprintf(b, "%8v %4.0f %%  %s\n", twoDigits(f.cpu), 100*f.cpu.Seconds()/c.f.cpu.Seconds(), f.name)
		}
		b.WriteString("```\n\n")
	}
}

// share is d and its share of all.
func share(d, all time.Duration) string {
	if all == 0 {
		return "–"
	}
	return fmt.Sprintf("%v (%.0f %%)", twoDigits(d), 100*d.Seconds()/all.Seconds())
}

// twoDigits rounds d to its two most significant digits (durations here range from
// nanoseconds in a workqueue to minutes).
func twoDigits(d time.Duration) time.Duration {
	m := time.Duration(1)
	for d/m >= 100 {
		m *= 10
	}
	return d.Round(m)
}

// heapProfiles writes the operator's in-use heap by category and the top of its heap
// profile at the largest number of Foos of each configuration (its last repeat).
func heapProfiles(b *strings.Builder, gs []*group) {
	for _, g := range gs {
		rs := g.runs["operator"]
		if rs == nil || slices.ContainsFunc(gs, func(o *group) bool { return o.limits == g.limits && o.n > g.n }) {
			continue
		}
		last := rs[len(rs)-1]
		fmt.Fprintf(b, "## The operator's heap, %d Foos, client limits %v\n\n", g.n, g.limits)
		fmt.Fprintf(b, "Its heap profile's in-use bytes after one more restart at the end of the last repeat, with `GODEBUG=memprofilerate=%d` (one sample per %d bytes allocated on average, against Go's default of 512 KiB, too coarse for a heap of a few MiB; the figures above are from runs without it). Each allocation counts for the first of these that its stack passes through:\n\n| | in use | share |\n|---|---|---|\n", memProfileRate, memProfileRate)
		var total int64
		for _, s := range last.heapBy {
			total += s.bytes
		}
		for _, s := range last.heapBy {
			fmt.Fprintf(b, "| %s | %.1f MiB | %.0f %% |\n", s.category, float64(s.bytes)/(1<<20), 100*float64(s.bytes)/float64(max(total, 1)))
		}
		fmt.Fprintf(b, "\n`go tool pprof -top -inuse_space` of the same profile:\n\n```\n%s```\n\n", last.heapTop)
	}
}

// goMemoryLabels names the Go runtime's memory classes the report shows, in order.
func goMemoryLabels() string {
	labels := make([]string, len(goMetrics))
	for i, m := range goMetrics {
		labels[i] = m.label
	}
	return strings.Join(labels, ", ")
}

func plotPath(md string) string { return strings.TrimSuffix(md, filepath.Ext(md)) + ".svg" }

// medians are the points of one contender in one configuration: the median at each number
// of Foos, with the lowest and highest as error bars.
type medians struct {
	plotter.XYs
	plotter.YErrors
}

// plotRuns draws convergence time and RSS against the number of Foos: one line per
// contender and configuration through the medians, bars from the lowest to the highest.
func plotRuns(gs []*group, path string) error {
	type line struct {
		name   string
		limits limits
	}
	var lines []line
	for _, g := range gs {
		for _, name := range g.names {
			if l := (line{name, g.limits}); !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	panel := func(title, y string, value func(result) float64, pick func([]result) []result) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "Foos", y
		p.Legend.Top = true
		for i, l := range lines {
			var m medians
			for _, g := range gs {
				if rs := g.runs[l.name]; g.limits == l.limits && rs != nil {
					med, low, high := stats(values(pick(rs), value))
					m.XYs = append(m.XYs, plotter.XY{X: float64(g.n), Y: med})
					m.YErrors = append(m.YErrors, struct{ Low, High float64 }{med - low, high - med})
				}
			}
			ln, pts, err := plotter.NewLinePoints(m)
			if err != nil {
				return nil, err
			}
			ln.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
			bars, err := plotter.NewYErrorBars(m)
			if err != nil {
				return nil, err
			}
			bars.Color = ln.Color
			p.Add(ln, pts, bars)
			p.Legend.Add(fmt.Sprintf("%s (%v)", l.name, l.limits), ln, pts)
		}
		return p, nil
	}
	converge, err := panel("B1 convergence", "seconds", func(r result) float64 { return r.converge.Seconds() }, func(rs []result) []result { return rs })
	if err != nil {
		return err
	}
	mem, err := panel("B6 RSS after convergence", "MiB", func(r result) float64 { return float64(r.mem.rss) / (1 << 20) }, unprofiled)
	if err != nil {
		return err
	}
	img := vgsvg.New(12*vg.Inch, 4.5*vg.Inch)
	canvases := plot.Align([][]*plot.Plot{{converge, mem}}, draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter}, draw.New(img))
	converge.Draw(canvases[0][0])
	mem.Draw(canvases[0][1])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = img.WriteTo(f)
	return err
}
