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
	"path/filepath"
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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// loadCluster is the load's own cluster: a real node (kubelet and containerd) runs the
// operator as config/default deploys it, a container under its shipped memory limit, and a
// simulated node beside it holds the thousands of operand pods no real node could.
var loadCluster = &framework.Cluster{Dir: filepath.Join(root, ".kwok-chaos-load"), RealNode: true, SimulatedNode: true,
	AuditPolicy: framework.AuditPolicyFile(), NoMetricsServer: true, NodePods: 12000, ControllerManagerQPS: 100}

// loadSpecs are scenarios 7 and 8: 5,000 Foos in 50 namespaces, then the same with a memory
// limit too small for them.
func loadSpecs() {
	const namespaces, perNamespace = 50, 100
	const n = namespaces * perNamespace
	nsName := func(i int) string { return fmt.Sprintf("load-%02d", i) }

	BeforeAll(func() {
		By("starting a cluster with a real node for the operator and a simulated one for its operands")
		Expect(loadCluster.Down()).To(Succeed())
		DeferCleanup(func() { Expect(loadCluster.Down()).To(Succeed()) }) // also after a failed Up
		Expect(loadCluster.Up()).To(Succeed())
		// The helpers of the suite (createFoos, expectConverged, readAudit) use the suite's
		// cluster and clients: these specs point them at this cluster, and back after.
		suiteCluster, suiteCfg, suiteK8s, suiteClientset := cluster, cfg, k8s, clientset
		DeferCleanup(func() { cluster, cfg, k8s, clientset = suiteCluster, suiteCfg, suiteK8s, suiteClientset })
		var err error
		cluster = loadCluster
		cfg, err = loadCluster.Config()
		Expect(err).NotTo(HaveOccurred())
		cfg.QPS, cfg.Burst = 200, 400
		k8s, clientset = suite.Clients(cfg, samplev1alpha1.AddToScheme)

		By("building the operator's image and deploying config/default, placed on the real node")
		manifests := suite.Run(root, nil, "bin/kustomize", "build", "config/default")
		Expect(loadCluster.BuildOperatorImage(managerContainer(manifests).Image)).To(Succeed())
		suite.Run(root, strings.NewReader(onRealNode(manifests)), "bin/kubectl", "--kubeconfig", loadCluster.Kubeconfig(),
			"apply", "--server-side", "-f", "-")
		DeferCleanup(func() {
			if CurrentSpecReport().Failed() {
				AddReportEntry("the operator's log", operatorLog())
			}
		})
		// One replica of config/default's two: the container measured is the one that works.
		scaleOperator(1)
		operatorPod(memoryLimit)
	})

	It("converges thousands of Foos as a container within its shipped memory limit, with the requests they need and no more", func() {
		scenario := fmt.Sprintf("7. Load: %d Foos in %d namespaces, created at once; the operator a container of config/default's Deployment "+
			"on a real node, their pods on a simulated one (kube-controller-manager at --kube-api-qps %d)", n, namespaces, loadCluster.ControllerManagerQPS)
		pod := operatorPod(memoryLimit)
		began := time.Now()
		var wg sync.WaitGroup
		for i := range namespaces {
			ns := env.CreateNamespace(nsName(i), false)
			wg.Go(func() {
				defer GinkgoRecover()
				createFoos(ns, 0, perNamespace)
			})
		}
		wg.Wait()
		converged := expectAllConverged(namespaces, perNamespace, nsName)
		figures.add(scenario, "Foos converged (Ready, their replicas available, one Deployment each)", fmt.Sprintf("%d of %d", converged, n))
		figures.add(scenario, "time from the first create to every Foo converged", time.Since(began).Round(time.Second))

		time.Sleep(5 * time.Second) // the audit log is written asynchronously
		peak, rss := containerMemory(pod)
		figures.add(scenario, "peak memory of the operator's container, as its memory cgroup counts it for the limit (page cache included) / its limit",
			fmt.Sprintf("%d MiB / %d MiB", peak>>20, memoryLimit.Value()>>20))
		figures.add(scenario, "peak RSS of the operator's process (VmHWM: it counts the file pages it maps, which the cgroup charged to whoever cached them first)", fmt.Sprintf("%d MiB", rss>>20))
		Expect(peak).To(BeNumerically("<", memoryLimit.Value()), "peak memory within the shipped limit")
		pod = operatorPod(memoryLimit)
		figures.add(scenario, "restarts of the operator's container", pod.Status.ContainerStatuses[0].RestartCount)

		// Per Foo: the create of its Deployment, its event, and status writes: the rollout's
		// steps once it outlasts --progress-report-delay (at most two for one replica:
		// created, then available), or only its end. Lease renewals, lists and watches are
		// the operator's fixed cost.
		expected := map[string]int{
			// n/100: a Foo reconciled again before the cache has seen the Deployment it just
			// created creates it again, is refused (AlreadyExists), and reads it from the API
			// server; a hundredth allows for them.
			"create apps/deployments":                        n + n/100,
			"get apps/deployments":                           n / 100,
			"create events.k8s.io/events":                    n,
			"patch samplecontroller.example.com/foos/status": 2 * n,
		}
		requests := byOperator(readAudit()).Between(began, time.Now())
		counts := requests.Count()
		perFoo := len(requests.Where(func(e framework.AuditEvent) bool {
			return e.ObjectRef.Resource != "leases" && e.Verb != "watch" && e.Verb != "list"
		}))
		// The audit log sees the operator's work: every Foo's Deployment created once.
		Expect(counts["create apps/deployments"]).To(BeNumerically(">=", n), "the operator's creates are in the audit log")
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

	It("restarts for OOMKilled under a memory limit too small for its Foos, loses none, and catches up once the limit is raised", func() {
		tooSmall := resource.MustParse("64Mi")
		scenario := fmt.Sprintf("8. Memory limit too small: the operator restarted with %v (limit and request) for the %d Foos above, then given its shipped limit back",
			&tooSmall, n)
		deployments := deploymentUIDs()
		Expect(deployments).To(HaveLen(n))
		lowered := time.Now()
		By("restarting the operator with a memory limit too small for its Foos")
		scaleOperator(0)
		Eventually(func(g Gomega) { g.Expect(operatorPods(g)).To(BeEmpty()) }).Should(Succeed())
		setOperatorMemory(tooSmall, tooSmall)
		scaleOperator(1)
		By("a Foo changed while the operator cannot run")
		changed := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":2}}`))
		Expect(k8s.Patch(context.Background(), &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: fooName(0), Namespace: nsName(0)}}, changed)).To(Succeed())
		// The kubelet's reason for each restart, by restart: two, to show it is no accident.
		reasons := map[int32]string{}
		Eventually(func(g Gomega) {
			pods := operatorPods(g)
			g.Expect(pods).To(HaveLen(1))
			g.Expect(pods[0].Spec.Containers[0].Resources.Limits.Memory().Equal(tooSmall)).To(BeTrue())
			g.Expect(pods[0].Status.ContainerStatuses).To(HaveLen(1))
			status := pods[0].Status.ContainerStatuses[0]
			if last := status.LastTerminationState.Terminated; last != nil {
				reasons[status.RestartCount] = last.Reason
			}
			g.Expect(len(reasons)).To(BeNumerically(">=", 2), "restarts seen")
		}).WithTimeout(10 * time.Minute).WithPolling(time.Second).Should(Succeed())
		for restart, reason := range reasons {
			Expect(reason).To(Equal("OOMKilled"), "the kubelet's reason for restart %d", restart)
		}
		var seen []string
		for _, restart := range slices.Sorted(maps.Keys(reasons)) {
			seen = append(seen, fmt.Sprintf("restart %d: %s", restart, reasons[restart]))
		}
		figures.add(scenario, "the kubelet's reason for each restart of the container seen", strings.Join(seen, ", "))
		Expect(deploymentUIDs()).To(Equal(deployments), "no Deployment deleted or recreated")

		By("giving the operator its shipped limit back")
		raised := time.Now()
		setOperatorMemory(shippedMemoryRequest, memoryLimit)
		operatorPod(memoryLimit)
		converged := expectAllConverged(namespaces, perNamespace, nsName)
		figures.add(scenario, "time from the shipped limit restored to every Foo converged (the Foo changed meanwhile included)", time.Since(raised).Round(time.Second))
		Expect(deploymentUIDs()).To(Equal(deployments), "no Deployment deleted or recreated")
		time.Sleep(5 * time.Second) // the audit log is written asynchronously
		deletes := byOperator(readAudit()).Between(lowered, time.Now()).Where(func(e framework.AuditEvent) bool { return e.Verb == "delete" })
		Expect(deletes).To(BeEmpty(), "the operator's deletes")
		figures.add(scenario, "Foos converged; their Deployments deleted or recreated (UIDs before and after); deletes of the operator (audit log)",
			fmt.Sprintf("%d of %d; %d; %d", converged, n, len(deployments)-countSame(deployments, deploymentUIDs()), len(deletes)))
	})
}

