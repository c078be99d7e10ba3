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
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/framework"
)

// contender is one program that converges Foos.
type contender struct {
	name string
	// group is the API group of its Foo CRD; crd the file that defines it.
	group, crd string
	// userAgents are the prefixes of the user agents of its requests in the audit log.
	userAgents []string
	// buckets is how many token buckets of its client limits it has, each independent of the
	// others: its requests are bounded by that many times one bucket's.
	buckets int
	// command is its command line and environment against the cluster of kubeconfig, with
	// client limits l.
	command func(kubeconfig string, l limits) (args, env []string, err error)
	// passes is how many passes over a Foo (reconciles, syncs) p made since it started.
	passes func(p *framework.Process, m *metricsClient) (int, error)
	// scraped: a Prometheus scrapes its metrics every scrapeInterval, as in production, and
	// it can serve Go's profiles (the operator: run.start).
	scraped bool
	// prepare creates what its install ships beside it, before it starts; nil for nothing.
	prepare func(kube kubernetes.Interface) error
}

// The operator's endpoints in the benchmark, on the loopback interface.
const (
	operatorMetrics = "127.0.0.1:18443"
	operatorProbes  = "127.0.0.1:18081"
	operatorPprof   = "127.0.0.1:18082"
)

// The contenders' names on bench's command line.
const (
	operatorName         = "operator"
	sampleControllerName = "sample-controller"
	bareClientName       = "bare-client"
)

// fooGroup is the API group of the operator's Foos, which the bare client converges too.
const fooGroup = "samplecontroller.example.com"

// manager is the operator's executable (-manager), named manager as the image's is.
var manager = "bin/manager"

// workers is how many Foos the operator and the bare client work on at once: the operator's
// shipped --max-concurrent-reconciles, or -workers.
var workers int

// unrelatedObjects is how many Deployments, and how many ConfigMaps, B7 adds (-unrelated).
var unrelatedObjects = 5000

// foosPerNamespace is how many Foos share a namespace (-foos-per-namespace). Kubernetes'
// scalability thresholds are 2,000 Deployments and 3,000 pods per namespace
// (kubernetes/community, sig-scalability/configs-and-limits/thresholds.md), and
// kube-controller-manager's Deployment and ReplicaSet controllers list the namespace's
// ReplicaSets and pods on every sync: 10,000 Foos in one namespace measured that listing,
// for every contender alike, more than the contenders (docs/benchmark-history.md). With
// 1,000 a namespace stays within both thresholds in every phase (3 replicas each while a
// drift is set back).
var foosPerNamespace = 1000

// fooNamespacePrefix begins the name of each namespace of Foos (fooNamespace).
const fooNamespacePrefix = "foos-"

// fooNamespace is the namespace of the i-th Foo: foos-1 for the first foosPerNamespace.
func fooNamespace(i int) string { return fmt.Sprintf("%s%d", fooNamespacePrefix, i/foosPerNamespace+1) }

// ofFoos reports whether namespace holds Foos (of this benchmark's, every object there is).
func ofFoos(namespace string) bool { return strings.HasPrefix(namespace, fooNamespacePrefix) }

var contenders = map[string]contender{
	operatorName: {
		name: "operator", group: fooGroup, crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		// main.go sets the first (controllers.FieldManager); controller-runtime's leader
		// election client sets its own: the binary's name (bin/manager, /manager in the image),
		// then "/leader-election".
		userAgents: []string{"foo-operator", "manager/"},
		// main.go gives every client it builds the one rest.Config.RateLimiter.
		buckets: 1,
		command: operatorCommand,
		passes:  reconciles,
		scraped: true,
		prepare: operatorSecrets,
	},
	sampleControllerName: {
		name: "sample-controller", group: "samplecontroller.k8s.io", crd: "bin/sample-controller-crd.yaml",
		userAgents: []string{"sample-controller/"},
		// Its rest.Config leaves QPS at 0, so neither of its clientsets builds a bucket to share
		// among its API groups: client-go's RESTClientFor gives each group's client a bucket of
		// its defaults, and it uses three, apps/v1 (its Deployments), core/v1 (its events) and
		// samplecontroller.k8s.io/v1alpha1 (its Foos).
		buckets: 3,
		command: func(kubeconfig string, l limits) ([]string, []string, error) {
			if l != clientGoDefaults {
				return nil, nil, fmt.Errorf("sample-controller has no flag for its client limits: it runs at client-go's %v only", clientGoDefaults)
			}
			return []string{"bin/sample-controller", "-kubeconfig=" + kubeconfig}, nil, nil
		},
		passes: syncedLines,
	},
	bareClientName: {
		name: "bare client", group: fooGroup, crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		userAgents: []string{bareClientUserAgent},
		buckets:    1, // its clients share one rest.Config.RateLimiter
		command: func(kubeconfig string, l limits) ([]string, []string, error) {
			return []string{os.Args[0], "bare-client", "-kubeconfig=" + kubeconfig,
				fmt.Sprintf("-qps=%g", l.qps), fmt.Sprintf("-burst=%d", l.burst), fmt.Sprintf("-workers=%d", workers)}, nil, nil
		},
		passes: syncedLines,
	},
}

// operatorCommand is the operator as config/manager runs it: its flags, and its environment
// (the memory limit the Go runtime derives its soft limit from), with the listeners on
// the loopback interface, the Lease in contenderNamespace and the client limits l.
func operatorCommand(kubeconfig string, l limits) ([]string, []string, error) {
	raw, err := os.ReadFile(filepath.Join(framework.Root(), "config", "manager", "manager.yaml"))
	if err != nil {
		return nil, nil, err
	}
	var c *corev1.Container
	for doc := range strings.SplitSeq(string(raw), "\n---\n") { // the Namespace, then the Deployment
		var d appsv1.Deployment
		if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
			return nil, nil, fmt.Errorf("config/manager/manager.yaml: %w", err)
		}
		if i := slices.IndexFunc(d.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Name == "manager" }); d.Kind == "Deployment" && i >= 0 {
			c = &d.Spec.Template.Spec.Containers[i]
		}
	}
	if c == nil {
		return nil, nil, fmt.Errorf("config/manager/manager.yaml has no Deployment with a container named manager")
	}
	args := []string{manager, "--kubeconfig=" + kubeconfig, "--leader-election-namespace=" + contenderNamespace,
		fmt.Sprintf("--kube-api-qps=%g", l.qps), fmt.Sprintf("--kube-api-burst=%d", l.burst),
		fmt.Sprintf("--max-concurrent-reconciles=%d", workers)}
	for _, a := range c.Args {
		switch name, _, _ := strings.Cut(a, "="); name {
		case "--metrics-bind-address":
			a = name + "=" + operatorMetrics
		case "--health-probe-bind-address":
			a = name + "=" + operatorProbes
		case "--kube-api-qps", "--kube-api-burst", "--max-concurrent-reconciles":
			return nil, nil, fmt.Errorf("config/manager/manager.yaml sets %s: the benchmark would not run the limits it reports", name)
		}
		args = append(args, a)
	}
	var env []string
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
			env = append(env, fmt.Sprintf("%s=%d", e.Name, c.Resources.Limits.Memory().Value()))
		case e.ValueFrom.FieldRef != nil:
			// What the kubelet gives a pod of the contender's namespace; no OLM annotation:
			// WATCH_NAMESPACE empty, all namespaces, as OLM's AllNamespaces install mode.
			env = append(env, e.Name+"="+map[string]string{
				"metadata.name": "foo-operator-bench", "metadata.uid": string(uuid.NewUUID()), "metadata.namespace": contenderNamespace,
			}[e.ValueFrom.FieldRef.FieldPath])
		default:
			return nil, nil, fmt.Errorf("config/manager/manager.yaml: environment variable %s: a source the benchmark does not know", e.Name)
		}
	}
	return args, env, nil
}

