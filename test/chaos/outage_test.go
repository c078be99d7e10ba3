//go:build chaos

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

package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// outageSpecs are scenario 3: kube-apiserver and etcd stopped for 30 s and (unless
// CHAOS_SHORT is set) 3 minutes, while Foos converge and while they are idle.
func outageSpecs() {
	durations := []time.Duration{30 * time.Second}
	if !short() {
		durations = append(durations, 3*time.Minute)
	}
	for _, component := range []string{"kube-apiserver", "etcd"} {
		for _, d := range durations {
			outageSpec(component, d, true)
			outageSpec(component, d, false)
		}
	}
}

func outageSpec(component string, outage time.Duration, converging bool) {
	phase, n := "idle", 50
	if converging {
		phase, n = "converging", 200
	}
	scenario := fmt.Sprintf("3. %s stopped for %v while %d Foos are %s", component, outage, n, phase)
	// CI runs one outage of each component (Slow leaves the others to the full suite).
	var labels []any
	if component == "kube-apiserver" && !converging || component == "etcd" && converging {
		labels = append(labels, Slow)
	}
	It(fmt.Sprintf("recovers from %s stopped for %v while Foos are %s, restarting as its pod would", component, outage, phase), append(labels, func() {
		name := fmt.Sprintf("outage-%s-%s-%s", strings.TrimPrefix(component, "kube-"), outage, phase)
		ns := env.CreateNamespace(name, false)
		operator := supervise("manager-" + name)
		Eventually(operator.leads).WithTimeout(time.Minute).Should(BeTrue())
		createFoos(ns, 0, n)
		if converging {
			Eventually(deploymentsIn(ns)).Should(BeNumerically(">=", n/5))
		} else {
			expectConverged(ns, n)
		}

		down := time.Now()
		clusterComponents[component].kill()
		time.Sleep(outage)
		clusterComponents[component].start()
		restarted := time.Now()
		// kube-apiserver reconnects to a restarted etcd with gRPC's backoff, which grows to
		// 2 minutes during a long outage.
		Eventually(apiAnswers).WithTimeout(5 * time.Minute).Should(Succeed())
		back := time.Now()
		figures.add(scenario, fmt.Sprintf("time from %s started again to the API answering (readyz; as the operator, lists of Foos and Deployments and its Lease)", component), back.Sub(restarted).Round(time.Second))
		// The kubelet restarts the control plane's static pods, should one have exited.
		// kube-controller-manager and kube-scheduler run without leader election here
		// (hack/local-cluster.sh), so a lost Lease no longer stops them: after the short
		// suite's 30 s outages at 7aa7cde, none had exited.
		restartExitedComponents()

		if converging {
			expectConverged(ns, n)
			figures.add(scenario, "time from the API answering again to every Foo converged", time.Since(back).Round(time.Second))
		} else {
			foo := &samplev1alpha1.Foo{}
			foo.Namespace, foo.Name = ns, fooName(0)
			Expect(k8s.Patch(context.Background(), foo, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":2}}`)))).To(Succeed())
			Eventually(func(g Gomega) {
				d := &appsv1.Deployment{}
				g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: fooName(0)}, d)).To(Succeed())
				g.Expect(*d.Spec.Replicas).To(BeEquivalentTo(2))
			}).Should(Succeed())
			figures.add(scenario, "time from the API answering again to a change made then applied", time.Since(back).Round(time.Second))
			expectConverged(ns, n)
			time.Sleep(5 * time.Second) // the audit log is written asynchronously
			var others []string
			for _, w := range writesBy(readAudit(), operator.name, down, time.Now()) {
				if w.ObjectRef.Namespace == ns && !strings.HasPrefix(w.ObjectRef.Name, fooName(0)) { // its events are named foo-0000.<suffix>
					others = append(others, w.Verb+" "+w.Resource()+" "+w.ObjectRef.Name)
				}
			}
			Expect(others).To(BeEmpty(), "writes to the Foos that did not change, or their Deployments, since the outage began")
			figures.add(scenario, "writes to unchanged Foos and their Deployments after the outage", len(others))
		}
		// The restarted replica starts its informers once the API server is ready
		// (main.go newCache) and keeps its pod's identity (main.go podLeaderLock), so the
		// Lease it held is still its own: it renews it at its first try instead of waiting, as
		// a stranger must, a Lease duration (20 s) from when it first read the Lease.
		first := firstWrite(readAudit(), operator.name, back).Sub(back)
		figures.add(scenario, "time from the API answering again to the operator's first write (taking the Lease)", first.Round(100*time.Millisecond))
		Expect(first).To(BeNumerically("<=", 5*time.Second), "the operator writes within 5 s of the API answering")
		// A restart when the Lease could not be renewed is how controller-runtime keeps two
		// leaders from running: more than one per outage would be a restart storm.
		Expect(operator.restarts()).To(BeNumerically("<=", 1))
		figures.add(scenario, "operator restarts (it exits when it cannot renew its Lease)", operator.restarts())
	})...)
}

// short reports whether the suite runs its short version (CHAOS_SHORT, set by CI): 30 s
// outages and partitions only.
func short() bool { return os.Getenv("CHAOS_SHORT") != "" }

