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
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// contender is one program that converges Foos.
type contender struct {
	name string
	// group is the API group of its Foo CRD; crd the file that defines it.
	group, crd string
	// userAgent prefixes the user agent of its requests in the audit log.
	userAgent string
	// command starts it against the cluster of kubeconfig.
	command func(kubeconfig string) *exec.Cmd
}

var contenders = map[string]contender{
	"operator": {
		name: "operator", group: "samplecontroller.example.com", crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		userAgent: "manager/",
		command: func(kubeconfig string) *exec.Cmd {
			return exec.Command("bin/manager", "--kubeconfig="+kubeconfig, "--metrics-bind-address=0", "--health-probe-bind-address=0")
		},
	},
	"sample-controller": {
		name: "sample-controller", group: "samplecontroller.k8s.io", crd: "bin/sample-controller-crd.yaml",
		userAgent: "sample-controller/",
		command: func(kubeconfig string) *exec.Cmd {
			return exec.Command("bin/sample-controller", "-kubeconfig="+kubeconfig)
		},
	},
	"bare-client": {
		name: "bare client", group: "samplecontroller.example.com", crd: "config/crd/bases/samplecontroller.example.com_foos.yaml",
		userAgent: bareClientUserAgent,
		command: func(kubeconfig string) *exec.Cmd {
			return exec.Command(os.Args[0], "bare-client", "-kubeconfig="+kubeconfig)
		},
	},
}

// result is what one contender did with n Foos.
type result struct {
	contender string
	n         int
	// converge and scale are the times until every Foo reported all its replicas available,
	// after the Foos were created and after each was scaled from 1 to 2.
	converge, scale time.Duration
	// drift is the time until every Deployment was set back to its Foo's replicas after
	// someone else changed them.
	drift time.Duration
	// convergeWrites, idleWrites, scaleWrites and driftWrites count the contender's write
	// requests in each phase, by "verb resource[/subresource]".
	convergeWrites, idleWrites, scaleWrites, driftWrites map[string]int
	idle                                                 time.Duration
	// rssBytes is the contender's resident memory once converged.
	rssBytes int64
	// kcmWrites counts kube-controller-manager's writes while the Foos converged.
	kcmWrites int
}

const (
	namespace = "default"
	// bench's own requests carry this user agent.
	driverUserAgent = "bench-driver"
)