// operatorSecrets creates the Secret config/default ships, empty, beside the operator and
// config/manager names in its --metrics-cert-secret: the operator issues its metrics
// certificate into it, and serves no metrics until it exists.
func operatorSecrets(kube kubernetes.Interface) error {
	args, _, err := operatorCommand("", limits{})
	if err != nil {
		return err
	}
	for _, a := range args {
		if name, secret, _ := strings.Cut(a, "="); name == "--metrics-cert-secret" && secret != "" {
			_, err := kube.CoreV1().Secrets(contenderNamespace).Create(context.Background(),
				&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secret, Namespace: contenderNamespace}, Type: corev1.SecretTypeOpaque}, metav1.CreateOptions{})
			return err
		}
	}
	return nil
}

// shippedWorkers is the default of the operator's --max-concurrent-reconciles, as its --help
// prints it (operatorCommand refuses a config/manager that sets it).
func shippedWorkers() (int, error) {
	out, _ := exec.Command(manager, "--help").CombinedOutput()
	s, err := flagDefault(string(out), "max-concurrent-reconciles")
	if err != nil {
		return 0, fmt.Errorf("%s --help: %w", manager, err)
	}
	return strconv.Atoi(s)
}

// shippedLimits are the client limits the operator runs with when config/manager sets
// none (operatorCommand refuses a manifest that does): the defaults of its --kube-api-qps
// and --kube-api-burst, as its --help prints them.
func shippedLimits() (limits, error) {
	out, _ := exec.Command(manager, "--help").CombinedOutput() // -help exits 0 or 2 by Go version
	qps, err := flagDefault(string(out), "kube-api-qps")
	if err != nil {
		return limits{}, fmt.Errorf("%s --help: %w", manager, err)
	}
	burst, err := flagDefault(string(out), "kube-api-burst")
	if err != nil {
		return limits{}, fmt.Errorf("%s --help: %w", manager, err)
	}
	q, errQ := strconv.ParseFloat(qps, 64)
	b, errB := strconv.Atoi(burst)
	if errQ != nil || errB != nil {
		return limits{}, fmt.Errorf("%s --help: defaults %q and %q", manager, qps, burst)
	}
	if q <= 0 {
		q = -1 // every qps at or below zero sets no limit
	}
	return limits{qps: q, burst: b}, nil
}

// defaultPattern is how Go's flag package ends the usage of a flag whose default is not the
// zero value.
var defaultPattern = regexp.MustCompile(`\(default ([^)]*)\)`)

// flagDefault is the default of flag name in the usage Go's flag package prints.
func flagDefault(usage, name string) (string, error) {
	head := regexp.MustCompile(`\n  -` + regexp.QuoteMeta(name) + `[ \n]`).FindStringIndex(usage)
	if head == nil {
		return "", fmt.Errorf("no -%s in %q", name, usage)
	}
	usage = usage[head[0]+1:]
	if next := strings.Index(usage, "\n  -"); next >= 0 {
		usage = usage[:next]
	}
	if m := defaultPattern.FindStringSubmatch(usage); m != nil {
		return m[1], nil
	}
	return "0", nil // the flag package prints no default when it is the zero value
}

// latencies are the median and 99th percentile of the times of one phase's Foos (or
// Deployments) to reach its target.
type latencies struct{ p50, p99 time.Duration }

func latenciesOf(ds []time.Duration) latencies {
	return latencies{p50: percentile(ds, 0.5), p99: percentile(ds, 0.99)}
}

// lastReturned is the time from began until the latest of returned, when the benchmark's
// requests returned.
func lastReturned(returned []time.Time, began time.Time) time.Duration {
	var last time.Time
	for _, at := range returned {
		if at.After(last) {
			last = at
		}
	}
	return max(last.Sub(began), 0)
}

