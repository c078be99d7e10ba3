//go:build e2e

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

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// The CatalogSource of OLM v0 installs lives in OLM's namespace, as operatorhub.io's does:
// OLM runs its registry pod and its bundle-unpack Jobs there. Upstream OLM's catalog-operator
// (without --set-workload-user-id) leaves those pods' runAsNonRoot unset, so a namespace
// enforcing Pod Security restricted would refuse them. The operator itself runs in a
// restricted one.
const catalogNS, catalogName = "olm", "foo-catalog"

// globalNS is OLM's namespace with the global OperatorGroup: an install there is for all
// namespaces, as an OperatorHub user's.
const globalNS = "operators"

// The leader election the operator's replicas run (main.go): the Lease's name, how long it
// lasts unrenewed, and how often a standby tries to take it (client-go's retry period,
// controller-runtime's default).
const (
	leaderElectionID = "foo-operator.samplecontroller.example.com"
	leaseDuration    = 20 * time.Second
	retryPeriod      = 2 * time.Second
)

// zoneSpread is the affinity the OLM v0 Subscription below sets through spec.config, as
// docs/operations.md shows ("High availability"): it replaces the CSV's.
var zoneSpread = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
	PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
		Weight: 100,
		PodAffinityTerm: corev1.PodAffinityTerm{
			TopologyKey:   corev1.LabelTopologyZone,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "foo-operator", "control-plane": "controller-manager"}},
		},
	}},
}}

