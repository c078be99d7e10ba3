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
	"slices"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// faultSpecs are scenarios 1 and 2 of the suite.
func faultSpecs() {
	It("hands over to the waiting replica when the leader is killed during convergence, losing and duplicating nothing", func() {
		const scenario, n = "1. Leader failover: SIGKILL of the leader while 500 Foos converge", 500
		ns, leader, follower := twoReplicasConverging("failover-kill", n)
		lease := leaseDuration()
		figures.add(scenario, "duration of the Lease the leader writes (spec.leaseDurationSeconds)", lease)
		// main.go leaseDuration: a waiting replica must not take over while a leader that
		// cannot renew may still run (up to 17 s after its last renewal).
		Expect(lease).To(Equal(20*time.Second), "the Lease lasts 20 s")
		killed := leader.stop(syscall.SIGKILL)
		converged := expectConverged(ns, n)

		events := readAudit()
		took := firstWrite(events, follower.name, killed).Sub(killed)
		figures.add(scenario, "time from the kill to the new leader's first write", took.Round(100*time.Millisecond))
		// The follower takes the Lease a Lease duration after it last saw it renewed: the
		// leader renewed it at most 2 s (its retry period) before the kill, and the follower,
		// trying every 2 s jittered up to 4.4 s, saw that at most 4.4 s after and takes it at
		// most 4.4 s after it expired.
		Expect(took).To(BeNumerically(">=", lease-3*time.Second), "the new leader waited for the Lease to expire")
		Expect(took).To(BeNumerically("<=", lease+9*time.Second), "the new leader took the Lease once it expired")
		figures.add(scenario, "Foos converged (Ready, 1 available replica)", fmt.Sprintf("%d of %d", converged, n))
		expectNoDuplicateCreates(scenario, events, ns)
	})

	It("hands over at once when the leader stops gracefully, releasing its Lease", func() {
		const scenario, n = "1. Leader failover: SIGTERM of the leader while 200 Foos converge", 200
		ns, leader, follower := twoReplicasConverging("failover-term", n)
		stopped := time.Now()
		exited := leader.stop(syscall.SIGTERM)
		converged := expectConverged(ns, n)

		events := readAudit()
		first := firstWrite(events, follower.name, stopped)
		figures.add(scenario, "time from SIGTERM to the old leader's exit", exited.Sub(stopped).Round(100*time.Millisecond))
		figures.add(scenario, "time from the old leader's exit to the new leader's first write", first.Sub(exited).Round(100*time.Millisecond))
		// Running reconciles finish (a few requests each), then the Lease is released.
		Expect(exited.Sub(stopped)).To(BeNumerically("<=", 5*time.Second), "the old leader exits within 5 s of SIGTERM")
		// The follower, trying every 2 s jittered up to 4.4 s, finds the Lease without a
		// holder and takes it at its next try; had the old leader not released it, the
		// follower would have waited for it to expire (20 s).
		Expect(first.Sub(exited)).To(BeNumerically("<=", 5*time.Second), "the new leader writes within 5 s of the old one's exit")
		last := writesBy(events, leader.name, stopped, exited.Add(time.Second))
		Expect(last).NotTo(BeEmpty())
		release := slices.MaxFunc(last, func(a, b framework.AuditEvent) int { return a.Received.Compare(b.Received.Time) })
		Expect(release.Verb+" "+release.Resource()).To(Equal("update coordination.k8s.io/leases"), func() string {
			return "the old leader's last write releases the Lease; its requests since SIGTERM:\n" + requestTrail(leader.name, stopped)
		})
		figures.add(scenario, "the old leader's last write", release.Verb+" "+release.Resource()+" "+release.ObjectRef.Name)
		late := writesBy(events, leader.name, first, time.Now())
		Expect(late).To(BeEmpty(), "writes of the old leader after the new leader's first write")
		figures.add(scenario, "writes of the old leader after the new leader's first write", len(late))
		figures.add(scenario, "Foos converged", fmt.Sprintf("%d of %d", converged, n))
		expectNoDuplicateCreates(scenario, events, ns)
	})

	It("converges every Foo exactly once through ten SIGKILLs of the leader while it writes", Slow, func() {
		const scenario, batch, kills = "2. Crash loop: 10 SIGKILLs of the leader while it writes, a standby always waiting: 5 while it creates Deployments, 5 while it rolls them out (1,000 Foos)", 200, 10
		const image = "example.com/nginx:rolled-out"
		ns := env.CreateNamespace("crash-loop", false)
		began := time.Now()
		leader, standby := leaderOf(startReplica("manager-crash-0"), startReplica("manager-crash-1"))
		type handover struct {
			dead, successor *replica
			killed          time.Time
		}
		var handovers []handover
		for k := range kills {
			// Each kill comes with work of its own, 200 Foos created or given a new image, so
			// that the leader is writing when it is killed, whatever the earlier ones did.
			progress, work := deploymentsIn(ns), func() { createFoos(ns, k*batch, (k+1)*batch) }
			if k >= kills/2 {
				from := (k - kills/2) * batch
				progress, work = deploymentsWithImage(ns, image), func() { setImage(ns, from, from+batch, image) }
			}
			before, err := progress()
			Expect(err).NotTo(HaveOccurred())
			work()
			Eventually(progress).WithTimeout(2*time.Minute).WithPolling(200*time.Millisecond).Should(BeNumerically(">", before), "the leader writes")
			handovers = append(handovers, handover{dead: leader, successor: standby, killed: leader.stop(syscall.SIGKILL)})
			Eventually(standby.leads).WithTimeout(time.Minute).Should(BeTrue())
			leader, standby = standby, startReplica(fmt.Sprintf("manager-crash-%d", k+2))
		}
		const n = kills / 2 * batch
		converged := expectConverged(ns, n)
		figures.add(scenario, "Foos converged, each Deployment with exactly one controller, no orphan", fmt.Sprintf("%d of %d", converged, n))
		rolledOut, err := deploymentsWithImage(ns, image)()
		Expect(err).NotTo(HaveOccurred())
		Expect(rolledOut).To(Equal(n), "Deployments with the Foos' new image")
		figures.add(scenario, "Deployments with the Foos' new image", fmt.Sprintf("%d of %d", rolledOut, n))
		figures.add(scenario, "time from the first Foo to every Foo converged, a Lease expiry after each kill included", time.Since(began).Round(time.Second))

		events := readAudit()
		var late []string
		var slowest time.Duration
		for _, h := range handovers {
			first := firstWrite(events, h.successor.name, h.killed)
			slowest = max(slowest, first.Sub(h.killed))
			for _, w := range writesBy(events, h.dead.name, first, time.Now()) {
				late = append(late, fmt.Sprintf("%s: %s %s %s", h.dead.name, w.Verb, w.Resource(), w.ObjectRef.Name))
			}
		}
		Expect(late).To(BeEmpty(), "writes of a killed leader after its successor's first write")
		figures.add(scenario, "writes of a killed leader after its successor's first write", len(late))
		figures.add(scenario, "longest time from a kill to the successor's first write", slowest.Round(100*time.Millisecond))
		expectNoDuplicateCreates(scenario, events, ns)
	})
}