// result is what one contender did with n Foos under limits, in one repeat.
type result struct {
	contender string
	limits    limits
	n         int
	// converge and scale are the times until every Foo reported all its replicas available,
	// after the Foos were created and after each was scaled from 1 to 2; convergeOwn and
	// scaleOwn the times until every Deployment had the replicas of its Foo (the
	// contender's own part, before the Deployment controller's).
	converge, scale, convergeOwn, scaleOwn time.Duration
	// convergeReady and scaleReady are the times of each Foo from the benchmark's create or
	// scale request until it reported them (its availableReplicas equal to its replicas);
	// convergeOwnEach and scaleOwnEach until its Deployment asked for them (the contender's
	// part, per Foo).
	convergeReady, scaleReady, convergeOwnEach, scaleOwnEach latencies
	// convergeWrites and scaleWrites are the times from the phase's beginning until the last
	// of the benchmark's creates or scales of the Foos returned: the contender cannot act on a
	// Foo before the benchmark's request for it.
	convergeWrites, scaleWrites time.Duration
	// drift is the time until every Deployment was set back to its Foo's replicas after
	// someone else changed them; driftBack the times of each Deployment.
	drift     time.Duration
	driftBack latencies
	// convergeEvents, scaleEvents and driftEvents are the times from the phase's beginning
	// until the last Event of the namespace written in it (tracker.quiet).
	convergeEvents, scaleEvents, driftEvents time.Duration
	// convergeCluster, scaleCluster and driftCluster are the CPU time of the cluster's
	// processes and the contender, and the idle and interrupt time of the CPUs they ran on,
	// from the first Foo created (scaled) until all were ready, and from the first Deployment
	// changed until all were set back: not the profiles' start and end nor the workqueue
	// scrapes around the phase, which at a few Foos take longer than the phase.
	convergeCluster, scaleCluster, driftCluster clusterCPU
	// convergeReqs, idleReqs, scaleReqs, driftReqs and restartReqs count the contender's
	// requests in each phase, reads and writes, by "verb group/resource[/subresource]".
	convergeReqs, idleReqs, scaleReqs, driftReqs, restartReqs map[string]int
	// buckets is how many token buckets of the limits the contender has; peaks the most
	// rate-limited requests (all but watches) it sent within any window of each of
	// rateWindows, in any of its processes; nearest, at limits, the window of each length
	// that came nearest its bound (or passed it furthest), and busiest what its requests
	// were (by verb and resource, and by user agent) from when.
	buckets int
	peaks   []int
	nearest []window
	busiest []string
	// idle is the time the idle scenario watched the converged contender, as measured; zero
	// when it did not run at this number of Foos.
	idle time.Duration
	// cpus are the CPUs its cluster's processes and it were pinned to; none: all of the
	// machine's.
	cpus []int
	// idleCPU is the CPU time the contender used while idle, and idlePasses the passes over
	// a Foo it made then (a pass that writes nothing costs CPU, no request).
	idleCPU    time.Duration
	idlePasses int
	// passes are the passes over a Foo the contender made while the Foos converged, scaled
	// and were set back (profiledPhases' order), each until the phase's last event: read
	// before and after each phase, outside its window, so that the operator's metrics scrape
	// adds no request to the phase's.
	passes [profiledPhases]int
	// restart is the time from a restart of the converged contender until it had made a
	// pass over every Foo; restartCPU the CPU time that took.
	restart, restartCPU time.Duration
	// mem is the contender's resident memory once converged; restartMem once restarted,
	// and unrelatedMem once restarted in a cluster that also holds unrelatedObjects
	// Deployments and as many ConfigMaps.
	mem, restartMem, unrelatedMem memory
	// peakRSS is the highest resident memory of any of its processes (VmHWM).
	peakRSS int64
	// exe is the size of the contender's executable, whose pages make up the RSS beyond its
	// anonymous memory.
	exe int64
	// goMem is what the Go runtime reports of its memory once converged (the operator's
	// go_memstats_* metrics, by name); heapTop the largest in-use allocation sites of its
	// heap profile after its last restart, profiled at memProfileRate, and heapBy its
	// in-use heap then by category.
	goMem   map[string]float64
	heapTop string
	heapBy  []heapShare
	// componentWrites counts the writes of the cluster's own components (componentOf) while
	// the Foos converged, while they scaled and while their drifts were set back, by
	// component: the work the contender's writes made for the cluster.
	componentWrites [profiledPhases]map[string]int
	// terminatedWatchers are the watches kube-apiserver closed for falling behind, from
	// before the Foos were created until their drifts were set back, by resource.
	terminatedWatchers map[string]int
	// kwokPodWatches counts the watches of pods kwok began while the Foos converged, while
	// they scaled and while their drifts were set back (kwokPodWatch).
	kwokPodWatches [profiledPhases]int
	// machine is the machine check (machineCheck) before and after the run, or the
	// contenders run side by side with it.
	machine [2]time.Duration
	// apiserver is the p99 latency of kube-apiserver's requests by verb while the Foos
	// converged, and watches the watches it served once they had: of all its clients.
	apiserver []verbLatency
	watches   int
	// workers is how many Foos the contender works on at once; queue its workqueue while
	// converging (the operator's metrics).
	workers int
	queue   queueFigures
	// controllerQueues are kube-controller-manager's workqueues (controllerQueues) while the
	// Foos converged and while they scaled, by queue name.
	controllerQueues [scaling + 1]map[string]queueFigures
	// profiled: profiles are CPU profiles of the operator and of kube-apiserver in each of
	// the phases (while the Foos converged, scaled and were set back), and queue.maxDepth
	// the operator's deepest workqueue while they converged. They add to mem and peakRSS
	// (the profile's buffers, the depth reads' metrics encoding): the report takes those
	// from runs without.
	profiled bool
	profiles [profiledPhases]phaseProfile
}

const (
	// contenderNamespace holds each contender's Lease and what its install ships beside it.
	contenderNamespace = "default"
	// bench's own requests carry this user agent.
	driverUserAgent = "bench-driver"
	// unrelatedNamespace holds B7's unrelated objects.
	unrelatedNamespace = "unrelated"
	// controllerManagerQPS is kube-controller-manager's client limit (burst twice it) in
	// every benchmark cluster: at its default of 20, its Deployment and ReplicaSet
	// controllers would take most of each phase at 2,000 Foos, for every contender alike.
	controllerManagerQPS = 200
	// depthSampleInterval is how often the operator's workqueue depth is read while the
	// Foos converge.
	depthSampleInterval = 2 * time.Second
)

// phaseTimeout bounds every phase that waits for the contender with n Foos under limits l:
// half an hour, more with the Foos (kube-controller-manager's client limit makes 10,000
// rollouts take many minutes, as does a slow contender), and more under client limits (a
// few requests per Foo at l.qps).
func phaseTimeout(n int, l limits) time.Duration {
	d := 30*time.Minute + time.Duration(n)*200*time.Millisecond
	if l.limited() {
		d += time.Duration(float64(10*n) / l.qps * float64(time.Second))
	}
	return d
}

// cluster is a fresh local cluster for one contender.
type cluster struct {
	*framework.Cluster
	foos dynamic.NamespaceableResourceInterface
	kube kubernetes.Interface
	// metrics scrapes the contender's metrics endpoint, for contenders that serve one.
	metrics *metricsClient
}

// run is one contender on its cluster through the scenarios: its process (one after each
// restart), the watches on its Foos, and what outlives each process.
type run struct {
	c       contender
	l       limits
	n       int
	cl      *cluster
	t       *tracker
	label   string
	timeout time.Duration
	p       *framework.Process
	// cpus are the CPUs its cluster's processes and the contender run on, pinned; all of the
	// machine's when empty.
	cpus []int
	// lives are when each of its processes ran; peakRSS the highest VmHWM of any.
	lives   []span
	peakRSS int64
}

// how is how measure runs a contender.
type how struct {
	// idle is how long the idle scenario watches it; none when zero.
	idle time.Duration
	// profiled: profile its phases (result.profiles).
	profiled bool
	// cpus: pin the cluster's processes and the contender to these CPUs; none: all of the
	// machine's.
	cpus []int
	// ready is called once the contender has started its workers, and returns when its
	// Foos may be created: once every contender run beside it is ready too.
	ready func()
}

