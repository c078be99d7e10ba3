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
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/example/foo-operator/test/framework"
)

// contender is one program that converges Foos.
type contender struct {
	name string
	// group is the API group of its Foo CRD; crd the file that defines it.
	group, crd string
	// userAgent prefixes the user agent of its requests in the audit log.
	userAgent string
	// command is its command line against the cluster of kubeconfig.
	command func(kubeconfig string) []string
	// passes is how many passes over a Foo (reconciles, syncs) p made since it started.
	passes func(p *framework.Process) (int, error)
}

// operatorMetrics is where the operator serves its metrics (plain HTTP) in the benchmark.
const operatorMetrics = "127.0.0.1:18089"

var contenders = map[string]contender{
	"operator": {
		name: "operator", group: "samplecontroller.example.com", crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		userAgent: "foo-operator", // main.go sets it (controllers.FieldManager), whatever the binary is called
		command: func(kubeconfig string) []string {
			args := []string{"bin/manager", "--kubeconfig=" + kubeconfig, "--metrics-bind-address=" + operatorMetrics, "--metrics-secure=false", "--health-probe-bind-address=0"}
			return append(args, strings.Fields(*operatorArgs)...)
		},
		passes: func(*framework.Process) (int, error) { return reconciles("http://" + operatorMetrics + "/metrics") },
	},
	"sample-controller": {
		name: "sample-controller", group: "samplecontroller.k8s.io", crd: "bin/sample-controller-crd.yaml",
		userAgent: "sample-controller/",
		command: func(kubeconfig string) []string {
			return []string{"bin/sample-controller", "-kubeconfig=" + kubeconfig}
		},
		passes: syncedLines,
	},
	"bare-client": {
		name: "bare client", group: "samplecontroller.example.com", crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		userAgent: bareClientUserAgent,
		command: func(kubeconfig string) []string {
			return []string{os.Args[0], "bare-client", "-kubeconfig=" + kubeconfig}
		},
		passes: syncedLines,
	},
}

// result is what one contender did with n Foos.
type result struct {
	contender string
	n         int
	// converge and scale are the times until every Foo reported all its replicas available,
	// after the Foos were created and after each was scaled from 1 to 2; convergeOwn and
	// scaleOwn the times until every Deployment had the replicas of its Foo (the
	// contender's own part, before the Deployment controller's).
	converge, scale, convergeOwn, scaleOwn time.Duration
	// drift is the time until every Deployment was set back to its Foo's replicas after
	// someone else changed them.
	drift time.Duration
	// convergeWrites, idleWrites, scaleWrites, driftWrites and restartWrites count the
	// contender's write requests in each phase, by "verb resource[/subresource]".
	convergeWrites, idleWrites, scaleWrites, driftWrites, restartWrites map[string]int
	idle                                                                time.Duration
	// idleCPU is the CPU time the contender used while idle.
	idleCPU time.Duration
	// restart is the time from a restart of the converged contender until it had made a
	// pass over every Foo; restartCPU the CPU time that took.
	restart, restartCPU time.Duration
	// mem is the contender's resident memory once converged; restartMem once restarted,
	// and unrelatedMem once restarted in a cluster that also holds unrelatedObjects
	// Deployments and as many ConfigMaps.
	mem, restartMem, unrelatedMem memory
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
)

// cluster is a fresh local cluster for one contender.
type cluster struct {
	*framework.Cluster
	foos dynamic.ResourceInterface
	kube kubernetes.Interface
}