// expectAllConverged waits until every Foo of the namespaces is Ready (they converge
// together: kube-controller-manager works through them all at once, so the first may take
// as long as the whole), then checks each namespace as expectConverged does, and returns
// how many converged.
func expectAllConverged(namespaces, perNamespace int, nsName func(int) string) int {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		foos := &samplev1alpha1.FooList{}
		g.Expect(k8s.List(context.Background(), foos)).To(Succeed())
		ready := 0
		for _, f := range foos.Items {
			if meta.IsStatusConditionTrue(f.Status.Conditions, samplev1alpha1.ReadyCondition) && f.Status.ObservedGeneration == f.Generation {
				ready++
			}
		}
		g.Expect(ready).To(Equal(namespaces * perNamespace))
	}).WithTimeout(45 * time.Minute).WithPolling(10 * time.Second).Should(Succeed())
	converged := 0
	for i := range namespaces {
		converged += expectConverged(nsName(i), perNamespace)
	}
	return converged
}

// byOperator is the requests of the operator's service account: in the load's cluster only
// the operator's pod uses it.
func byOperator(events framework.AuditLog) framework.AuditLog {
	return events.Where(func(e framework.AuditEvent) bool { return e.User.Username == operatorUser })
}

// deploymentUIDs are the UIDs of every Deployment of the Foos, by namespace/name.
func deploymentUIDs() map[string]string {
	GinkgoHelper()
	list := &appsv1.DeploymentList{}
	Expect(k8s.List(context.Background(), list)).To(Succeed())
	uids := map[string]string{}
	for _, d := range list.Items {
		if strings.HasPrefix(d.Namespace, "load-") {
			uids[d.Namespace+"/"+d.Name] = string(d.UID)
		}
	}
	return uids
}