// measure runs one contender with n Foos under limits l on a fresh cluster through every
// scenario.
func measure(c contender, l limits, n int, h how) (result, error) {
	r := result{contender: c.name, limits: l, n: n, buckets: c.buckets, profiled: h.profiled, cpus: h.cpus}
	u := &run{c: c, l: l, n: n, cpus: h.cpus, label: fmt.Sprintf("%s (%v), %d Foos", c.name, l, n), timeout: phaseTimeout(n, l)}
	if len(h.cpus) > 0 {
		// Phases on fewer CPUs take longer by as much, where the CPU is what they wait on.
		u.timeout = u.timeout * time.Duration(runtime.NumCPU()) / time.Duration(len(h.cpus))
	}
	cl, down, err := startCluster(c, n, u.label)
	if err != nil {
		return r, err
	}
	defer down()
	u.cl = cl
	if err := u.pinCluster(); err != nil {
		return r, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if u.t, err = track(ctx, cl); err != nil {
		return r, err
	}
	if err := u.start("contender.log", h.profiled); err != nil {
		return r, err
	}
	defer func() { _ = u.stop() }()
	if err := u.waitWorkers(); err != nil {
		return r, err
	}
	h.ready()
	if c.scraped {
		stopScrapes := cl.metrics.scrapeEvery(scrapeInterval)
		defer stopScrapes()
	}

	p, err := u.scenarios(&r, h.idle)
	if err != nil {
		return r, err
	}
	if p.restarted, err = u.restarts(ctx, &r); err != nil {
		return r, err
	}
	if err := u.countRequests(&r, p); err != nil {
		return r, err
	}
	progress("%s: done; converged in %v, scaled in %v, set back in %v; peak requests %v in windows of %v; RSS %s converged, %s restarted, %s with unrelated objects, peak %d MiB",
		u.label, seconds(r.converge), seconds(r.scale), seconds(r.drift), r.peaks, rateWindows, r.mem, r.restartMem, r.unrelatedMem, r.peakRSS>>20)
	return r, nil
}

// pinCluster pins the cluster's processes to the run's CPUs, when it has any.
func (u *run) pinCluster() error {
	if len(u.cpus) == 0 {
		return nil
	}
	progress("%s: pinning its cluster and it to CPU(s) %s", u.label, cpuList(u.cpus))
	pids, err := u.clusterPids()
	if err != nil {
		return err
	}
	for name, pid := range pids {
		if err := pin(pid, u.cpus); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// scenarios runs the contender through converging, the idle window, scaling and setting
// back a drift, each until its events are written too (tracker.quiet), and returns when
// each began and ended (all but restarted).
func (u *run) scenarios(r *result, idle time.Duration) (p phases, err error) {
	apiserverBefore, err := u.cl.apiserverMetrics()
	if err != nil {
		return p, err
	}
	passes := &phasePasses{u: u, r: r}
	if err := passes.begin(); err != nil {
		return p, err
	}
	if p.began, p.converged, err = u.converge(r, apiserverBefore); err != nil {
		return p, err
	}
	if r.convergeEvents, err = u.t.quiet(p.began, u.timeout); err != nil {
		return p, err
	}
	p.convergeQuiet = time.Now()
	if err := passes.end(converging); err != nil {
		return p, err
	}
	if p.idleStart, p.idleEnd, err = u.idle(r, idle); err != nil {
		return p, err
	}
	if err := passes.begin(); err != nil {
		return p, err
	}
	if p.scaleBegan, err = u.scale(r); err != nil {
		return p, err
	}
	if r.scaleEvents, err = u.t.quiet(p.scaleBegan, u.timeout); err != nil {
		return p, err
	}
	p.scaled = time.Now()
	if err := passes.end(scaling); err != nil {
		return p, err
	}
	driftBegan, err := u.drift(r)
	if err != nil {
		return p, err
	}
	if r.driftEvents, err = u.t.quiet(driftBegan, u.timeout); err != nil {
		return p, err
	}
	p.drifted = time.Now()
	if err := passes.end(settingBack); err != nil {
		return p, err
	}
	watchersAfter, err := u.cl.apiserverMetrics()
	if err != nil {
		return p, err
	}
	r.terminatedWatchers = terminatedWatchersSince(apiserverBefore, watchersAfter)
	return p, nil
}

// restarts restarts the contender as it was, then with unrelated objects added, and stops it;
// a contender that serves metrics once more with its allocations profiled, for its heap. It
// returns when the first restart was done.
func (u *run) restarts(ctx context.Context, r *result) (restarted time.Time, err error) {
	progress("%s: restarting it", u.label)
	if r.restart, r.restartCPU, r.restartMem, err = u.restart("contender-restart.log", false); err != nil {
		return restarted, err
	}
	restarted = time.Now()

	progress("%s: adding %d unrelated Deployments and ConfigMaps, restarting it", u.label, unrelatedObjects)
	if err := addUnrelated(ctx, u.cl.kube); err != nil {
		return restarted, err
	}
	if _, _, r.unrelatedMem, err = u.restart("contender-unrelated.log", false); err != nil {
		return restarted, err
	}
	if err := u.stop(); err != nil {
		return restarted, err
	}
	r.peakRSS = u.peakRSS
	if !u.c.scraped {
		return restarted, nil
	}
	// Go samples one allocation per 512 KiB by default: too few for a heap of a few MiB, and
	// sampling more often costs memory, so not in the runs above, nor in the peak.
	progress("%s: restarting it with one allocation per %d bytes profiled", u.label, memProfileRate)
	if _, _, _, err = u.restart("contender-profiled.log", true, fmt.Sprintf("GODEBUG=memprofilerate=%d", memProfileRate)); err != nil {
		return restarted, err
	}
	if r.heapTop, r.heapBy, err = heapProfile(u.cl.Dir); err != nil {
		return restarted, err
	}
	return restarted, u.stop()
}

// phases are the moments between the scenarios: converged when the Foos were ready, the
// others once the phase's events were written too (tracker.quiet).
type phases struct {
	began, converged, convergeQuiet, idleStart, idleEnd, scaleBegan, scaled, drifted, restarted time.Time
}

// countRequests reads the cluster's audit log for the requests the contender sent in each
// phase, the most it sent in any window of rateWindows, and kube-controller-manager's
// writes while the Foos converged.
func (u *run) countRequests(r *result, p phases) error {
	// The audit log is written asynchronously: let it catch up.
	time.Sleep(2 * time.Second)
	path, err := u.cl.AuditLog()
	if err != nil {
		return err
	}
	var (
		first       time.Time
		requests    framework.AuditLog
		kwokWatches framework.AuditLog
		components  framework.AuditLog
	)
	if err := framework.EachAuditEvent(path, func(e framework.AuditEvent) {
		if first.IsZero() || e.Received.Time.Before(first) {
			first = e.Received.Time
		}
		switch {
		case u.c.sent(e):
			requests = append(requests, e)
		case componentOf(e) != "" && e.IsWrite() && e.Stage == "ResponseComplete":
			components = append(components, e)
		case kwokPodWatch(e):
			kwokWatches = append(kwokWatches, e)
		}
	}); err != nil {
		return err
	}
	if first.IsZero() || !first.Before(p.began) {
		return fmt.Errorf("the audit log %s begins after the Foos were created: part of it is missing", path)
	}
	requests = requests.Requests()
	r.convergeReqs = requests.Between(p.began, p.convergeQuiet).Count()
	r.idleReqs = requests.Between(p.idleStart, p.idleEnd).Count()
	r.scaleReqs = requests.Between(p.scaleBegan, p.scaled).Count()
	r.driftReqs = requests.Between(p.scaled, p.drifted).Count()
	r.restartReqs = requests.Between(p.drifted, p.restarted).Count()
	for i, span := range [profiledPhases][2]time.Time{{p.began, p.converged}, {p.scaleBegan, p.scaled}, {p.scaled, p.drifted}} {
		in := components.Between(span[0], span[1])
		r.componentWrites[i] = map[string]int{}
		for _, e := range in {
			r.componentWrites[i][componentOf(e)]++
		}
		progress("%s: %s: the cluster's components wrote %v", u.label, phaseNames[i], in.Count())
	}
	r.kwokPodWatches = [profiledPhases]int{
		len(kwokWatches.Between(p.began, p.convergeQuiet)),
		len(kwokWatches.Between(p.scaleBegan, p.scaled)),
		len(kwokWatches.Between(p.scaled, p.drifted)),
	}
	limited := requests.Where(rateLimited)
	received := receivedTimes(limited)
	r.peaks = peaks(received, u.lives)
	r.nearest = nearest(received, u.lives, r.limits, r.buckets)
	for i, win := range r.nearest {
		in := limited.Between(win.at, win.at.Add(rateWindows[i]+time.Nanosecond)) // its end included
		byAgent := map[string]int{}
		for _, e := range in {
			byAgent[e.UserAgent]++
		}
		r.busiest = append(r.busiest, fmt.Sprintf("from %s: %v; by user agent %v", win.at.Format("15:04:05.000000"), in.Count(), byAgent))
	}
	return nil
}

// converge creates the n Foos and waits until each reports its replica available; it
// returns when it began (before the first Foo) and when they had converged.
// apiserverBefore is kube-apiserver's metrics scraped before it.
func (u *run) converge(r *result, apiserverBefore []sample) (began, converged time.Time, err error) {
	ctx := context.Background()
	var operatorBefore []sample
	if u.c.scraped {
		if operatorBefore, err = u.cl.metrics.samples(); err != nil {
			return began, converged, err
		}
	}
	queues, err := u.cl.controllerQueueScrape()
	if err != nil {
		return began, converged, err
	}
	u.t.begin(1)
	done := make(chan struct{})
	depth := func() int { return 0 }
	if r.profiled {
		depth = u.sampleDepth(done)
	}
	profiled := u.profiling(r, converging)
	cpuBefore, err := u.cpu()
	if err != nil {
		close(done)
		_ = profiled()
		return began, converged, err
	}
	began = time.Now()
	progress("%s: creating them", u.label)
	created := make([]time.Time, u.n)
	if err := parallel(u.n, func(i int) error {
		_, err := u.cl.foos.Namespace(fooNamespace(i)).Create(ctx, newFoo(u.c.group, i), metav1.CreateOptions{})
		created[i] = time.Now()
		return err
	}); err != nil {
		close(done)
		_ = profiled()
		return began, converged, fmt.Errorf("create Foos: %w", err)
	}
	r.convergeOwn, r.converge, err = u.t.wait(u.n, false, began, u.timeout, u.label)
	converged = time.Now()
	cpuAfter, cpuErr := u.cpu()
	close(done)
	if err := firstErr(err, cpuErr, profiled()); err != nil {
		return began, converged, err
	}
	r.convergeCluster = cpuAfter.since(cpuBefore)
	if r.controllerQueues[converging], err = queues(); err != nil {
		return began, converged, err
	}
	r.convergeReady = latenciesOf(u.t.times(created, false))
	r.convergeOwnEach, r.convergeWrites = latenciesOf(u.t.times(created, true)), lastReturned(created, began)
	apiserverAfter, err := u.cl.apiserverMetrics()
	if err != nil {
		return began, converged, err
	}
	r.apiserver, r.watches = apiserverLatencies(apiserverBefore, apiserverAfter), openWatches(apiserverAfter)
	if u.c.scraped {
		operatorAfter, err := u.cl.metrics.samples()
		if err != nil {
			return began, converged, err
		}
		r.queue = queueBetween(operatorBefore, operatorAfter, fooController)
		r.queue.maxDepth = depth()
		workers, ok := gauge(operatorAfter, maxWorkers)
		if !ok {
			return began, converged, fmt.Errorf("the operator's metrics have no %s of controller foo", maxWorkers)
		}
		r.workers = int(workers)
		if r.goMem, err = goMemory(operatorAfter); err != nil {
			return began, converged, err
		}
	} else if r.workers, err = workersLogged(u.p.Log()); err != nil {
		return began, converged, fmt.Errorf("%s: %w", u.c.name, err)
	}
	if r.mem, err = readMemory(u.p.Pid()); err != nil {
		return began, converged, err
	}
	exe, err := os.Stat(fmt.Sprintf("/proc/%d/exe", u.p.Pid()))
	if err != nil {
		return began, converged, err
	}
	r.exe = exe.Size()
	return began, converged, nil
}

// sampleDepth reads the operator's workqueue depth every depthSampleInterval until done is
// closed; the function it returns waits for that and returns the deepest it saw. A failed
// read is left for the next.
func (u *run) sampleDepth(done <-chan struct{}) func() int {
	if !u.c.scraped {
		return func() int { return 0 }
	}
	deepest := make(chan int, 1)
	go func() {
		tick := time.NewTicker(depthSampleInterval)
		defer tick.Stop()
		most := 0
		for {
			select {
			case <-done:
				deepest <- most
				return
			case <-tick.C:
				if s, err := u.cl.metrics.samples(); err == nil {
					d, _ := gauge(s, queueDepth)
					most = max(most, int(d))
				}
			}
		}
	}()
	return func() int { return <-deepest }
}

// workersPattern is the line with which sample-controller (klog) and the bare client say how
// many workers they start.
var workersPattern = regexp.MustCompile(`Starting workers"? count=(\d+)`)

// workersLogged is the number of workers the log of a contender says it started.
func workersLogged(log string) (int, error) {
	m := workersPattern.FindStringSubmatch(log)
	if m == nil {
		return 0, fmt.Errorf("its log does not say how many workers it started")
	}
	return strconv.Atoi(m[1])
}

// idle watches the converged contender for d, when d is not zero, and returns the start
// and end of that window.
func (u *run) idle(r *result, d time.Duration) (start, end time.Time, err error) {
	if d == 0 {
		now := time.Now()
		return now, now, nil
	}
	progress("%s: converged in %v; watching it idle for %v", u.label, r.converge.Round(100*time.Millisecond), d)
	// The passes are read outside the window: the operator's are a scrape of its metrics,
	// which its endpoint authenticates with requests of its own.
	passesBefore, err := u.c.passes(u.p, u.cl.metrics)
	if err != nil {
		return start, end, err
	}
	start = time.Now()
	cpuBefore, err := cpuTime(u.p.Pid())
	if err != nil {
		return start, end, err
	}
	time.Sleep(d)
	end = time.Now()
	cpuAfter, err := cpuTime(u.p.Pid())
	if err != nil {
		return start, end, err
	}
	passesAfter, err := u.c.passes(u.p, u.cl.metrics)
	if err != nil {
		return start, end, err
	}
	r.idle, r.idleCPU, r.idlePasses = end.Sub(start), cpuAfter-cpuBefore, passesAfter-passesBefore
	return start, end, nil
}

// phasePasses counts the passes over a Foo of the phases of a run into its result.
type phasePasses struct {
	u     *run
	r     *result
	since int
}

// begin reads the passes at the start of a phase.
func (p *phasePasses) begin() (err error) {
	p.since, err = p.u.c.passes(p.u.p, p.u.cl.metrics)
	return err
}

// end counts the passes since begin, or since the end of the phase before, as phase's.
func (p *phasePasses) end(phase int) error {
	now, err := p.u.c.passes(p.u.p, p.u.cl.metrics)
	if err != nil {
		return err
	}
	p.r.passes[phase], p.since = now-p.since, now
	return nil
}

// scale scales every Foo from 1 to 2 replicas and waits until each reports them; it
// returns when it began.
func (u *run) scale(r *result) (began time.Time, err error) {
	progress("%s: scaling every Foo to 2 replicas", u.label)
	queues, err := u.cl.controllerQueueScrape()
	if err != nil {
		return began, err
	}
	u.t.begin(2)
	profiled := u.profiling(r, scaling)
	before, err := u.cpu()
	if err != nil {
		_ = profiled()
		return began, err
	}
	began = time.Now()
	ctx := context.Background()
	patch := []byte(`{"spec":{"replicas":2}}`)
	changed := make([]time.Time, u.n)
	if err := parallel(u.n, func(i int) error {
		_, err := u.cl.foos.Namespace(fooNamespace(i)).Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{})
		changed[i] = time.Now()
		return err
	}); err != nil {
		_ = profiled()
		return began, fmt.Errorf("scale Foos: %w", err)
	}
	r.scaleOwn, r.scale, err = u.t.wait(u.n, false, began, u.timeout, u.label)
	after, cpuErr := u.cpu()
	if err := firstErr(err, cpuErr, profiled()); err != nil {
		return began, err
	}
	r.scaleCluster = after.since(before)
	if r.controllerQueues[scaling], err = queues(); err != nil {
		return began, err
	}
	r.scaleReady = latenciesOf(u.t.times(changed, false))
	r.scaleOwnEach, r.scaleWrites = latenciesOf(u.t.times(changed, true)), lastReturned(changed, began)
	return began, nil
}

// drift changes the replicas of every Foo's Deployment from 2 to 3, as another actor would,
// and waits until each is set back to 2, then until the Foos report 2 again; it returns
// when it began.
func (u *run) drift(r *result) (time.Time, error) {
	progress("%s: someone scales every Deployment to 3 replicas", u.label)
	u.t.begin(2)
	profiled := u.profiling(r, settingBack)
	before, err := u.cpu()
	if err != nil {
		_ = profiled()
		return time.Time{}, err
	}
	began := time.Now()
	ctx := context.Background()
	patch := []byte(`{"spec":{"replicas":3}}`)
	changed := make([]time.Time, u.n)
	if err := parallel(u.n, func(i int) error {
		_, err := u.cl.kube.AppsV1().Deployments(fooNamespace(i)).Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"})
		changed[i] = time.Now()
		return err
	}); err != nil {
		_ = profiled()
		return time.Time{}, fmt.Errorf("change Deployments: %w", err)
	}
	r.drift, _, err = u.t.wait(u.n, true, began, u.timeout, u.label)
	after, cpuErr := u.cpu()
	if err := firstErr(err, cpuErr, profiled()); err != nil {
		return time.Time{}, err
	}
	r.driftCluster = after.since(before)
	r.driftBack = latenciesOf(u.t.times(changed, true))
	// Let the Deployments settle at 2 replicas, and the contender report them.
	for {
		settled, err := u.t.settled(u.n)
		if err != nil {
			return time.Time{}, err
		}
		if settled {
			break
		}
		if time.Since(began) > u.timeout {
			return time.Time{}, fmt.Errorf("the Foos did not settle at 2 available replicas within %v", u.timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(5 * time.Second)
	return began, nil
}

// rateLimited reports whether the request of e went through its client's token bucket:
// every request but a watch, which client-go's Request.Watch sends without waiting on the
// bucket.
func rateLimited(e framework.AuditEvent) bool { return e.Verb != verbWatch }

// verbWatch is the audit log's verb of a watch.
const verbWatch = "watch"

// sent reports whether c sent the request of e.
func (c contender) sent(e framework.AuditEvent) bool {
	return slices.ContainsFunc(c.userAgents, func(prefix string) bool { return strings.HasPrefix(e.UserAgent, prefix) })
}

// startCluster starts a fresh local cluster for c with an audit log of every request, and
// installs c's CRD.
func startCluster(c contender, n int, label string) (*cluster, func(), error) {
	cl := &cluster{Cluster: &framework.Cluster{
		Dir:                  filepath.Join(framework.Root(), ".kwok-bench", strings.ReplaceAll(c.name, " ", "-")),
		AuditPolicy:          filepath.Join(framework.Root(), "hack", "bench", "audit-policy.yaml"),
		NoMetricsServer:      true, // its scrapes would only add to what is measured
		NodePods:             3*n + 100,
		ControllerManagerQPS: controllerManagerQPS,
	}}
	progress("%s: starting a fresh cluster", label)
	down := func() { _ = cl.Down() }
	fail := func(err error) (*cluster, func(), error) { down(); return nil, nil, err }
	down()
	if err := startOneAtATime(cl.Cluster); err != nil {
		// On a loaded machine a component may miss its deadline (the node's readiness):
		// nothing was measured yet, so once more.
		progress("%s: the cluster did not start (%v); starting another", label, err)
		down()
		if err := startOneAtATime(cl.Cluster); err != nil {
			return fail(err)
		}
	}
	if _, err := framework.Run(framework.Root(), nil, nil, "bin/kubectl", "--kubeconfig", cl.Kubeconfig(), "apply", "--server-side", "-f", c.crd); err != nil {
		return fail(fmt.Errorf("install the CRD: %w", err))
	}
	if _, err := framework.Run(framework.Root(), nil, nil, "bin/kubectl", "--kubeconfig", cl.Kubeconfig(), "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"); err != nil {
		return fail(fmt.Errorf("wait for the CRD: %w", err))
	}
	cfg, err := driverConfig(cl.Kubeconfig())
	if err != nil {
		return fail(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fail(err)
	}
	cl.foos = dyn.Resource(schema.GroupVersionResource{Group: c.group, Version: "v1alpha1", Resource: "foos"})
	if cl.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return fail(err)
	}
	for i := 0; i < n; i += foosPerNamespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fooNamespace(i)}}
		if _, err := cl.kube.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
			return fail(fmt.Errorf("create the namespace of Foos %s: %w", ns.Name, err))
		}
	}
	// kube-apiserver readies a custom resource's storage on its first write, which takes
	// seconds: a dry run does it now, not in the first Foos' creates (which would be the
	// slowest requests of the convergence, by seconds).
	if _, err := cl.foos.Namespace(fooNamespace(0)).Create(context.Background(), newFoo(c.group, 0), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		return fail(fmt.Errorf("a dry run of a Foo's create: %w", err))
	}
	if c.prepare != nil {
		if err := c.prepare(cl.kube); err != nil {
			return fail(fmt.Errorf("what %s's install ships beside it: %w", c.name, err))
		}
	}
	if c.scraped {
		if cl.metrics, err = newMetricsClient(cl.Kubeconfig(), cl.kube); err != nil {
			return fail(err)
		}
	}
	return cl, down, nil
}

// apiserverMetrics scrapes kube-apiserver's metrics (with the admin's credentials) for the
// request latencies, the watches it serves and those it closed.
func (cl *cluster) apiserverMetrics() ([]sample, error) {
	raw, err := cl.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		return nil, fmt.Errorf("kube-apiserver's metrics: %w", err)
	}
	return parseSamples(string(raw), requestDuration+"_bucket", longRunning, terminatedWatchers)
}