// measure runs one contender with n Foos on a fresh cluster through every scenario.
func measure(c contender, n int, idle time.Duration) (result, error) {
	r := result{contender: c.name, n: n, idle: idle}
	cl, down, err := startCluster(c, n)
	if err != nil {
		return r, err
	}
	defer down()
	p, err := start(c, cl, "contender.log")
	if err != nil {
		return r, err
	}
	defer func() { p.Stop(time.Minute) }()

	ctx := context.Background()
	began := time.Now()
	progress("%s, %d Foos: creating them", c.name, n)
	if err := parallel(n, func(i int) error {
		_, err := cl.foos.Create(ctx, newFoo(c.group, i), metav1.CreateOptions{})
		return err
	}); err != nil {
		return r, fmt.Errorf("create Foos: %w", err)
	}
	if r.convergeOwn, r.converge, err = waitAvailable(ctx, cl, n, 1, began, c.name); err != nil {
		return r, err
	}
	converged := time.Now()
	if r.mem, err = readMemory(p.Pid()); err != nil {
		return r, err
	}

	progress("%s, %d Foos: converged in %v; watching idle writes for %v", c.name, n, r.converge.Round(100*time.Millisecond), idle)
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

	progress("%s, %d Foos: scaling every Foo to 2 replicas", c.name, n)
	patch := []byte(`{"spec":{"replicas":2}}`)
	if err := parallel(n, func(i int) error {
		_, err := cl.foos.Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}); err != nil {
		return r, fmt.Errorf("scale Foos: %w", err)
	}
	if r.scaleOwn, r.scale, err = waitAvailable(ctx, cl, n, 2, idleEnd, c.name); err != nil {
		return r, err
	}
	scaled := time.Now()

	progress("%s, %d Foos: someone scales every Deployment to 3 replicas", c.name, n)
	if r.drift, err = driftReplicas(ctx, cl.kube, n); err != nil {
		return r, err
	}
	// Let the Deployments settle at 2 replicas, and the contender report them.
	if _, _, err = waitAvailable(ctx, cl, n, 2, time.Now(), c.name); err != nil {
		return r, err
	}
	time.Sleep(5 * time.Second)
	drifted := time.Now()

	progress("%s, %d Foos: restarting it", c.name, n)
	if p, r.restart, r.restartCPU, r.restartMem, err = restart(c, cl, p, n, "contender-restart.log"); err != nil {
		return r, err
	}
	restarted := time.Now()

	progress("%s, %d Foos: adding %d unrelated Deployments and ConfigMaps, restarting it", c.name, n, unrelatedObjects)
	if err := addUnrelated(ctx, cl.kube); err != nil {
		return r, err
	}
	if p, _, _, r.unrelatedMem, err = restart(c, cl, p, n, "contender-unrelated.log"); err != nil {
		return r, err
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
	writes := audit.Writes()
	r.convergeWrites = writes.ByUserAgent(c.userAgent).Between(began, converged).Count()
	r.idleWrites = writes.ByUserAgent(c.userAgent).Between(converged, idleEnd).Count()
	r.scaleWrites = writes.ByUserAgent(c.userAgent).Between(idleEnd, scaled).Count()
	r.driftWrites = writes.ByUserAgent(c.userAgent).Between(scaled, drifted).Count()
	r.restartWrites = writes.ByUserAgent(c.userAgent).Between(drifted, restarted).Count()
	for _, v := range writes.ByUserAgent("kube-controller-manager/").Between(began, converged).Count() {
		r.kcmWrites += v
	}
	progress("%s, %d Foos: done; RSS %s converged, %s restarted, %s with unrelated objects", c.name, n, r.mem, r.restartMem, r.unrelatedMem)
	return r, nil
}

// startCluster starts a fresh local cluster for c with an audit log, and installs c's CRD.
func startCluster(c contender, n int) (*cluster, func(), error) {
	cl := &cluster{Cluster: &framework.Cluster{
		Dir:             filepath.Join(framework.Root(), ".kwok-bench", strings.ReplaceAll(c.name, " ", "-")),
		AuditPolicy:     framework.AuditPolicyFile(),
		NoMetricsServer: true, // its scrapes would only add to what is measured
		NodePods:        3*n + 100,
	}}
	progress("%s, %d Foos: starting a fresh cluster", c.name, n)
	down := func() { _ = cl.Down() }
	down()
	if err := cl.Up(); err != nil {
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
	return cl, down, nil
}

// start starts c against cl, its output in logName in the cluster's directory.
func start(c contender, cl *cluster, logName string) (*framework.Process, error) {
	command := c.command(cl.Kubeconfig())
	p, err := framework.Start(filepath.Join(cl.Dir, logName), nil, command[0], command[1:]...)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name, err)
	}
	return p, nil
}

// restart stops p and starts c again, and returns the new process, the time and CPU time
// until it made a pass over each of the n Foos, and its memory then.
func restart(c contender, cl *cluster, p *framework.Process, n int, logName string) (next *framework.Process, took, cpu time.Duration, mem memory, err error) {
	p.Stop(time.Minute)
	began := time.Now()
	if next, err = start(c, cl, logName); err != nil {
		return p, 0, 0, memory{}, err
	}
	for {
		passes, err := c.passes(next)
		if err == nil && passes >= n {
			break
		}
		if time.Since(began) > phaseTimeout {
			return next, 0, 0, memory{}, fmt.Errorf("%s made %d passes over %d Foos within %v of a restart (last error: %v)", c.name, passes, n, phaseTimeout, err)
		}
		time.Sleep(100 * time.Millisecond)
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
func reconciles(url string) (int, error) {
	resp, err := http.Get(url) //nolint:noctx // a local endpoint, polled
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	total := 0
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, `controller_runtime_reconcile_total{controller="foo",`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("metric %q: %w", line, err)
		}
		total += int(v)
	}
	return total, scanner.Err()
}

// syncedLines counts the "Successfully synced" lines sample-controller (and the bare client)
// print after each sync of a Foo.
func syncedLines(p *framework.Process) (int, error) {
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