// OLM v0, on either node: the catalog and the operator's process are the node's (publish,
// operatorRuns), the workflow the same. On a real node the cluster has an egress proxy,
// which the Subscription passes to the operator as OpenShift's cluster-wide Proxy has OLM
// do, with the API server left out of NO_PROXY.
var _ = Describe("The operator installed from a catalog through OLM v0", Ordered, func() {
	var (
		installNS, fooNS string
		web              *samplev1alpha1.Foo // a real node's Foo that serves HTTP
		proxy            *framework.EgressProxy
	)

	BeforeAll(func() {
		prepareCatalogs()
		By("publishing the catalog of v0.1.0 as the CatalogSource " + catalogNS + "/" + catalogName)
		publish(csvV1)
		if cluster.RealNode {
			proxy = env.StartEgressProxy()
		}
		By("creating the install namespace and the Foos', which enforce Pod Security restricted, and an OperatorGroup for the Foos'")
		installNS, fooNS = env.NewNamespace("foo-operator", true), env.NewNamespace("foos", true)
		// SingleNamespace: the operator in installNS watches fooNS only.
		Expect(k8s.Create(context.Background(), &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: installNS},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{fooNS}},
		})).To(Succeed())
	})
	AfterEach(func() { env.ReportOLMStateOnFailure(installNS) })
	// Uninstalled as a user would, so that the other installs of the suite, in whatever order
	// they run, install into a cluster where no other install provides the Foo API.
	AfterAll(func() {
		env.Uninstall(globalNS, csvV2)
		Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), &operatorsv1alpha1.CatalogSource{
			ObjectMeta: metav1.ObjectMeta{Name: catalogName, Namespace: catalogNS},
		}))).To(Succeed())
		env.ExpectClusterRolesGone(globalNS)
	})

	It("installs v0.1.0 from the catalog for one namespace with a Manual Subscription, as operator-sdk run bundle does", func() {
		began := time.Now()
		env.Subscription(installNS, catalogNS, catalogName, func(spec *operatorsv1alpha1.SubscriptionSpec) {
			suite.StartingAt(csvV1)(spec)
			// The operator's spread, set through OLM as docs/operations.md shows (preferred,
			// so that both replicas run on a one-node cluster).
			spec.Config = &operatorsv1alpha1.SubscriptionConfig{Affinity: zoneSpread}
			if proxy != nil {
				spec.Config.Env = []corev1.EnvVar{
					{Name: "HTTP_PROXY", Value: proxy.URL}, {Name: "HTTPS_PROXY", Value: proxy.URL}, {Name: "NO_PROXY", Value: "localhost,127.0.0.1"},
				}
			}
		})
		By("approving the Subscription's InstallPlan")
		env.ApproveInstallPlan(installNS, csvV1)
		suite.ExpectCSVSucceeded(k8s, installNS, csvV1)
		operatorRuns(installNS, csvV1)
		AddReportEntry("install time", time.Since(began).Round(time.Second).String())

		crd := &apiextensionsv1.CustomResourceDefinition{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Name: suite.FooCRD}, crd)).To(Succeed())
		Expect(suite.CRDEstablished(crd)).To(BeTrue())

		By("granting Deployment and Event rights in the target namespace only")
		env.ExpectScopedTo(installNS, []string{fooNS}, []string{"default", "kube-system"})

		By("running the CSV's replicas, with the Subscription's affinity in place of the CSV's, and the operator's budget")
		d := &appsv1.Deployment{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: installNS, Name: "foo-operator-controller-manager"}, d)).To(Succeed())
		Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(suite.OperatorReplicas)))
		Expect(d.Spec.Template.Spec.Affinity).To(Equal(zoneSpread))
		budget := &policyv1.PodDisruptionBudget{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: installNS, Name: "foo-operator-controller-manager"}, budget)).To(Succeed())
		Expect(budget.Spec.Selector.MatchLabels).To(Equal(d.Spec.Selector.MatchLabels))
	})

	It("unpacks the bundle image with a Job that runs to completion", Label(RealNode), func() {
		env.ExpectUnpackJob(catalogNS, bundleV1)
	})

	It("sends its requests through the proxy OLM passes it (HTTPS_PROXY)", Label(RealNode), func() {
		operators := env.ExpectOperatorRunning(installNS, operatorV1)
		apiServer := &corev1.Service{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "kubernetes"}, apiServer)).To(Succeed())
		for _, operator := range operators {
			Expect(operator.Spec.Containers[0].Env).To(ContainElement(corev1.EnvVar{Name: "HTTPS_PROXY", Value: proxy.URL}))
			// Every connection each replica opened (its watches, its leader election) is a
			// tunnel to the API server's Service.
			Eventually(func() []string { return proxy.TunnelsOf(operator.Status.PodIP) }).Should(
				And(Not(BeEmpty()), HaveEach(net.JoinHostPort(apiServer.Spec.ClusterIP, "443"))), proxy.String)
		}
	})

	It("runs the operator with the RBAC and environment OLM gave it, and reconciles the sample Foo", func() {
		operatorRuns(installNS, csvV1)
		foo := suite.SampleFoo(fooNS)
		Expect(k8s.Create(context.Background(), foo)).To(Succeed())
		expectScaledTo(foo, foo.Spec.DesiredReplicas())

		By("kubectl scale foo --replicas=2")
		scale := &autoscalingv1.Scale{}
		Expect(k8s.SubResource("scale").Get(context.Background(), foo, scale)).To(Succeed())
		scale.Spec.Replicas = 2
		Expect(k8s.SubResource("scale").Update(context.Background(), foo, client.WithSubResourceBody(scale))).To(Succeed())
		expectScaledTo(foo, 2)

		By("leaving a Foo outside the target namespaces alone")
		expectLeftAlone(suite.SampleFoo(installNS))
	})

	It("runs a Foo whose pods serve HTTP, follow kubectl scale foo and heal", Label(RealNode), func() {
		web = env.CreateFoo(fooNS, "web", 2)
		env.ExpectServing(web, 2, "nginx-unprivileged 1.28.0-alpine")

		By("scaling the Foo through its scale subresource, as kubectl scale foo does")
		env.Kubectl("scale", "foo", web.Name, "-n", fooNS, "--replicas=3")
		env.ExpectServing(web, 3, "nginx-unprivileged")

		By("deleting a pod")
		pods := &corev1.PodList{}
		Expect(k8s.List(context.Background(), pods, client.InNamespace(fooNS), client.MatchingLabels(controllers.SelectorLabels(web.Name)))).To(Succeed())
		Expect(k8s.Delete(context.Background(), &pods.Items[0])).To(Succeed())
		Eventually(func(g Gomega) []string { return env.ReadyPodIPs(g, web) }).ShouldNot(ContainElement(pods.Items[0].Status.PodIP))
		env.ExpectServing(web, 3, "nginx-unprivileged")
	})

	It("refuses an eviction that would take a second of a Foo's pods down, and lets a drain go on one pod at a time", Label(RealNode), func() {
		budget := &policyv1.PodDisruptionBudget{}
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(web), budget)).To(Succeed())
			g.Expect(metav1.IsControlledBy(budget, web)).To(BeTrue())
			g.Expect(budget.Status.ObservedGeneration).To(Equal(budget.Generation))
			g.Expect(budget.Status.CurrentHealthy).To(BeEquivalentTo(3))
			g.Expect(budget.Status.DisruptionsAllowed).To(BeEquivalentTo(1))
		}).Should(Succeed())
		var pods []corev1.Pod
		Eventually(func(g Gomega) {
			pods = env.RunningPods(g, fooNS, web.Name)
			g.Expect(pods).To(HaveLen(3))
		}).Should(Succeed())

		By("evicting one pod, then another at once, as kubectl drain does")
		Expect(evict(pods[0])).To(Succeed())
		err := evict(pods[1])
		Expect(apierrors.IsTooManyRequests(err)).To(BeTrue(), "the second eviction: %v", err)
		Expect(err.Error()).To(ContainSubstring("would violate the pod's disruption budget"))

		By("retrying it, as kubectl drain does, until the first pod's replacement is ready")
		began := time.Now()
		Eventually(func() error { return evict(pods[1]) }).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		AddReportEntry("second eviction of a Foo's pods allowed after", time.Since(began).Round(100*time.Millisecond).String())
		env.ExpectServing(web, 3, "nginx-unprivileged")
	})

	It("hands the Lease to another replica when a drain evicts the leader", Label(RealNode), func() {
		pods := env.ExpectOperatorRunning(installNS, operatorV1)
		identity := func(p corev1.Pod) string { return p.Name + "_" + string(p.UID) } // podLeaderLock in main.go
		lease := &coordinationv1.Lease{}
		key := client.ObjectKey{Namespace: installNS, Name: leaderElectionID}
		var leader, standby corev1.Pod
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(context.Background(), key, lease)).To(Succeed())
			holder := ptr.Deref(lease.Spec.HolderIdentity, "")
			i := slices.IndexFunc(pods, func(p corev1.Pod) bool { return identity(p) == holder })
			g.Expect(i).NotTo(Equal(-1), "one of the operator's pods holds the Lease, not %q", holder)
			leader, standby = pods[i], pods[1-i]
		}).Should(Succeed())

		// The leader's log until it exits: its pod is gone by the time a failure is reported.
		var leaderLog bytes.Buffer
		follow := exec.Command(filepath.Join(framework.Root(), "bin", "kubectl"), "--kubeconfig", env.Cluster.Kubeconfig(),
			"logs", "--follow", "--timestamps", "-n", installNS, leader.Name)
		follow.Stdout, follow.Stderr = &leaderLog, &leaderLog
		Expect(follow.Start()).To(Succeed())
		DeferCleanup(func() {
			if CurrentSpecReport().Failed() {
				AddReportEntry("the Lease", lease.Spec)
				AddReportEntry("events in "+installNS, env.Kubectl("get", "events", "-n", installNS, "--sort-by=.lastTimestamp"))
				AddReportEntry("the evicted leader's log", leaderLog.String())
				AddReportEntry("the standby's log", env.Kubectl("logs", "-n", installNS, standby.Name, "--tail=60"))
			}
		})
		DeferCleanup(func() { _ = follow.Process.Kill(); _ = follow.Wait() }) // runs first: the log is whole when read
		began := time.Now()
		Expect(evict(leader)).To(Succeed())
		// The leader releases the Lease on SIGTERM, and a live replica takes it at its next
		// try: the standby, or the pod the Deployment starts in the evicted one's place,
		// whichever tries first. Were the release lost, the Lease would expire first: a
		// replica notices the last renewal at its next try, finds the Lease expired its
		// duration (20 s, docs/reliability.md scenario 1) after that, and takes it at the try
		// after; client-go spaces the tries of a replica RetryPeriod × [1, 1 + JitterFactor]
		// apart.
		var successor string
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(context.Background(), key, lease)).To(Succeed())
			successor = ptr.Deref(lease.Spec.HolderIdentity, "")
			g.Expect(successor).NotTo(BeEmpty(), "released, not yet taken")
			g.Expect(successor).NotTo(Equal(identity(leader)))
			live := env.OperatorPods(g, installNS)
			g.Expect(slices.ContainsFunc(live, func(p corev1.Pod) bool { return identity(p) == successor })).To(BeTrue(), "held by a live replica")
		}).WithTimeout(leaseDuration + 2*time.Duration((1+leaderelection.JitterFactor)*float64(retryPeriod))).WithPolling(100 * time.Millisecond).Should(Succeed())
		took := "the replacement pod"
		if successor == identity(standby) {
			took = "the standby"
		}
		AddReportEntry("leader evicted: Lease held by "+took+" after", time.Since(began).Round(100*time.Millisecond).String())

		By("the new leader reconciles a new Foo, and the Deployment replaces the evicted replica")
		foo := env.CreateFoo(fooNS, "after-hand-over", 1)
		env.ExpectFooReady(foo)
		Expect(k8s.Delete(context.Background(), foo)).To(Succeed())
		operatorRuns(installNS, csvV1)
	})

	It("is scraped by a Prometheus as its ServiceMonitor says, over verified TLS with its reader's token, and its FooDegraded alert fires and resolves", Label(RealNode), func() {
		operatorRuns(installNS, csvV1)
		dir := GinkgoT().TempDir()
		var sm serviceMonitor
		installed(installNS, "ServiceMonitor", serviceMonitorName, &sm)
		Expect(sm.Spec.Endpoints).To(HaveLen(1))
		endpoint := sm.Spec.Endpoints[0]
		By("reading the CA the operator keeps, and the token Kubernetes wrote for the metrics reader")
		ca := secretKey(installNS, endpoint.TLSConfig.CA.Secret, dir)
		token := secretKey(installNS, endpoint.Authorization.Credentials, dir)

		var rule struct {
			Spec struct {
				Groups []map[string]any `json:"groups"`
			} `json:"spec"`
		}
		installed(installNS, "PrometheusRule", prometheusRuleName, &rule)
		// FooDegraded fires after 15 minutes, which promtool's tests (make test) hold; here
		// after 10 s, so that the spec need not wait.
		const shipped = `time() - foo_operator_foo_degraded_since_timestamp_seconds{job="foo-operator-controller-manager-metrics-service"} > 15 * 60`
		shortened := 0
		for _, group := range rule.Spec.Groups {
			for _, r := range group["rules"].([]any) {
				if r := r.(map[string]any); r["alert"] == "FooDegraded" {
					Expect(r["expr"]).To(Equal(shipped))
					r["expr"], shortened = strings.Replace(shipped, "> 15 * 60", "> 10", 1), shortened+1
				}
			}
		}
		Expect(shortened).To(Equal(1))
		raw, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
		Expect(err).NotTo(HaveOccurred())
		rules := filepath.Join(dir, "rules.yaml")
		Expect(os.WriteFile(rules, raw, 0o600)).To(Succeed())

		addr := startPrometheus(dir, map[string]any{
			"global":         map[string]any{"scrape_interval": "5s", "evaluation_interval": "5s"},
			"rule_files":     []string{rules},
			"scrape_configs": []any{scrapeConfig(installNS, sm, ca, token, cluster.Kubeconfig())},
		})
		By("scraping both replicas, one of them leading")
		began := time.Now()
		Eventually(func(g Gomega) {
			up := prometheusAPI(g, addr, "/api/v1/query", url.Values{"query": {`up{job="foo-operator-controller-manager-metrics-service"} == 1`}})
			g.Expect(up.Data.Result).To(HaveLen(suite.OperatorReplicas))
			leaders := prometheusAPI(g, addr, "/api/v1/query", url.Values{"query": {`sum(leader_election_master_status{job="foo-operator-controller-manager-metrics-service"})`}})
			g.Expect(leaders.Data.Result).To(HaveLen(1))
			g.Expect(leaders.Data.Result[0].Value[1]).To(Equal("1"))
		}).Should(Succeed())
		AddReportEntry("Prometheus: both replicas up after", time.Since(began).Round(time.Second).String())

		By("a Foo whose Deployment name another Deployment holds")
		taken := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: fooNS},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](0),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "someone-else"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "someone-else"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: controllers.DefaultOperandImage}}},
				},
			},
		}
		Expect(k8s.Create(context.Background(), taken)).To(Succeed())
		contested := env.CreateFoo(fooNS, "contested", 1, func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = taken.Name })
		firing := func(g Gomega) bool {
			alerts := prometheusAPI(g, addr, "/api/v1/alerts", nil)
			return slices.ContainsFunc(alerts.Data.Alerts, func(a promAlert) bool {
				return a.Labels["alertname"] == "FooDegraded" && a.Labels["foo"] == contested.Name && a.Labels["namespace"] == fooNS &&
					a.Labels["reason"] == samplev1alpha1.DeploymentConflictReason && a.State == "firing"
			})
		}
		began = time.Now()
		Eventually(firing).WithTimeout(2 * time.Minute).Should(BeTrue())
		AddReportEntry("FooDegraded firing after the Foo's create (threshold 10 s)", time.Since(began).Round(time.Second).String())

		By("freeing the name: the operator creates the Foo's Deployment, and the alert resolves")
		Expect(k8s.Delete(context.Background(), taken)).To(Succeed())
		began = time.Now()
		Eventually(firing).WithTimeout(3 * time.Minute).Should(BeFalse())
		AddReportEntry("FooDegraded resolved after the name was freed", time.Since(began).Round(time.Second).String())
		env.ExpectFooReady(contested)
		Expect(k8s.Delete(context.Background(), contested)).To(Succeed())

		By("no alert about the operator itself")
		alerts := prometheusAPI(Default, addr, "/api/v1/alerts", nil)
		for _, a := range alerts.Data.Alerts {
			Expect(a.Labels["alertname"]).NotTo(BeElementOf("FooOperatorDown", "FooOperatorNoLeader", "FooReconcileErrors"), "%v", a)
		}
	})

	It("reports a Foo whose pods never become ready as unavailable, and available once they serve", Label(RealNode), func() {
		// A tag no registry has (a typo): the node's pulls fail (at the local mirror) and the
		// pods never become Ready.
		broken := env.CreateFoo(fooNS, "broken", 2, suite.WithImage("docker.io/nginxinc/nginx-unprivileged:0.0.0-missing"))
		Eventually(func(g Gomega) {
			got := &samplev1alpha1.Foo{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(broken), got)).To(Succeed())
			g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
			g.Expect(got.Status.AvailableReplicas).To(BeZero())
			available := meta.FindStatusCondition(got.Status.Conditions, samplev1alpha1.AvailableCondition)
			g.Expect(available).NotTo(BeNil())
			g.Expect(available.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(BeFalse())
			pods := &corev1.PodList{}
			g.Expect(k8s.List(context.Background(), pods, client.InNamespace(fooNS), client.MatchingLabels(controllers.SelectorLabels(broken.Name)))).To(Succeed())
			g.Expect(pods.Items).To(HaveLen(2))
			for _, p := range pods.Items {
				g.Expect(p.Status.ContainerStatuses).To(HaveLen(1))
				g.Expect(p.Status.ContainerStatuses[0].State.Waiting).NotTo(BeNil())
				g.Expect(p.Status.ContainerStatuses[0].State.Waiting.Reason).To(BeElementOf("ErrImagePull", "ImagePullBackOff"))
			}
		}).Should(Succeed())

		By("giving it the default operand")
		env.PatchFoo(broken, func(f *samplev1alpha1.Foo) { f.Spec.Image = "" })
		env.ExpectServing(broken, 2, "nginx-unprivileged 1.28.0-alpine")
		env.ExpectFooReady(broken)
		Expect(k8s.Delete(context.Background(), broken)).To(Succeed())
	})

	It("renames a Foo's Deployment without downtime", func() {
		operatorRuns(installNS, csvV1)
		foo := suite.SampleFoo(fooNS)
		foo.Name, foo.Spec.DeploymentName, foo.Spec.Replicas = "renamed", "web-a", ptr.To[int32](2)
		Expect(k8s.Create(context.Background(), foo)).To(Succeed())
		env.ExpectFooReady(foo)

		began := time.Now()
		patch := client.MergeFrom(foo.DeepCopy())
		foo.Spec.DeploymentName = "web-b"
		Expect(k8s.Patch(context.Background(), foo, patch)).To(Succeed())
		// Poll both Deployments until web-a is gone: some replicas are available all along.
		var newAvailable, oldGone time.Duration
		minAvailable := int32(2)
		Eventually(func(g Gomega) {
			a, aErr := env.AvailableReplicas(fooNS, "web-a")
			b, bErr := env.AvailableReplicas(fooNS, "web-b")
			g.Expect(aErr).NotTo(HaveOccurred())
			g.Expect(bErr).NotTo(HaveOccurred())
			minAvailable = min(minAvailable, a+b)
			if b > 0 && newAvailable == 0 {
				newAvailable = time.Since(began)
			}
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: "web-a"}, &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "web-a is still there")
			oldGone = time.Since(began)
		}).WithPolling(100 * time.Millisecond).Should(Succeed())
		Expect(minAvailable).To(BeNumerically(">", 0))
		AddReportEntry("rename", fmt.Sprintf("web-b available after %v, web-a deleted after %v, fewest available replicas during the rename: %d",
			newAvailable.Round(100*time.Millisecond), oldGone.Round(100*time.Millisecond), minAvailable))
		env.ExpectFooReady(foo)
	})

	It("upgrades to v0.2.0 when the catalog publishes it, rolling every Foo's Deployment to its operand", func() {
		foos := &samplev1alpha1.FooList{}
		Expect(k8s.List(context.Background(), foos, client.InNamespace(fooNS))).To(Succeed())
		Expect(foos.Items).NotTo(BeEmpty())
		uids := map[string]types.UID{}
		for _, foo := range foos.Items {
			d := &appsv1.Deployment{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: foo.Spec.DeploymentName}, d)).To(Succeed())
			Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(controllers.DefaultOperandImage))
			uids[d.Name] = d.UID
		}

		began := time.Now()
		publish(csvV2)
		// Manual approval: approve the upgrade's InstallPlan.
		env.ApproveInstallPlan(installNS, csvV2)
		suite.ExpectCSVSucceeded(k8s, installNS, csvV2)
		AddReportEntry("upgrade time", time.Since(began).Round(time.Second).String())
		Eventually(func(g Gomega) {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: installNS, Name: csvV1}, &operatorsv1alpha1.ClusterServiceVersion{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the old CSV should be gone")
		}).Should(Succeed())

		By("running v0.2.0, which rolls every existing Foo's pods to its operand")
		operatorRuns(installNS, csvV2)
		for _, foo := range foos.Items {
			Eventually(func(g Gomega) {
				d := &appsv1.Deployment{}
				g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: foo.Spec.DeploymentName}, d)).To(Succeed())
				g.Expect(d.UID).To(Equal(uids[d.Name]), "the Deployment was replaced")
				g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal(operandV2))
				pods := env.RunningPods(g, fooNS, foo.Name)
				g.Expect(pods).To(HaveLen(int(foo.Spec.DesiredReplicas())))
				for _, p := range pods {
					g.Expect(p.Spec.Containers[0].Image).To(Equal(operandV2), "pod %s", p.Name)
				}
			}).Should(Succeed())
			env.ExpectFooReady(&foo)
		}

		By("the new version reconciles a change of a Foo")
		foo := &samplev1alpha1.Foo{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: "example-foo"}, foo)).To(Succeed())
		env.PatchFoo(foo, func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To[int32](3) })
		Eventually(func(g Gomega) {
			g.Expect(env.RunningPods(g, fooNS, "example-foo")).To(HaveLen(3))
		}).Should(Succeed())
	})

	It("serves v0.2.0's operand after the upgrade, whose bundle image OLM unpacked", Label(RealNode), func() {
		env.ExpectServing(web, 3, "nginx-unprivileged 1.29.1-alpine")
		env.ExpectUnpackJob(catalogNS, bundleV2)
	})

	It("lets the garbage collector delete a deleted Foo's Deployment and pods", func() {
		operatorRuns(installNS, csvV2)
		foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: fooNS, Name: "example-foo"}}
		Expect(k8s.Delete(context.Background(), foo)).To(Succeed())
		Eventually(func(g Gomega) {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: fooNS, Name: "example-foo"}, &appsv1.Deployment{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
			g.Expect(env.RunningPods(g, fooNS, "example-foo")).To(BeEmpty())
		}).Should(Succeed())
	})

	It("uninstalls when the Subscription and CSV are deleted, leaving the CRD", func() {
		env.Uninstall(installNS, csvV2)
		Expect(k8s.Get(context.Background(), client.ObjectKey{Name: suite.FooCRD}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
	})

	It("installs for several namespaces (MultiNamespace) and reconciles Foos in those only", func() {
		multiNS := env.NewNamespace("foo-operator-multi", false)
		targets := []string{env.NewNamespace("team-a", false), env.NewNamespace("team-b", false)}
		DeferCleanup(env.ReportOLMStateOnFailure, multiNS)
		Expect(k8s.Create(context.Background(), &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: multiNS},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targets},
		})).To(Succeed())
		env.Subscription(multiNS, catalogNS, catalogName, nil)
		suite.ExpectCSVSucceeded(k8s, multiNS, csvV2)
		other := env.NewNamespace("team-c", false)
		env.ExpectScopedTo(multiNS, targets, []string{other, "default"})

		operatorRuns(multiNS, csvV2)
		for _, ns := range targets {
			foo := suite.SampleFoo(ns)
			Expect(k8s.Create(context.Background(), foo)).To(Succeed())
			env.ExpectFooReady(foo)
		}
		expectLeftAlone(suite.SampleFoo(other))

		By("uninstalling, before the AllNamespaces install (OLM refuses two OperatorGroups providing Foos to one namespace)")
		env.Uninstall(multiNS, csvV2)
		Expect(k8s.Delete(context.Background(), &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: multiNS}})).To(Succeed())
	})

	It("installs for all namespaces with Automatic approval, as an OperatorHub user does, and reconciles Foos anywhere", func() {
		DeferCleanup(env.ReportOLMStateOnFailure, globalNS)
		began := time.Now()
		env.Subscription(globalNS, catalogNS, catalogName, nil)
		// The catalog now serves v0.2.0 at the head of stable.
		suite.ExpectCSVSucceeded(k8s, globalNS, csvV2)
		AddReportEntry("install time (AllNamespaces, Automatic)", time.Since(began).Round(time.Second).String())

		operatorRuns(globalNS, csvV2)
		foo := suite.SampleFoo(env.NewNamespace("foo-anywhere", false))
		Expect(k8s.Create(context.Background(), foo)).To(Succeed())
		env.ExpectFooReady(foo)
	})

	It("scales a Foo with a HorizontalPodAutoscaler on its pods' CPU, the Deployment following the Foo", func() {
		operatorRuns(globalNS, csvV2)
		expectHPAScaling()
	})

	It("reports a rename that a ResourceQuota blocks with the quota's message, keeping the serving Deployment", func() {
		operatorRuns(globalNS, csvV2)
		expectQuotaBlockedRename()
	})

	It("keeps a Foo Ready while a node drain evicts one of its pods within the Deployment's maxUnavailable", func() {
		operatorRuns(globalNS, csvV2)
		expectDrainWithinAvailability()
	})

	It("keeps a Foo Ready while its Deployment is paused, and Degraded while a change waits on the pause", func() {
		operatorRuns(globalNS, csvV2)
		expectPausedRollout()
	})
})