// controllerQueueScrape scrapes kube-controller-manager's metrics for its workqueues
// (controllerQueues); since scrapes them again and returns each queue's figures in between.
func (cl *cluster) controllerQueueScrape() (since func() (map[string]queueFigures, error), err error) {
	before, err := cl.controllerManagerMetrics()
	if err != nil {
		return nil, err
	}
	return func() (map[string]queueFigures, error) {
		after, err := cl.controllerManagerMetrics()
		if err != nil {
			return nil, err
		}
		return controllerQueuesBetween(before, after), nil
	}, nil
}

// controllerManagerMetrics scrapes kube-controller-manager's workqueue metrics, at the port
// of kwokctl's configuration of the cluster (kwok.yaml), on a path it serves without
// credentials (kwokctl's --authorization-always-allow-paths).
func (cl *cluster) controllerManagerMetrics() ([]sample, error) {
	dir, err := cl.ComponentsDir()
	if err != nil {
		return nil, err
	}
	config, err := os.ReadFile(filepath.Join(dir, "kwok.yaml"))
	if err != nil {
		return nil, err
	}
	var port string
	for line := range strings.SplitSeq(string(config), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "kubeControllerManagerPort:"); ok {
			port = strings.TrimSpace(v)
		}
	}
	if port == "" {
		return nil, fmt.Errorf("no kubeControllerManagerPort in %s", filepath.Join(dir, "kwok.yaml"))
	}
	body, err := getMetrics("https://127.0.0.1:"+port+"/metrics", "")
	if err != nil {
		return nil, fmt.Errorf("kube-controller-manager's metrics: %w", err)
	}
	return parseSamples(body, queueDuration+"_bucket", workDuration+"_bucket")
}

