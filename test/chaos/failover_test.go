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
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
)

// faultSpecs are scenarios 1 and 2 of the suite.
func faultSpecs() {
	It("hands over to the waiting replica when the leader is killed during convergence, losing and duplicating nothing", func() {
		const scenario, n = "1. Leader failover: SIGKILL of the leader while 500 Foos converge", 500
		ns, leader, follower := twoReplicasConverging("failover-kill", n)
		killed := leader.stop(syscall.SIGKILL)
		expectConverged(ns, n)

		events := readAudit()
		first := firstWrite(events, follower.name, killed)
		took := first.Sub(killed)
		figures.add(scenario, "time from the kill to the new leader's first write", took.Round(100*time.Millisecond))
		figures.add(scenario, "Foos converged (Ready, 1 available replica)", fmt.Sprintf("%d of %d", n, n))
		// The Lease lasts 20 s (main.go leaseDuration): the new leader may take it
		// only once it expired.
		Expect(took).To(BeNumerically(">=", 15*time.Second), "the new leader waited for the Lease to expire")
	})

	It("hands over at once when the leader stops gracefully, releasing its Lease", func() {
		const scenario, n = "1. Leader failover: SIGTERM of the leader while 200 Foos converge", 200
		ns, leader, follower := twoReplicasConverging("failover-term", n)
		stopped := time.Now()
		exited := leader.stop(syscall.SIGTERM)
		expectConverged(ns, n)

		events := readAudit()
		first := firstWrite(events, follower.name, stopped)
		figures.add(scenario, "time from SIGTERM to the old leader's exit (Lease released)", exited.Sub(stopped).Round(100*time.Millisecond))
		figures.add(scenario, "time from SIGTERM to the new leader's first write", first.Sub(stopped).Round(100*time.Millisecond))
		// The old leader released the Lease on its way out: the new one took it at once,
		// not after the Lease expired (20 s unrenewed, main.go).
		Expect(first.Sub(stopped)).To(BeNumerically("<", 15*time.Second), "the old leader released its Lease")
		figures.add(scenario, "Foos converged", fmt.Sprintf("%d of %d", n, n))
	})

	It("converges every Foo exactly once through ten SIGKILLs at random moments", Slow, func() {
		const scenario, n, kills = "2. Crash loop: 10 SIGKILLs at random moments while 1,000 Foos converge", 1000, 10
		ns := newNamespace("crash-loop")
		createFoos(ns, n)
		began := time.Now()
		for i := range kills {
			r := startReplica(fmt.Sprintf("manager-crash-%d", i))
			Eventually(r.leads).WithTimeout(time.Minute).Should(BeTrue())
			time.Sleep(time.Duration(rand.N(3000)) * time.Millisecond) // a random moment of its work
			r.stop(syscall.SIGKILL)
		}
		startReplica("manager-crash-last")
		expectConverged(ns, n)
		figures.add(scenario, "Foos converged, each Deployment with exactly one controller, no orphan, no duplicate", fmt.Sprintf("%d of %d", n, n))
		figures.add(scenario, "time to converge, kills and 20 s Lease expiries included", time.Since(began).Round(time.Second))
	})
}

// twoReplicasConverging starts two replicas and n Foos in a new namespace, and returns the
// namespace, the leader and the follower once a fifth of the Foos have their Deployment.
func twoReplicasConverging(namespace string, n int) (ns string, leader, follower *replica) {
	GinkgoHelper()
	ns = newNamespace(namespace)
	leader, follower = leaderOf(startReplica("manager-a"), startReplica("manager-b"))
	createFoos(ns, n)
	Eventually(deploymentsIn(ns)).Should(BeNumerically(">=", n/5))
	return ns, leader, follower
}

// newNamespace creates a namespace for a spec.
func newNamespace(name string) string {
	GinkgoHelper()
	Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
	return name
}

func fooName(i int) string { return fmt.Sprintf("foo-%04d", i) }

// createFoos creates n Foos of one replica in ns, 16 at a time.
func createFoos(ns string, n int) {
	GinkgoHelper()
	var wg sync.WaitGroup
	next := make(chan int)
	errs := make(chan error, n)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				errs <- k8s.Create(context.Background(), &samplev1alpha1.Foo{
					ObjectMeta: metav1.ObjectMeta{Name: fooName(i), Namespace: ns},
					Spec:       samplev1alpha1.FooSpec{DeploymentName: fooName(i), Replicas: ptr.To[int32](1)},
				})
			}
		})
	}
	for i := range n {
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

// expectConverged waits until the n Foos of ns are Ready with all their replicas available and
// checks that each has exactly one Deployment, of the name it asks for, controlled by it alone, and that
// there is no other Deployment.
func expectConverged(ns string, n int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		foos := &samplev1alpha1.FooList{}
		g.Expect(k8s.List(context.Background(), foos, client.InNamespace(ns))).To(Succeed())
		g.Expect(foos.Items).To(HaveLen(n))
		ready := 0
		for _, f := range foos.Items {
			if meta.IsStatusConditionTrue(f.Status.Conditions, samplev1alpha1.ReadyCondition) &&
				f.Status.ObservedGeneration == f.Generation && f.Status.AvailableReplicas == ptr.Deref(f.Spec.Replicas, 1) {
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
		var controllers []metav1.OwnerReference
		for _, ref := range d.OwnerReferences {
			if ptr.Deref(ref.Controller, false) {
				controllers = append(controllers, ref)
			}
		}
		Expect(controllers).To(HaveLen(1), "Deployment %s has exactly one controller", d.Name)
		Expect(string(controllers[0].UID)).To(Equal(uids[d.Name]), "Deployment %s is controlled by the Foo that names it", d.Name)
	}
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
