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
	"path/filepath"
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

// limits are a client's rate limits: requests per second and burst; a negative qps is none.
type limits struct {
	qps   float64
	burst int
}

// clientGoDefaults are client-go's limits for a rest.Config that sets none: what
// sample-controller runs with (it has no flag to change them).
var clientGoDefaults = limits{qps: 5, burst: 10}

func (l limits) String() string {
	if l.qps < 0 {
		return "unthrottled"
	}
	return fmt.Sprintf("%g/%d", l.qps, l.burst)
}

// contender is one program that converges Foos.
type contender struct {
	name string
	// group is the API group of its Foo CRD; crd the file that defines it.
	group, crd string
	// userAgents are the prefixes of the user agents of its requests in the audit log.
	userAgents []string
	// command is its command line and environment against the cluster of kubeconfig, with
	// client limits l.
	command func(kubeconfig string, l limits) (args, env []string, err error)
	// passes is how many passes over a Foo (reconciles, syncs) p made since it started.
	passes func(p *framework.Process, m *metricsClient) (int, error)
	// scraped: a Prometheus scrapes its metrics every scrapeInterval, as in production.
	scraped bool
}

// The operator's endpoints in the benchmark, on the loopback interface.
const (
	operatorMetrics = "127.0.0.1:18443"
	operatorProbes  = "127.0.0.1:18081"
	operatorPprof   = "127.0.0.1:18082"
)

var contenders = map[string]contender{
	"operator": {
		name: "operator", group: "samplecontroller.example.com", crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		// main.go sets the first (controllers.FieldManager); controller-runtime's leader
		// election client sets its own: the binary's name (bin/manager, /manager in the image),
		// then "/leader-election".
		userAgents: []string{"foo-operator", "manager/"},
		command:    operatorCommand,
		passes:     reconciles,
		scraped:    true,
	},
	"sample-controller": {
		name: "sample-controller", group: "samplecontroller.k8s.io", crd: "bin/sample-controller-crd.yaml",
		userAgents: []string{"sample-controller/"},
		command: func(kubeconfig string, l limits) ([]string, []string, error) {
			if l != clientGoDefaults {
				return nil, nil, fmt.Errorf("sample-controller has no flag for its client limits: it runs at client-go's %v only", clientGoDefaults)
			}
			return []string{"bin/sample-controller", "-kubeconfig=" + kubeconfig}, nil, nil
		},
		passes: syncedLines,
	},
	"bare-client": {
		name: "bare client", group: "samplecontroller.example.com", crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		userAgents: []string{bareClientUserAgent},
		command: func(kubeconfig string, l limits) ([]string, []string, error) {
			return []string{os.Args[0], "bare-client", "-kubeconfig=" + kubeconfig,
				fmt.Sprintf("-qps=%g", l.qps), fmt.Sprintf("-burst=%d", l.burst)}, nil, nil
		},
		passes: syncedLines,
	},
}