// clusterStarts makes clusters start one at a time, as they had to while kwokctl picked
// their components' ports (alike for clusters starting side by side; hack/ports.sh picks
// them now): whether side by side they would all meet their deadlines on two cores is
// untried.
var clusterStarts sync.Mutex

func startOneAtATime(c *framework.Cluster) error {
	clusterStarts.Lock()
	defer clusterStarts.Unlock()
	return c.Up()
}

// start starts the contender, its output in logName in the cluster's directory; the
// operator serves Go's profiles when profiles is set.
func (u *run) start(logName string, profiles bool, extraEnv ...string) error {
	command, env, err := u.c.command(u.cl.Kubeconfig(), u.l)
	if err != nil {
		return err
	}
	if profiles && u.c.scraped {
		// Not otherwise: the operator ships without them.
		command = append(command, "--pprof-bind-address="+operatorPprof)
	}
	if u.p, err = framework.Start(filepath.Join(u.cl.Dir, logName), append(env, extraEnv...), command[0], command[1:]...); err != nil {
		return fmt.Errorf("start %s: %w", u.c.name, err)
	}
	if len(u.cpus) > 0 {
		return pin(u.p.Pid(), u.cpus)
	}
	return nil
}

// stop stops the contender's process, if one runs, after reading its peak RSS (VmHWM),
// which ends with it.
func (u *run) stop() error {
	if u.p == nil {
		return nil
	}
	m, err := readMemory(u.p.Pid())
	u.p.Stop(time.Minute)
	u.lives = append(u.lives, span{from: u.p.Started, to: u.p.Exited})
	u.p = nil
	if err != nil {
		return err
	}
	u.peakRSS = max(u.peakRSS, m.hwm)
	return nil
}