// apiAnswers checks that kube-apiserver answers what the operator needs, with a token of
// its service account (not a replica's, whose requests the specs count): its readiness
// check, lists of Foos and Deployments and a read of the leader election Lease, each within
// 5 s. After a long etcd outage readyz alone may pass minutes before the rest: each etcd
// client of kube-apiserver (readyz's own, a CRD's, each resource's) reconnects on its own
// gRPC backoff, and a request through one still waiting hangs up to the request timeout.
func apiAnswers() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := clientset.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
		return err
	}
	for _, list := range []client.ObjectList{&samplev1alpha1.FooList{}, &appsv1.DeploymentList{}} {
		if err := asOperator.List(ctx, list, client.Limit(1)); err != nil {
			return err
		}
	}
	return asOperator.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: suite.LeaderElectionLease()}, &coordinationv1.Lease{})
}

// clusterComponent is a process of the local cluster, with the command line it ran with: a
// spec stops it and starts it again with that command line.
type clusterComponent struct {
	framework.Component
	argv []string
}

// clusterComponents are the local cluster's processes, read once it is up.
var clusterComponents = map[string]*clusterComponent{}

// readClusterComponents records how every process of the local cluster was started.
func readClusterComponents() {
	GinkgoHelper()
	components, err := cluster.Components()
	Expect(err).NotTo(HaveOccurred())
	for _, component := range components {
		c := &clusterComponent{Component: component}
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.pid()))
		Expect(err).NotTo(HaveOccurred())
		c.argv = strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		clusterComponents[c.Name] = c
	}
}

func (c *clusterComponent) pid() int {
	GinkgoHelper()
	pid, err := c.Pid()
	Expect(err).NotTo(HaveOccurred())
	return pid
}

// kill stops the process at once, as a crash or a lost machine does.
func (c *clusterComponent) kill() {
	GinkgoHelper()
	Expect(syscall.Kill(c.pid(), syscall.SIGKILL)).To(Succeed())
	Eventually(c.Running).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(BeFalse())
}

// start runs the process again as kwokctl started it, and records its pid where kwokctl
// looks for it (hack/local-cluster.sh down stops it).
func (c *clusterComponent) start() {
	GinkgoHelper()
	log, err := os.OpenFile(c.Log, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	Expect(err).NotTo(HaveOccurred())
	defer log.Close()
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.Dir, log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	Expect(cmd.Start()).To(Succeed())
	go func() { _ = cmd.Wait() }()
	Expect(os.WriteFile(c.PidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)).To(Succeed())
}

// restartExitedComponents starts the cluster's processes that exited.
func restartExitedComponents() {
	GinkgoHelper()
	for _, c := range clusterComponents {
		if !c.Running() {
			GinkgoWriter.Printf("restarting %s, which exited\n", c.Name)
			c.start()
		}
	}
}

// supervisor runs a replica of the operator and starts it again whenever it exits, with
// the kubelet's backoff for a restarting container (10 s, doubled on every restart, at most
// 5 minutes, reset once it ran for 10 minutes): what a cluster does for the operator's pod.
// Every replica it starts has the same name, and so the same pod identity (launch).
type supervisor struct {
	name string
	args []string

	mu       sync.Mutex
	replicas []*replica // every process started, the running one last

	stop, stopped chan struct{}
}

// supervise starts a supervised replica until the spec ends.
func supervise(name string, args ...string) *supervisor {
	GinkgoHelper()
	first, err := launch(name, args...)
	Expect(err).NotTo(HaveOccurred())
	s := &supervisor{name: name, args: args, replicas: []*replica{first}, stop: make(chan struct{}), stopped: make(chan struct{})}
	go s.loop()
	DeferCleanup(func() {
		close(s.stop)
		<-s.stopped
		s.current().Stop(30 * time.Second)
		for _, r := range s.all() {
			suite.AttachLogOnFailure(r.name, r.Process)
		}
		if CurrentSpecReport().Failed() {
			AddReportEntry(name+" requests", requestTrail(name, first.Started))
		}
	})
	return s
}

func (s *supervisor) loop() {
	defer close(s.stopped)
	const initial, limit, reset = 10 * time.Second, 5 * time.Minute, 10 * time.Minute
	backoff := initial
	for {
		r := s.current()
		select {
		case <-s.stop:
			return
		case <-r.Done:
		}
		if r.Exited.Sub(r.Started) >= reset {
			backoff = initial
		}
		select {
		case <-s.stop:
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, limit)
		next, err := launch(s.name, s.args...)
		if err != nil {
			GinkgoWriter.Printf("supervisor: cannot start %s: %v\n", s.name, err)
			continue // the exited replica stays current: try again after the next backoff
		}
		s.mu.Lock()
		s.replicas = append(s.replicas, next)
		s.mu.Unlock()
	}
}

func (s *supervisor) current() *replica {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replicas[len(s.replicas)-1]
}

func (s *supervisor) all() []*replica {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*replica(nil), s.replicas...)
}

// restarts is how many times the replica was started again.
func (s *supervisor) restarts() int { return len(s.all()) - 1 }

// leads reports whether the running replica holds the Lease.
func (s *supervisor) leads() bool { return s.current().leads() }