// twoReplicasConverging starts two replicas and n Foos in a new namespace, and returns the
// namespace, the leader and the follower once a fifth of the Foos have their Deployment.
func twoReplicasConverging(namespace string, n int) (ns string, leader, follower *replica) {
	GinkgoHelper()
	ns = env.CreateNamespace(namespace, false)
	leader, follower = leaderOf(startReplica("manager-a"), startReplica("manager-b"))
	createFoos(ns, 0, n)
	Eventually(deploymentsIn(ns)).Should(BeNumerically(">=", n/5))
	return ns, leader, follower
}

func fooName(i int) string { return fmt.Sprintf("foo-%04d", i) }

// createFoos creates the Foos numbered from to to-1 in ns, of one replica each, 16 at a time.
func createFoos(ns string, from, to int) {
	GinkgoHelper()
	forEach(from, to, func(i int) error {
		return k8s.Create(context.Background(), &samplev1alpha1.Foo{
			ObjectMeta: metav1.ObjectMeta{Name: fooName(i), Namespace: ns},
			Spec:       samplev1alpha1.FooSpec{DeploymentName: fooName(i), Replicas: ptr.To[int32](1)},
		})
	})
}

// setImage sets the image of the Foos numbered from to to-1 in ns, 16 at a time.
func setImage(ns string, from, to int, image string) {
	GinkgoHelper()
	patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"image":%q}}`, image)))
	forEach(from, to, func(i int) error {
		return k8s.Patch(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: fooName(i), Namespace: ns}}, patch)
	})
}

// forEach calls do for each of from to to-1, 16 at a time, and expects no error.
func forEach(from, to int, do func(int) error) {
	GinkgoHelper()
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make(chan error, to-from)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				errs <- do(i)
			}
		})
	}
	for i := from; i < to; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		Expect(err).NotTo(HaveOccurred())
	}
}

// deploymentsIn returns a function counting the Deployments in ns.
func deploymentsIn(ns string) func() (int, error) {
	return func() (int, error) {
		list := &appsv1.DeploymentList{}
		err := k8s.List(context.Background(), list, client.InNamespace(ns))
		return len(list.Items), err
	}
}

// deploymentsWithImage returns a function counting the Deployments in ns whose container
// runs image.
func deploymentsWithImage(ns, image string) func() (int, error) {
	return func() (int, error) {
		list := &appsv1.DeploymentList{}
		err := k8s.List(context.Background(), list, client.InNamespace(ns))
		return len(slices.DeleteFunc(list.Items, func(d appsv1.Deployment) bool {
			return len(d.Spec.Template.Spec.Containers) == 0 || d.Spec.Template.Spec.Containers[0].Image != image
		})), err
	}
}

// expectConverged waits until the n Foos of ns are Ready with all their replicas available and
// checks that each has exactly one Deployment, of the name it asks for, controlled by it alone, and that
// there is no other Deployment. It returns how many Foos are Ready, as read last.
func expectConverged(ns string, n int) int {
	GinkgoHelper()
	ready := 0
	Eventually(func(g Gomega) {
		foos := &samplev1alpha1.FooList{}
		g.Expect(k8s.List(context.Background(), foos, client.InNamespace(ns))).To(Succeed())
		g.Expect(foos.Items).To(HaveLen(n))
		ready = 0
		for _, f := range foos.Items {
			if meta.IsStatusConditionTrue(f.Status.Conditions, samplev1alpha1.ReadyCondition) &&
				f.Status.ObservedGeneration == f.Generation && f.Status.AvailableReplicas == f.Spec.DesiredReplicas() {
				ready++
			}
		}
		g.Expect(ready).To(Equal(n), "Foos Ready")
	}).WithTimeout(15 * time.Minute).WithPolling(5 * time.Second).Should(Succeed())

	foos := &samplev1alpha1.FooList{}
	Expect(k8s.List(context.Background(), foos, client.InNamespace(ns))).To(Succeed())
	uids := map[string]string{}
	for _, f := range foos.Items {
		uids[f.Spec.DeploymentName] = string(f.UID)
	}
	deployments := &appsv1.DeploymentList{}
	Expect(k8s.List(context.Background(), deployments, client.InNamespace(ns))).To(Succeed())
	Expect(deployments.Items).To(HaveLen(n), "one Deployment per Foo, no orphan")
	for _, d := range deployments.Items {
		var controlling []metav1.OwnerReference
		for _, ref := range d.OwnerReferences {
			if ptr.Deref(ref.Controller, false) {
				controlling = append(controlling, ref)
			}
		}
		Expect(controlling).To(HaveLen(1), "Deployment %s has exactly one controller", d.Name)
		Expect(string(controlling[0].UID)).To(Equal(uids[d.Name]), "Deployment %s is controlled by the Foo that names it", d.Name)
	}
	return ready
}

// leaseDuration is the duration the leader wrote into the leader election Lease.
func leaseDuration() time.Duration {
	GinkgoHelper()
	lease := &coordinationv1.Lease{}
	Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNamespace, Name: suite.LeaderElectionLease()}, lease)).To(Succeed())
	return time.Duration(ptr.Deref(lease.Spec.LeaseDurationSeconds, 0)) * time.Second
}

// firstWrite is when a replica first wrote after from.
func firstWrite(events framework.AuditLog, replica string, from time.Time) time.Time {
	GinkgoHelper()
	writes := writesBy(events, replica, from, time.Now())
	Expect(writes).NotTo(BeEmpty(), "%s wrote after %v", replica, from)
	first := writes[0].Received.Time
	for _, w := range writes {
		if w.Received.Time.Before(first) {
			first = w.Received.Time
		}
	}
	return first
}