// waitWorkers waits until the contender says it started its workers (controller-runtime,
// klog and the bare client alike log "Starting workers") and, if it serves metrics, answers
// a scrape: each is measured from there, without its start (the operator's leader
// election) in its convergence.
func (u *run) waitWorkers() error {
	began := time.Now()
	for {
		started := strings.Contains(u.p.Log(), "Starting workers")
		if started && u.c.scraped {
			_, err := u.cl.metrics.get()
			started = err == nil
		}
		if started {
			return nil
		}
		select {
		case <-u.p.Done:
			return fmt.Errorf("%s exited: %s", u.c.name, u.p.Log())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Since(began) > time.Minute {
			return fmt.Errorf("%s did not start its workers and serve its metrics within a minute: %s", u.c.name, u.p.Log())
		}
	}
}

// restart stops the contender and starts it again (serving profiles when profiles is set,
// with extraEnv added to its environment), and returns the time and CPU time until it made
// a pass over each of the Foos, and its memory then.
func (u *run) restart(logName string, profiles bool, extraEnv ...string) (took, cpu time.Duration, mem memory, err error) {
	if err := u.stop(); err != nil {
		return 0, 0, memory{}, err
	}
	began := time.Now()
	if err := u.start(logName, profiles, extraEnv...); err != nil {
		return 0, 0, memory{}, err
	}
	for {
		passes, err := u.c.passes(u.p, u.cl.metrics)
		if err == nil && passes >= u.n {
			break
		}
		if time.Since(began) > u.timeout {
			return 0, 0, memory{}, fmt.Errorf("%s made %d passes over %d Foos within %v of a restart (last error: %v)", u.c.name, passes, u.n, u.timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	took = time.Since(began)
	if cpu, err = cpuTime(u.p.Pid()); err != nil {
		return 0, 0, memory{}, err
	}
	mem, err = readMemory(u.p.Pid())
	return took, cpu, mem, err
}

// reconciles is the number of reconciles the operator's controller made, read from its
// metrics.
func reconciles(_ *framework.Process, m *metricsClient) (int, error) {
	s, err := m.samples()
	if err != nil {
		return 0, err
	}
	total := 0
	for _, v := range s {
		if v.name == "controller_runtime_reconcile_total" && fooController(v.labels) {
			total += int(v.value)
		}
	}
	return total, nil
}

// syncedLines counts the "Successfully synced" lines sample-controller (and the bare client)
// print after each sync of a Foo.
func syncedLines(p *framework.Process, _ *metricsClient) (int, error) {
	return strings.Count(p.Log(), "Successfully synced"), nil
}

// addUnrelated creates unrelatedObjects Deployments (paused and of 0 replicas, so the
// cluster creates nothing for them) and as many ConfigMaps, none of them a Foo's.
func addUnrelated(ctx context.Context, kube kubernetes.Interface) error {
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unrelatedNamespace}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	labels := map[string]string{"app": "unrelated"}
	return parallel(unrelatedObjects, func(i int) error {
		name := fmt.Sprintf("unrelated-%05d", i)
		_, err := kube.AppsV1().Deployments(unrelatedNamespace).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0), Paused: true,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "unrelated", Image: "registry.example.com/app:1"}}},
				},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		_, err = kube.CoreV1().ConfigMaps(unrelatedNamespace).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Data:       map[string]string{"config": strings.Repeat("x", 512)},
		}, metav1.CreateOptions{})
		return err
	})
}