// catalogs are the catalogs publish serves, by the CSV at their head: on a real node the
// catalog images make release pushed to the user's registry, on a simulated node the
// directories prepareCatalogs renders.
var catalogs map[string]string

// prepareCatalogs sets catalogs. A simulated node runs no pod, so neither a registry pod nor
// a bundle-unpack Job: there the catalogs are rendered with opm with the bundles' objects
// inline, v0.1.0 from the committed bundle, v0.2.0 generated with a newer operand.
func prepareCatalogs() {
	GinkgoHelper()
	if cluster.RealNode {
		catalogs = map[string]string{csvV1: catalogV1, csvV2: catalogV2}
		return
	}
	By("generating bundle v0.2.0 with operator-sdk, with a newer operand")
	bundleV2 := filepath.Join(work, "bundle-v0.2.0")
	suite.GenerateBundle("0.2.0", bundleV2)
	// v0.2.0 ships a newer operand (its RELATED_IMAGE_NGINX and relatedImages).
	csvV2File := filepath.Join(bundleV2, "manifests", "foo-operator.clusterserviceversion.yaml")
	raw, err := os.ReadFile(csvV2File)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).To(ContainSubstring(controllers.DefaultOperandImage))
	Expect(os.WriteFile(csvV2File, []byte(strings.ReplaceAll(string(raw), controllers.DefaultOperandImage, operandV2)), 0o644)).To(Succeed())

	By("rendering catalogs with opm: v0.1.0 (the committed bundle), then v0.1.0 and v0.2.0 (replaces v0.1.0)")
	catalogs = map[string]string{
		csvV1: suite.RenderCatalog(filepath.Join(work, "catalog-v1"), map[string]string{csvV1: filepath.Join(root, "bundle")}),
		csvV2: suite.RenderCatalog(filepath.Join(work, "catalog-v2"), map[string]string{csvV1: filepath.Join(root, "bundle"), csvV2: bundleV2}),
	}
}