// operatorCommand is the operator as config/manager runs it: its flags, and its environment
// (the memory limit the Go runtime derives its soft limit from), with the listeners on
// the loopback interface, the Lease in the benchmark's namespace, the client limits l, and
// Go's profiles served for the heap profile in the report.
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
	args := []string{"bin/manager", "--kubeconfig=" + kubeconfig, "--leader-election-namespace=" + namespace,
		fmt.Sprintf("--kube-api-qps=%g", l.qps), fmt.Sprintf("--kube-api-burst=%d", l.burst), "--pprof-bind-address=" + operatorPprof}
	for _, a := range c.Args {
		switch name, _, _ := strings.Cut(a, "="); name {
		case "--metrics-bind-address":
			a = name + "=" + operatorMetrics
		case "--health-probe-bind-address":
			a = name + "=" + operatorProbes
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
			// What the kubelet gives a pod of the benchmark's namespace; no OLM annotation:
			// WATCH_NAMESPACE empty, all namespaces, as OLM's AllNamespaces install mode.
			env = append(env, e.Name+"="+map[string]string{
				"metadata.name": "foo-operator-bench", "metadata.uid": string(uuid.NewUUID()), "metadata.namespace": namespace,
			}[e.ValueFrom.FieldRef.FieldPath])
		default:
			return nil, nil, fmt.Errorf("config/manager/manager.yaml: environment variable %s: a source the benchmark does not know", e.Name)
		}
	}
	return args, env, nil
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
	// drift is the time until every Deployment was set back to its Foo's replicas after
	// someone else changed them.
	drift time.Duration
	// convergeReqs, idleReqs, scaleReqs, driftReqs and restartReqs count the contender's
	// requests in each phase, reads and writes, by "verb group/resource[/subresource]".
	convergeReqs, idleReqs, scaleReqs, driftReqs, restartReqs map[string]int
	// peakRate is the most requests the contender sent in one second while converging:
	// the client limits at work.
	peakRate int
	idle     time.Duration
	// idleCPU is the CPU time the contender used while idle.
	idleCPU time.Duration
	// restart is the time from a restart of the converged contender until it had made a
	// pass over every Foo; restartCPU the CPU time that took.
	restart, restartCPU time.Duration
	// mem is the contender's resident memory once converged; restartMem once restarted,
	// and unrelatedMem once restarted in a cluster that also holds unrelatedObjects
	// Deployments and as many ConfigMaps.
	mem, restartMem, unrelatedMem memory
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
	// kcmWrites counts kube-controller-manager's writes while the Foos converged.
	kcmWrites int
}

const (
	namespace = "default"
	// bench's own requests carry this user agent.
	driverUserAgent = "bench-driver"
	// unrelatedObjects is how many Deployments, and how many ConfigMaps, B7 adds.
	unrelatedObjects   = 5000
	unrelatedNamespace = "unrelated"
	// phaseTimeout bounds every phase that waits for the contender.
	phaseTimeout = 30 * time.Minute
	// controllerManagerQPS is kube-controller-manager's client limit (burst twice it) in
	// every benchmark cluster: at its default of 20, its Deployment and ReplicaSet
	// controllers would take most of each phase at 2,000 Foos, for every contender alike.
	controllerManagerQPS = 200
)

// cluster is a fresh local cluster for one contender.
type cluster struct {
	*framework.Cluster
	foos dynamic.ResourceInterface
	kube kubernetes.Interface
	// metrics scrapes the contender's metrics endpoint, for contenders that serve one.
	metrics *metricsClient
}

