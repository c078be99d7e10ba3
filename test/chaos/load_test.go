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
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
)

// loadSpecs are scenario 7: 5,000 Foos in 50 namespaces (1,000 in 10 with CHAOS_SHORT).
func loadSpecs() {
	It("converges thousands of Foos within its shipped memory limit, with the requests they need and no more", Slow, func() {
		namespaces := 50
		if short() {
			namespaces = 10
		}
		const perNamespace = 100
		n := namespaces * perNamespace
		scenario := fmt.Sprintf("7. Load: %d Foos in %d namespaces, created at once", n, namespaces)

		began := time.Now()
		operator := startReplica("manager-load")
		Eventually(operator.leads).WithTimeout(time.Minute).Should(BeTrue())
		var wg sync.WaitGroup
		for i := range namespaces {
			ns := newNamespace(fmt.Sprintf("load-%02d", i))
			wg.Go(func() {
				defer GinkgoRecover()
				createFoos(ns, 0, perNamespace)
			})
		}
		wg.Wait()
		// The namespaces converge together (kube-controller-manager works through them all at
		// once), so the first may take as long as the whole: wait for every Foo first.
		Eventually(func(g Gomega) {
			foos := &samplev1alpha1.FooList{}
			g.Expect(k8s.List(context.Background(), foos)).To(Succeed())
			ready := 0
			for _, f := range foos.Items {
				if strings.HasPrefix(f.Namespace, "load-") && meta.IsStatusConditionTrue(f.Status.Conditions, samplev1alpha1.ReadyCondition) {
					ready++
				}
			}
			g.Expect(ready).To(Equal(n))
		}).WithTimeout(45 * time.Minute).WithPolling(10 * time.Second).Should(Succeed())
		for i := range namespaces {
			expectConverged(fmt.Sprintf("load-%02d", i), perNamespace)
		}
		figures.add(scenario, "time from the first create to every Foo converged", time.Since(began).Round(time.Second))

		time.Sleep(5 * time.Second) // the audit log is written asynchronously
		rss, err := vmHWM(operator.Pid())
		Expect(err).NotTo(HaveOccurred())
		figures.add(scenario, "peak RSS of the operator (VmHWM) / shipped memory limit (GOMEMLIMIT 85 % of it, as main.go sets it)",
			fmt.Sprintf("%d MiB / %d MiB", rss>>20, memoryLimit.Value()>>20))
		Expect(rss).To(BeNumerically("<", memoryLimit.Value()), "peak RSS within the shipped memory limit")

		// Per Foo: a read of its Deployment name from the API server (the cache holds only
		// the operator's Deployments), the creating apply, its event, and status writes: the
		// rollout's steps once it outlasts --progress-report-delay (at most two for one
		// replica: created, then available), or only its end. Lease renewals, lists and
		// watches are the operator's fixed cost.
		expected := map[string]int{
			// n/100: a Foo reconciled again before the cache has seen the Deployment it just
			// created reads the name from the API server again; a hundredth allows for them.
			"get apps/deployments":                           n + n/100,
			"patch apps/deployments":                         n,
			"create events.k8s.io/events":                    n,
			"patch samplecontroller.example.com/foos/status": 2 * n,
		}
		requests := requestsBy(readAudit(), operator.name, began, time.Now())
		counts := requests.Count()
		perFoo := len(requests.Where(func(e framework.AuditEvent) bool {
			return e.ObjectRef.Resource != "leases" && e.Verb != "watch" && e.Verb != "list"
		}))
		// The audit log sees this replica's work: every Foo's Deployment applied once.
		Expect(counts["patch apps/deployments"]).To(BeNumerically(">=", n), "the replica's applies are in the audit log")
		var table []string
		for _, key := range slices.Sorted(maps.Keys(counts)) {
			table = append(table, fmt.Sprintf("%s %d", key, counts[key]))
		}
		figures.add(scenario, "requests of the operator to the API server, by verb and resource", strings.Join(table, "; "))
		figures.add(scenario, "requests per Foo (besides Leases, lists and watches)", fmt.Sprintf("%.2f", float64(perFoo)/float64(n)))
		total := 0
		for key, bound := range expected {
			Expect(counts[key]).To(BeNumerically("<=", bound), key)
			total += bound
		}
		Expect(perFoo).To(BeNumerically("<=", total+10), "at most the requests above, and a few events of leader election")
	})
}

// memoryLimit is the memory limit of the operator's container in config/default; the
// replicas run with MEMORY_LIMIT set to it, as its Deployment does (main.go sets GOMEMLIMIT from it).
var memoryLimit resource.Quantity

// shippedMemoryLimit reads the manager container's memory limit from the manifests
// config/default builds.
func shippedMemoryLimit(manifests string) resource.Quantity {
	GinkgoHelper()
	for _, doc := range strings.Split(manifests, "\n---\n") {
		d := &appsv1.Deployment{}
		Expect(yaml.Unmarshal([]byte(doc), d)).To(Succeed())
		if d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "manager" {
				return c.Resources.Limits[corev1.ResourceMemory]
			}
		}
	}
	Fail("config/default has no manager container")
	return resource.Quantity{}
}

// vmHWM is a process's peak resident set size, in bytes.
func vmHWM(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if kb, ok := strings.CutPrefix(scanner.Text(), "VmHWM:"); ok {
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), 10, 64)
			return v << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