// publish makes the catalog whose head is csv the one the CatalogSource catalogNS/catalogName
// serves, creating it the first time (controller-runtime's CreateOrPatch): on a real node by
// its image, which OLM's registry pod serves (under Pod Security restricted); on a simulated
// node served by opm on this machine (serveCatalog).
func publish(csv string) {
	GinkgoHelper()
	var address string
	if !cluster.RealNode {
		address = serveCatalog(csv, catalogs[csv])
	}
	cs := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: catalogName, Namespace: catalogNS}}
	_, err := controllerutil.CreateOrPatch(context.Background(), k8s, cs, func() error {
		cs.Spec.SourceType, cs.Spec.DisplayName = operatorsv1alpha1.SourceTypeGrpc, "Foo Operator"
		if cluster.RealNode {
			cs.Spec.Image = catalogs[csv]
			cs.Spec.GrpcPodConfig = &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted}
		} else {
			cs.Spec.Address = address
		}
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
	if address != "" {
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(cs), cs)).To(Succeed())
			g.Expect(cs.Status.GRPCConnectionState).NotTo(BeNil())
			g.Expect(cs.Status.GRPCConnectionState.Address).To(Equal(address))
			g.Expect(cs.Status.GRPCConnectionState.LastObservedState).To(Equal("READY"))
		}).Should(Succeed())
	}
}