// measure runs one contender with n Foos on a fresh cluster.
func measure(c contender, n int, idle time.Duration) (result, error) {
	r := result{contender: c.name, n: n, idle: idle}
	dir, err := filepath.Abs(filepath.Join(".kwok-bench", strings.ReplaceAll(c.name, " ", "-")))
	if err != nil {
		return r, err
	}
	progress("%s, %d Foos: starting a fresh cluster", c.name, n)
	env := append(os.Environ(), "LOCAL_CLUSTER_DIR="+dir, "LOCAL_CLUSTER_NODE_PODS="+strconv.Itoa(3*n+100),
		"LOCAL_CLUSTER_AUDIT_POLICY="+mustAbs("hack/bench/audit-policy.yaml"))
	down := func() { _ = script(env, "down") }
	down()
	if err := script(env, "up"); err != nil {
		return r, err
	}
	defer down()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	audit, err := findAuditLog(dir)
	if err != nil {
		return r, err
	}
	if out, err := exec.Command("bin/kubectl", "--kubeconfig", kubeconfig, "apply", "--server-side", "-f", c.crd).CombinedOutput(); err != nil {
		return r, fmt.Errorf("install the CRD: %w: %s", err, out)
	}
	if out, err := exec.Command("bin/kubectl", "--kubeconfig", kubeconfig, "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s").CombinedOutput(); err != nil {
		return r, fmt.Errorf("wait for the CRD: %w: %s", err, out)
	}
	foos, err := fooClient(kubeconfig, c.group)
	if err != nil {
		return r, err
	}

	cmd := c.command(kubeconfig)
	logFile, err := os.Create(filepath.Join(dir, "contender.log"))
	if err != nil {
		return r, err
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("start %s: %w", c.name, err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()

	ctx := context.Background()
	began := time.Now()
	progress("%s, %d Foos: creating them", c.name, n)
	if err := parallel(n, func(i int) error {
		_, err := foos.Create(ctx, newFoo(c.group, i), metav1.CreateOptions{})
		return err
	}); err != nil {
		return r, fmt.Errorf("create Foos: %w", err)
	}
	if r.converge, err = waitAvailable(ctx, foos, n, 1, began, c.name); err != nil {
		return r, err
	}
	converged := time.Now()
	if r.rssBytes, err = rss(cmd.Process.Pid); err != nil {
		return r, err
	}

	progress("%s, %d Foos: converged in %v; watching idle writes for %v", c.name, n, r.converge.Round(100*time.Millisecond), idle)
	time.Sleep(idle)
	idleEnd := time.Now()

	progress("%s, %d Foos: scaling every Foo to 2 replicas", c.name, n)
	patch := []byte(`{"spec":{"replicas":2}}`)
	if err := parallel(n, func(i int) error {
		_, err := foos.Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}); err != nil {
		return r, fmt.Errorf("scale Foos: %w", err)
	}
	if r.scale, err = waitAvailable(ctx, foos, n, 2, idleEnd, c.name); err != nil {
		return r, err
	}
	scaled := time.Now()

	progress("%s, %d Foos: someone scales every Deployment to 3 replicas", c.name, n)
	if r.drift, err = driftReplicas(ctx, kubeconfig, n); err != nil {
		return r, err
	}
	drifted := time.Now()
	// The audit log is written asynchronously: let it catch up.
	time.Sleep(2 * time.Second)

	writes, err := readAudit(audit)
	if err != nil {
		return r, err
	}
	r.convergeWrites = writes.count(c.userAgent, began, converged)
	r.idleWrites = writes.count(c.userAgent, converged, idleEnd)
	r.scaleWrites = writes.count(c.userAgent, idleEnd, scaled)
	r.driftWrites = writes.count(c.userAgent, scaled, drifted)
	for _, v := range writes.count("kube-controller-manager/", began, converged) {
		r.kcmWrites += v
	}
	progress("%s, %d Foos: scaled in %v; RSS %d MiB", c.name, n, r.scale.Round(100*time.Millisecond), r.rssBytes>>20)
	return r, nil
}

// driftReplicas changes the replicas of every Foo's Deployment from 2 to 3, as another
// actor would, and returns the time until all are 2 again.
func driftReplicas(ctx context.Context, kubeconfig string, n int) (time.Duration, error) {
	cfg, err := driverConfig(kubeconfig)
	if err != nil {
		return 0, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, err
	}
	began := time.Now()
	patch := []byte(`{"spec":{"replicas":3}}`)
	if err := parallel(n, func(i int) error {
		_, err := kube.AppsV1().Deployments(namespace).Patch(ctx, fooName(i), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"})
		return err
	}); err != nil {
		return 0, fmt.Errorf("change Deployments: %w", err)
	}
	for time.Since(began) < 30*time.Minute {
		list, err := kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		back := 0
		for _, d := range list.Items {
			if d.Spec.Replicas != nil && *d.Spec.Replicas == 2 {
				back++
			}
		}
		if back == n {
			return time.Since(began), nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return 0, fmt.Errorf("the Deployments were not set back to 2 replicas within 30 minutes")
}

// script runs hack/local-cluster.sh with env.
func script(env []string, arg string) error {
	cmd := exec.Command("hack/local-cluster.sh", arg)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("hack/local-cluster.sh %s: %w: %s", arg, err, out)
	}
	return nil
}

func findAuditLog(dir string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "clusters", "*", "logs", "audit.log"))
	if err != nil || len(matches) != 1 {
		return "", fmt.Errorf("find the audit log under %s: %v %v", dir, matches, err)
	}
	return matches[0], nil
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

func fooClient(kubeconfig, group string) (dynamic.ResourceInterface, error) {
	cfg, err := driverConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return client.Resource(schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "foos"}).Namespace(namespace), nil
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

// waitAvailable waits until all n Foos report `replicas` available replicas, and returns the
// time since began. It gives up after 30 minutes.
func waitAvailable(ctx context.Context, foos dynamic.ResourceInterface, n int, replicas int64, began time.Time, name string) (time.Duration, error) {
	deadline := began.Add(30 * time.Minute)
	lastReport := time.Now()
	for {
		list, err := foos.List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		done := 0
		for _, f := range list.Items {
			if v, _, _ := unstructured.NestedInt64(f.Object, "status", "availableReplicas"); v == replicas {
				done++
			}
		}
		if done == n {
			return time.Since(began), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d of %d Foos report %d available replicas after 30 minutes", done, n, replicas)
		}
		if time.Since(lastReport) > 10*time.Second {
			progress("%s: %d of %d Foos report %d available replicas", name, done, n, replicas)
			lastReport = time.Now()
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// rss is the resident set size of a process.
func rss(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// auditEvent is what the benchmark reads of an audit event.
type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	Received metav1.MicroTime `json:"requestReceivedTimestamp"`
}

type auditLog []auditEvent

func readAudit(path string) (auditLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var events auditLog
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var e auditEvent
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", path, err)
		}
		events = append(events, e)
	}
	return events, scanner.Err()
}

// count counts the write requests of a user agent received in [from, to), by verb and
// resource.
func (l auditLog) count(userAgent string, from, to time.Time) map[string]int {
	out := map[string]int{}
	for _, e := range l {
		if !strings.HasPrefix(e.UserAgent, userAgent) || e.Received.Time.Before(from) || !e.Received.Time.Before(to) {
			continue
		}
		resource := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			resource += "/" + e.ObjectRef.Subresource
		}
		out[e.Verb+" "+resource]++
	}
	return out
}

func mustAbs(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		panic(err)
	}
	return abs
}