// driverConfig is the client configuration of bench's own requests: its user agent, and a
// rate that does not make the driver the bottleneck.
func driverConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent, cfg.QPS, cfg.Burst = driverUserAgent, 500, 1000
	return cfg, nil
}

// fooName names the i-th Foo, and its Deployment; five digits sort up to 99,999 Foos.
func fooName(i int) string { return fmt.Sprintf("foo-%05d", i) }

// newFoo is the i-th Foo of group. The operator's Foos opt out of its PodDisruptionBudget:
// neither the bare client nor sample-controller makes one, and the contenders are compared
// on the same work.
func newFoo(group string, i int) *unstructured.Unstructured {
	spec := map[string]any{"deploymentName": fooName(i), "replicas": int64(1)}
	if group == fooGroup {
		spec["podDisruptionBudget"] = "Disabled"
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"name": fooName(i), "namespace": fooNamespace(i)},
		"spec":       spec,
	}}
}

// parallel runs f for 0..n-1 on 16 workers and returns the first error.
func parallel(n int, f func(int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					first = firstErr(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// cpuTime is the CPU time (user and system) a process used.
func cpuTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	d, err := parseCPUTime(string(raw))
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return d, nil
}

// parseCPUTime reads utime and stime from a /proc/PID/stat line: the 12th and 13th fields
// after the command (in parentheses, which may hold spaces and parentheses).
func parseCPUTime(stat string) (time.Duration, error) {
	i := strings.LastIndex(stat, ") ")
	if i < 0 {
		return 0, fmt.Errorf("no command in %q", stat)
	}
	fields := strings.Fields(stat[i+2:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("too few fields in %q", stat)
	}
	return ticks(fields[11:13])
}

// cpuStat is the time CPUs were idle (or waiting for I/O), and serving interrupts (hard
// and soft: a disk's completions, the network's), which is CPU time none of the processes
// on them had.
type cpuStat struct{ idle, interrupts time.Duration }

// parseCPUStat reads /proc/stat's times of cpus, or, for all of the machine's, of its first
// line, which sums them: idle and I/O wait are the 4th and 5th numbers, hard and soft
// interrupts the 6th and 7th.
func parseCPUStat(stat string, cpus []int) (cpuStat, error) {
	lines := strings.Split(stat, "\n")
	if len(cpus) == 0 {
		return cpuStatOf(lines, "cpu")
	}
	var sum cpuStat
	for _, cpu := range cpus {
		c, err := cpuStatOf(lines, "cpu"+strconv.Itoa(cpu))
		if err != nil {
			return cpuStat{}, err
		}
		sum.idle, sum.interrupts = sum.idle+c.idle, sum.interrupts+c.interrupts
	}
	return sum, nil
}

// cpuStatOf reads the /proc/stat line of name.
func cpuStatOf(lines []string, name string) (cpuStat, error) {
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) < 8 || fields[0] != name {
			continue
		}
		idle, err := ticks(fields[4:6])
		if err != nil {
			return cpuStat{}, err
		}
		interrupts, err := ticks(fields[6:8])
		return cpuStat{idle: idle, interrupts: interrupts}, err
	}
	return cpuStat{}, fmt.Errorf("no %s line in /proc/stat", name)
}

// ticks is the sum of counts of clock ticks of 1/100 s (USER_HZ on Linux), as /proc
// writes CPU times.
func ticks(counts []string) (time.Duration, error) {
	var sum int64
	for _, f := range counts {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return time.Duration(sum) * 10 * time.Millisecond, nil
}

// clusterCPU is the CPU time, utime + stime, of each process of a cluster (named as kwokctl
// names its pid files: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// kwok-controller) and of the contender, and the times of the CPUs they run on: since they
// started (run.cpu), or over a phase (since).
type clusterCPU struct {
	processes map[string]time.Duration
	cpuStat
}

// contenderProcess is the contender's name in clusterCPU.processes.
const contenderProcess = "the contender"

// clusterPids are the cluster's processes by name, from kwokctl's pid files.
func (u *run) clusterPids() (map[string]int, error) {
	dir, err := u.cl.ComponentsDir()
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "pids", "*.pid"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no pid files in %s/pids (%v)", dir, err)
	}
	pids := map[string]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if pids[strings.TrimSuffix(filepath.Base(f), ".pid")], err = strconv.Atoi(strings.TrimSpace(string(raw))); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return pids, nil
}

// cpu reads the CPU time of the cluster's processes and of the contender, and the times of
// the CPUs they run on.
func (u *run) cpu() (clusterCPU, error) {
	pids, err := u.clusterPids()
	if err != nil {
		return clusterCPU{}, err
	}
	pids[contenderProcess] = u.p.Pid()
	c := clusterCPU{processes: map[string]time.Duration{}}
	for name, pid := range pids {
		if c.processes[name], err = cpuTime(pid); err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return c, err
	}
	c.cpuStat, err = parseCPUStat(string(stat), u.cpus)
	return c, err
}

// convergeCPU is the CPU time the contender used while the Foos converged.
func (r result) convergeCPU() time.Duration { return r.convergeCluster.processes[contenderProcess] }

// since is the CPU time used from earlier until c.
func (c clusterCPU) since(earlier clusterCPU) clusterCPU {
	d := clusterCPU{processes: map[string]time.Duration{}, cpuStat: cpuStat{idle: c.idle - earlier.idle, interrupts: c.interrupts - earlier.interrupts}}
	for name, t := range c.processes {
		d.processes[name] = t - earlier.processes[name]
	}
	return d
}

// memory is the resident memory of a process: all of it (RSS), its anonymous part (heap,
// stacks: what the process allocated, and what a container memory limit holds back; the
// rest are pages of its executable file, which the kernel can drop and read again), and
// the highest RSS it had so far (VmHWM).
type memory struct{ rss, anon, hwm int64 }

func (m memory) String() string {
	return fmt.Sprintf("%d MiB (anonymous %d MiB)", m.rss>>20, m.anon>>20)
}

// readMemory reads the memory of a process from /proc.
func readMemory(pid int) (memory, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	m, err := parseMemory(string(raw))
	if err != nil {
		return memory{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return m, nil
}

// parseMemory reads VmRSS, RssAnon and VmHWM from a /proc/PID/status.
func parseMemory(status string) (memory, error) {
	var m memory
	for line := range strings.SplitSeq(status, "\n") {
		key, value, _ := strings.Cut(line, ":")
		var field *int64
		switch key {
		case "VmRSS":
			field = &m.rss
		case "RssAnon":
			field = &m.anon
		case "VmHWM":
			field = &m.hwm
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "kB")), 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("%q: %w", line, err)
		}
		*field = kb << 10
	}
	if m.rss == 0 || m.anon == 0 || m.hwm == 0 {
		return memory{}, fmt.Errorf("no VmRSS, RssAnon or VmHWM")
	}
	return m, nil
}