// measure runs one contender with n Foos under limits l on a fresh cluster through every
// scenario.
func measure(c contender, l limits, n int, idle time.Duration) (result, error) {
	r := result{contender: c.name, limits: l, n: n, idle: idle}
	label := fmt.Sprintf("%s (%v), %d Foos", c.name, l, n)
	cl, down, err := startCluster(c, n, label)
	if err != nil {
		return r, err
	}
	defer down()
	p, err := start(c, l, cl, "contender.log")
	if err != nil {
		return r, err
	}
	defer func() { p.Stop(time.Minute) }()
	if c.scraped {
		stopScrapes := cl.metrics.scrapeEvery(scrapeInterval)
		defer stopScrapes()
	}

	ctx := context.Background()
	began := time.Now()
	progress("%s: creating them", label)
	if err := parallel(n, func(i int) error {
		_, err := cl.foos.Create(ctx, newFoo(c.group, i), metav1.CreateOptions{})
		return err
	}); err != nil {
		return r, fmt.Errorf("create Foos: %w", err)
	}
	if r.convergeOwn, r.converge, err = waitAvailable(ctx, cl, n, 1, began, label); err != nil {
		return r, err
	}
	converged := time.Now()
	if r.mem, err = readMemory(p.Pid()); err != nil {
		return r, err
	}
	exe, err := os.Stat(fmt.Sprintf("/proc/%d/exe", p.Pid()))
	if err != nil {
		return r, err
	}
	r.exe = exe.Size()
	if c.scraped {
		if r.goMem, err = goMemory(cl.metrics); err != nil {
			return r, err
		}
	}

	progress("%s: converged in %v; watching it idle for %v", label, r.converge.Round(100*time.Millisecond), idle)
	cpuBefore, err := cpuTime(p.Pid())
	if err != nil {
		return r, err
	}
	time.Sleep(idle)
	idleEnd := time.Now()
	cpuAfter, err := cpuTime(p.Pid())
	if err != nil {
		return r, err
	}
	r.idleCPU = cpuAfter - cpuBefore

	progress("%s: scaling every Foo to 2 replicas", label)
	patch := []byte(`{"spec":{"replicas":2}}`)
	if err := parallel(n, func(i int) error {
		_, err := cl.foos.Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}); err != nil {
		return r, fmt.Errorf("scale Foos: %w", err)
	}
	if r.scaleOwn, r.scale, err = waitAvailable(ctx, cl, n, 2, idleEnd, label); err != nil {
		return r, err
	}
	scaled := time.Now()

	progress("%s: someone scales every Deployment to 3 replicas", label)
	if r.drift, err = driftReplicas(ctx, cl.kube, n); err != nil {
		return r, err
	}
	// Let the Deployments settle at 2 replicas, and the contender report them.
	if _, _, err = waitAvailable(ctx, cl, n, 2, time.Now(), label); err != nil {
		return r, err
	}
	time.Sleep(5 * time.Second)
	drifted := time.Now()

	progress("%s: restarting it", label)
	if p, r.restart, r.restartCPU, r.restartMem, err = restart(c, l, cl, p, n, "contender-restart.log"); err != nil {
		return r, err
	}
	restarted := time.Now()

	progress("%s: adding %d unrelated Deployments and ConfigMaps, restarting it", label, unrelatedObjects)
	if err := addUnrelated(ctx, cl.kube); err != nil {
		return r, err
	}
	if p, _, _, r.unrelatedMem, err = restart(c, l, cl, p, n, "contender-unrelated.log"); err != nil {
		return r, err
	}
	if c.scraped {
		// Go samples one allocation per 512 KiB by default: too few for a heap of a few MiB,
		// and sampling more often costs memory, so not in the runs above.
		progress("%s: restarting it with one allocation per %d bytes profiled", label, memProfileRate)
		if p, _, _, _, err = restart(c, l, cl, p, n, "contender-profiled.log", fmt.Sprintf("GODEBUG=memprofilerate=%d", memProfileRate)); err != nil {
			return r, err
		}
		if r.heapTop, r.heapBy, err = heapProfile(cl.Dir); err != nil {
			return r, err
		}
	}

	// The audit log is written asynchronously: let it catch up.
	time.Sleep(2 * time.Second)
	path, err := cl.AuditLog()
	if err != nil {
		return r, err
	}
	audit, err := framework.ReadAudit(path)
	if err != nil {
		return r, err
	}
	if len(audit) == 0 || !audit[0].Received.Time.Before(began) {
		return r, fmt.Errorf("the audit log %s begins after the Foos were created: part of it is missing", path)
	}
	requests := audit.Requests().Where(c.sent)
	r.convergeReqs = requests.Between(began, converged).Count()
	r.idleReqs = requests.Between(converged, idleEnd).Count()
	r.scaleReqs = requests.Between(idleEnd, scaled).Count()
	r.driftReqs = requests.Between(scaled, drifted).Count()
	r.restartReqs = requests.Between(drifted, restarted).Count()
	r.peakRate = peakRate(requests.Between(began, converged))
	for _, v := range audit.Requests().Writes().ByUserAgent("kube-controller-manager/").Between(began, converged).Count() {
		r.kcmWrites += v
	}
	progress("%s: done; RSS %s converged, %s restarted, %s with unrelated objects", label, r.mem, r.restartMem, r.unrelatedMem)
	return r, nil
}