// operatorRuns makes sure that the operator OLM installed in ns, at csv, runs: on a real
// node, its pod runs the released image with its probes passing; on a simulated node, where
// pods run nothing, it starts the operator as a local process for the spec
// (runOperatorAsInstalled).
func operatorRuns(ns, csv string) {
	GinkgoHelper()
	if cluster.RealNode {
		env.ExpectOperatorRunning(ns, map[string]string{csvV1: operatorV1, csvV2: operatorV2}[csv])
		return
	}
	runOperatorAsInstalled(ns)
}

// expectLeftAlone creates a Foo outside the operator's target namespaces, checks that the
// running operator creates no Deployment for it, and deletes it.
func expectLeftAlone(foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	Expect(k8s.Create(context.Background(), foo)).To(Succeed())
	Consistently(func(g Gomega) {
		err := k8s.Get(context.Background(), client.ObjectKey{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
	}, 10*time.Second, time.Second).Should(Succeed())
	Expect(k8s.Delete(context.Background(), foo)).To(Succeed())
}

// serveCatalog serves a file-based catalog with `opm serve` on a free loopback port until the
// spec or container ends, and returns its address. opm serve does not reload, so a new
// catalog gets a new process.
func serveCatalog(name, dir string) string {
	GinkgoHelper()
	port := suite.FreePort()
	suite.Start(work, name, nil, filepath.Join(root, "bin", "opm"), "serve", dir, "--port", fmt.Sprint(port), "--pprof-addr", "")
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// runOperatorAsInstalled runs the operator binary as a local process, as the Deployment OLM
// created would run it: with a token of the service account OLM created (so the CSV's RBAC
// is what it gets) and the environment of the Deployment's pod template, with
// WATCH_NAMESPACE from the olm.targetNamespaces annotation OLM set on it. Simulated pods run
// nothing, so this is how the operator's code runs here.
func runOperatorAsInstalled(ns string) {
	GinkgoHelper()
	d := &appsv1.Deployment{}
	Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: suite.OperatorServiceAccount}, d)).To(Succeed())
		g.Expect(d.Status.AvailableReplicas).To(BeEquivalentTo(suite.OperatorReplicas), "OLM's operator Deployment is admitted and available")
	}).Should(Succeed())
	tmpl := d.Spec.Template
	targets, ok := tmpl.Annotations["olm.targetNamespaces"]
	Expect(ok).To(BeTrue(), "OLM sets olm.targetNamespaces on the operator's pods")

	token, err := framework.Token(context.Background(), clientset, ns, tmpl.Spec.ServiceAccountName)
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(work, "operator-"+d.ResourceVersion+".kubeconfig")
	Expect(framework.WriteKubeconfig(kubeconfig, cfg.Host, cfg.CAData, &clientcmdapi.AuthInfo{Token: token}, ns)).To(Succeed())

	var env []string
	for _, e := range tmpl.Spec.Containers[0].Env {
		if e.Value != "" {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	env = append(env, "WATCH_NAMESPACE="+targets)
	suite.Start(work, "operator", env, managerBin, "--kubeconfig="+kubeconfig, "--leader-elect", "--leader-election-namespace="+ns,
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
}

// evict asks the Eviction API to evict pod, as kubectl drain does.
func evict(pod corev1.Pod) error {
	return k8s.SubResource("eviction").Create(context.Background(), &pod, &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
	})
}