// countSame is how many keys of a map to the same value in b.
func countSame(a, b map[string]string) int {
	same := 0
	for k, v := range a {
		if b[k] == v {
			same++
		}
	}
	return same
}

const operatorDeployment = "foo-operator-controller-manager"

// operatorPods are the operator's pods that are not being deleted.
func operatorPods(g Gomega) []corev1.Pod {
	pods, err := podsIn(operatorNamespace, operatorLabels)()
	g.Expect(err).NotTo(HaveOccurred())
	return slices.DeleteFunc(pods, func(p corev1.Pod) bool { return p.DeletionTimestamp != nil })
}

// operatorPod waits until the operator's Deployment has one pod, on the real node, with
// the memory limit limit, Ready and never restarted, and returns it.
func operatorPod(limit resource.Quantity) corev1.Pod {
	GinkgoHelper()
	var pod corev1.Pod
	Eventually(func(g Gomega) {
		pods := operatorPods(g)
		g.Expect(pods).To(HaveLen(1))
		pod = pods[0]
		g.Expect(pod.Spec.NodeName).To(Equal(framework.RealNodeName))
		g.Expect(pod.Spec.Containers[0].Resources.Limits.Memory().Equal(limit)).To(BeTrue(), "the memory limit")
		g.Expect(pod.Status.ContainerStatuses).To(HaveLen(1))
		g.Expect(pod.Status.ContainerStatuses[0].Ready).To(BeTrue())
		g.Expect(pod.Status.ContainerStatuses[0].RestartCount).To(BeZero())
	}).WithTimeout(5 * time.Minute).Should(Succeed())
	return pod
}

// scaleOperator sets the replicas of the operator's Deployment.
func scaleOperator(replicas int) {
	GinkgoHelper()
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas))
	Expect(k8s.Patch(context.Background(), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: operatorDeployment, Namespace: operatorNamespace}}, patch)).To(Succeed())
}

// setOperatorMemory sets the memory request and limit of the operator's container.
func setOperatorMemory(request, limit resource.Quantity) {
	GinkgoHelper()
	patch := client.RawPatch(types.StrategicMergePatchType, fmt.Appendf(nil,
		`{"spec":{"template":{"spec":{"containers":[{"name":"manager","resources":{"requests":{"memory":%q},"limits":{"memory":%q}}}]}}}}`,
		request.String(), limit.String()))
	Expect(k8s.Patch(context.Background(), &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: operatorDeployment, Namespace: operatorNamespace}}, patch)).To(Succeed())
}