// sent reports whether c sent the request of e.
func (c contender) sent(e framework.AuditEvent) bool {
	return slices.ContainsFunc(c.userAgents, func(prefix string) bool { return strings.HasPrefix(e.UserAgent, prefix) })
}

// peakRate is the most requests of l received within one second.
func peakRate(l framework.AuditLog) int {
	perSecond := map[int64]int{}
	peak := 0
	for _, e := range l {
		s := e.Received.Unix()
		perSecond[s]++
		peak = max(peak, perSecond[s])
	}
	return peak
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
	down()
	if err := startOneAtATime(cl.Cluster); err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*cluster, func(), error) { down(); return nil, nil, err }
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
	cl.foos = dyn.Resource(schema.GroupVersionResource{Group: c.group, Version: "v1alpha1", Resource: "foos"}).Namespace(namespace)
	if cl.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return fail(err)
	}
	if c.scraped {
		if cl.metrics, err = newMetricsClient(cl.Kubeconfig(), cl.kube); err != nil {
			return fail(err)
		}
	}
	return cl, down, nil
}

// clusterStarts makes clusters start one at a time: kwokctl picks its components' ports
// among the free ones, which clusters starting side by side would pick alike.
var clusterStarts sync.Mutex

func startOneAtATime(c *framework.Cluster) error {
	clusterStarts.Lock()
	defer clusterStarts.Unlock()
	return c.Up()
}

// start starts c under limits l against cl, its output in logName in the cluster's directory.
func start(c contender, l limits, cl *cluster, logName string, extraEnv ...string) (*framework.Process, error) {
	command, env, err := c.command(cl.Kubeconfig(), l)
	if err != nil {
		return nil, err
	}
	p, err := framework.Start(filepath.Join(cl.Dir, logName), append(env, extraEnv...), command[0], command[1:]...)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name, err)
	}
	return p, nil
}

// restart stops p and starts c again (with extraEnv added to its environment), and returns
// the new process, the time and CPU time until it made a pass over each of the n Foos, and
// its memory then.
func restart(c contender, l limits, cl *cluster, p *framework.Process, n int, logName string, extraEnv ...string) (next *framework.Process, took, cpu time.Duration, mem memory, err error) {
	p.Stop(time.Minute)
	began := time.Now()
	if next, err = start(c, l, cl, logName, extraEnv...); err != nil {
		return p, 0, 0, memory{}, err
	}
	for {
		passes, err := c.passes(next, cl.metrics)
		if err == nil && passes >= n {
			break
		}
		if time.Since(began) > phaseTimeout {
			return next, 0, 0, memory{}, fmt.Errorf("%s made %d passes over %d Foos within %v of a restart (last error: %v)", c.name, passes, n, phaseTimeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	took = time.Since(began)
	if cpu, err = cpuTime(next.Pid()); err != nil {
		return next, 0, 0, memory{}, err
	}
	mem, err = readMemory(next.Pid())
	return next, took, cpu, mem, err
}

// reconciles is the number of reconciles the operator's controller made, read from its
// metrics.
func reconciles(_ *framework.Process, m *metricsClient) (int, error) {
	body, err := m.get()
	if err != nil {
		return 0, err
	}
	total := 0
	for line := range strings.SplitSeq(body, "\n") {
		if !strings.HasPrefix(line, `controller_runtime_reconcile_total{controller="foo",`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("metric %q: %w", line, err)
		}
		total += int(v)
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
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}}},
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

// driftReplicas changes the replicas of every Foo's Deployment from 2 to 3, as another
// actor would, and returns the time until all are 2 again.
func driftReplicas(ctx context.Context, kube kubernetes.Interface, n int) (time.Duration, error) {
	began := time.Now()
	patch := []byte(`{"spec":{"replicas":3}}`)
	if err := parallel(n, func(i int) error {
		_, err := kube.AppsV1().Deployments(namespace).Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"})
		return err
	}); err != nil {
		return 0, fmt.Errorf("change Deployments: %w", err)
	}
	for time.Since(began) < phaseTimeout {
		back, err := deploymentsAt(ctx, kube, 2)
		if err != nil {
			return 0, err
		}
		if back == n {
			return time.Since(began), nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return 0, fmt.Errorf("the Deployments were not set back to 2 replicas within %v", phaseTimeout)
}

// deploymentsAt counts the Foos' Deployments whose spec asks for replicas.
func deploymentsAt(ctx context.Context, kube kubernetes.Interface, replicas int32) (int, error) {
	list, err := kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	count := 0
	for _, d := range list.Items {
		if ptr.Deref(d.Spec.Replicas, 1) == replicas {
			count++
		}
	}
	return count, nil
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

func fooName(i int) string { return fmt.Sprintf("foo-%05d", i) }

func newFoo(group string, i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"name": fooName(i), "namespace": namespace},
		"spec":       map[string]any{"deploymentName": fooName(i), "replicas": int64(1)},
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

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// waitAvailable waits until all n Foos report `replicas` available replicas, and returns
// the times since began until every Deployment asked for them (the contender's part) and
// until every Foo reported them. It gives up after phaseTimeout.
func waitAvailable(ctx context.Context, cl *cluster, n int, replicas int64, began time.Time, name string) (own, all time.Duration, err error) {
	lastReport := time.Now()
	for {
		if own == 0 {
			asked, err := deploymentsAt(ctx, cl.kube, int32(replicas))
			if err != nil {
				return 0, 0, err
			}
			if asked == n {
				own = time.Since(began)
			}
		}
		list, err := cl.foos.List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, 0, err
		}
		done := 0
		for _, f := range list.Items {
			if v, _, _ := unstructured.NestedInt64(f.Object, "status", "availableReplicas"); v == replicas {
				done++
			}
		}
		if done == n && own != 0 {
			return own, time.Since(began), nil
		}
		if time.Since(began) > phaseTimeout {
			return 0, 0, fmt.Errorf("%d of %d Foos report %d available replicas after %v", done, n, replicas, phaseTimeout)
		}
		if time.Since(lastReport) > 10*time.Second {
			progress("%s: %d of %d Foos report %d available replicas", name, done, n, replicas)
			lastReport = time.Now()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// cpuTime is the CPU time (user and system) a process used.
func cpuTime(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command (in parentheses, which may hold spaces): utime and
	// stime are the 12th and 13th, in clock ticks of 1/100 s (USER_HZ on Linux).
	_, rest, _ := strings.Cut(string(raw), ") ")
	fields := strings.Fields(rest)
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, raw)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// memory is the resident memory of a process: all of it (RSS), and its anonymous part
// (heap, stacks: what the process allocated, and what a container memory limit holds
// back); the rest are pages of its executable file, which the kernel can drop and read
// again.
type memory struct{ rss, anon int64 }

func (m memory) String() string {
	return fmt.Sprintf("%d MiB (anonymous %d MiB)", m.rss>>20, m.anon>>20)
}

// readMemory reads the memory of a process from /proc.
func readMemory(pid int) (memory, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for line := range strings.SplitSeq(string(raw), "\n") {
		key, value, _ := strings.Cut(line, ":")
		var field *int64
		switch key {
		case "VmRSS":
			field = &m.rss
		case "RssAnon":
			field = &m.anon
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "kB")), 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("/proc/%d/status: %q: %w", pid, line, err)
		}
		*field = kb << 10
	}
	if m.rss == 0 || m.anon == 0 {
		return memory{}, fmt.Errorf("no VmRSS or RssAnon in /proc/%d/status", pid)
	}
	return m, nil
}