// operatorLog is the log of the operator's pods' containers, and of their last restart.
func operatorLog() string {
	var b strings.Builder
	for _, p := range operatorPods(Default) {
		for _, previous := range []bool{true, false} {
			raw, err := clientset.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Previous: previous, TailLines: ptr.To[int64](200)}).
				DoRaw(context.Background())
			fmt.Fprintf(&b, "--- %s (previous: %v, error: %v)\n%s\n", p.Name, previous, err, raw)
		}
	}
	return b.String()
}

// containerMemory is the peak memory use of pod's container as its memory cgroup counts it
// against the limit (page cache included), and the peak RSS of its process, read on this
// machine, the real node's host. The kubelet's cgroupfs driver names the cgroup
// kubepods[/<QoS class>]/pod<UID>/<container ID>; cgroup v1 calls the peak
// memory.max_usage_in_bytes, v2 memory.peak.
func containerMemory(pod corev1.Pod) (peak, rss int64) {
	GinkgoHelper()
	_, id, _ := strings.Cut(pod.Status.ContainerStatuses[0].ContainerID, "://")
	for root, file := range map[string]string{"/sys/fs/cgroup/memory/kubepods": "memory.max_usage_in_bytes", "/sys/fs/cgroup/kubepods": "memory.peak"} {
		for _, pattern := range []string{"pod%s/%s", "*/pod%s/%s"} {
			dirs, _ := filepath.Glob(filepath.Join(root, fmt.Sprintf(pattern, pod.UID, id)))
			if len(dirs) != 1 {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(dirs[0], file))
			Expect(err).NotTo(HaveOccurred())
			peak, err = strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
			Expect(err).NotTo(HaveOccurred())
			procs, err := os.ReadFile(filepath.Join(dirs[0], "cgroup.procs"))
			Expect(err).NotTo(HaveOccurred())
			pid, err := strconv.Atoi(strings.Fields(string(procs))[0])
			Expect(err).NotTo(HaveOccurred())
			rss, err = vmHWM(pid)
			Expect(err).NotTo(HaveOccurred())
			return peak, rss
		}
	}
	Fail(fmt.Sprintf("no memory cgroup of container %s of pod %s", id, pod.UID))
	return 0, 0
}

// onRealNode places the Deployment of manifests on the real node: a toleration of its
// taint and a node selector. Nothing else of config/default changes.
func onRealNode(manifests string) string {
	GinkgoHelper()
	docs := strings.Split(manifests, "\n---\n")
	for i, doc := range docs {
		u := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal([]byte(doc), &u.Object)).To(Succeed())
		if u.GetKind() != "Deployment" {
			continue
		}
		Expect(unstructured.SetNestedSlice(u.Object, []any{map[string]any{"key": framework.RealNodeTaint, "operator": "Exists", "effect": "NoSchedule"}},
			"spec", "template", "spec", "tolerations")).To(Succeed())
		Expect(unstructured.SetNestedStringMap(u.Object, map[string]string{"kubernetes.io/hostname": framework.RealNodeName},
			"spec", "template", "spec", "nodeSelector")).To(Succeed())
		raw, err := yaml.Marshal(u.Object)
		Expect(err).NotTo(HaveOccurred())
		docs[i] = string(raw)
	}
	return strings.Join(docs, "\n---\n")
}

// memoryLimit and shippedMemoryRequest are the memory limit and request of the operator's
// container in config/default; the replicas run with MEMORY_LIMIT set to the limit, as its
// Deployment does (main.go sets GOMEMLIMIT from it).
var memoryLimit, shippedMemoryRequest resource.Quantity

// managerContainer is the manager container of the Deployment of manifests (config/default).
func managerContainer(manifests string) corev1.Container {
	GinkgoHelper()
	for _, doc := range strings.Split(manifests, "\n---\n") {
		d := &appsv1.Deployment{}
		Expect(yaml.Unmarshal([]byte(doc), d)).To(Succeed())
		if d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "manager" {
				return c
			}
		}
	}
	Fail("config/default has no manager container")
	return corev1.Container{}
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
