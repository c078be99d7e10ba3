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

package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
)

const (
	// OperatorServiceAccount is the operator's service account (config/rbac, the CSV).
	OperatorServiceAccount = "foo-operator-controller-manager"
	// FooCRD is the name of the Foo CRD.
	FooCRD = "foos.samplecontroller.example.com"
)

// Env is a suite's local cluster with its admin's clients: what the helpers below act on.
// The end-to-end and the chaos suites each start one (StartEnv).
type Env struct {
	Cluster   *framework.Cluster
	Config    *rest.Config
	Client    client.Client
	Clientset *kubernetes.Clientset
	// Registry is the host:port of a real node's registry, the mirror of public registries,
	// and HostCAs a file of the CAs clients on the host trust (SSL_CERT_FILE): the host's,
	// the mirror's and those of registries a suite starts. Empty on a simulated node.
	Registry, HostCAs string
}

// EnvOptions say how StartEnv starts its cluster.
type EnvOptions struct {
	// Fresh stops a cluster of the same directory first, so that its audit log starts empty.
	Fresh bool
	// OLM installs OLM and starts its operators (hack/local-cluster.sh olm-up, which also
	// installs Prometheus Operator's CRDs of the kinds the bundle ships).
	OLM bool
	// Schemes add the kinds the suite reads to its client, beside client-go's.
	Schemes []func(*runtime.Scheme) error
}

// StartEnv starts cluster until the suite ends, and a real node's leftovers checked then,
// and returns it with its admin's clients. Their client-side limit (200 requests per
// second, bursts of 400) lets a spec create a thousand Foos at once.
func StartEnv(cluster *framework.Cluster, opts EnvOptions) *Env {
	ginkgo.GinkgoHelper()
	if opts.Fresh {
		gomega.Expect(cluster.Down()).To(gomega.Succeed())
	}
	// Before Up: a cluster that failed half-way up is taken down too.
	ginkgo.DeferCleanup(func() {
		gomega.Expect(cluster.Down()).To(gomega.Succeed())
		if cluster.RealNode {
			out, err := framework.Run(framework.Root(), nil, []string{"LOCAL_CLUSTER_DIR=" + cluster.Dir}, "hack/real-node.sh", "leftovers")
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "what the real node left behind:\n%s", out)
		}
	})
	gomega.Expect(cluster.Up()).To(gomega.Succeed())
	if opts.OLM {
		gomega.Expect(cluster.OLMUp()).To(gomega.Succeed())
	}
	cfg, err := cluster.Config()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	cfg.QPS, cfg.Burst = 200, 400
	e := &Env{Cluster: cluster, Config: cfg}
	e.Client, e.Clientset = Clients(cfg, opts.Schemes...)
	if cluster.RealNode {
		e.Registry, err = cluster.Registry()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		e.HostCAs = cluster.CABundle()
	}
	return e
}

// ReportOLMStateOnFailure adds what OLM says about the installs in ns, and the tails of its
// operators' logs, to the report of a failed spec.
func (e *Env) ReportOLMStateOnFailure(ns string) {
	if !ginkgo.CurrentSpecReport().Failed() {
		return
	}
	reportOLMState(e.Client, ns)
	for _, name := range []string{"olm", "catalog"} {
		reportLogTail(name+" log (tail)", filepath.Join(e.Cluster.Dir, name+".log"))
	}
}

// ReportExitedComponentsOnFailure adds, to the report of a failed spec, the processes of the
// cluster's control plane that are no longer running (nothing restarts them, as the kubelet
// would a static pod), with the tails of their logs.
func (e *Env) ReportExitedComponentsOnFailure() {
	if !ginkgo.CurrentSpecReport().Failed() {
		return
	}
	components, err := e.Cluster.Components()
	if err != nil {
		ginkgo.AddReportEntry("the control plane's processes", err.Error())
		return
	}
	for _, c := range components {
		if !c.Running() {
			reportLogTail(c.Name+" exited; its log (tail)", c.Log)
		}
	}
}

// reportLogTail adds the last 20,000 bytes of the log at path to the spec's report, if any.
func reportLogTail(name, path string) {
	log, _ := os.ReadFile(path)
	if len(log) > 20000 {
		log = log[len(log)-20000:]
	}
	if len(log) > 0 {
		ginkgo.AddReportEntry(name, string(log))
	}
}

// OperatorSDK runs bin/operator-sdk against the cluster, trusting the registries' CAs, and
// returns its output; it fails the spec if the command fails.
func (e *Env) OperatorSDK(args ...string) string {
	ginkgo.GinkgoHelper()
	out, err := framework.Run(framework.Root(), nil, []string{"KUBECONFIG=" + e.Cluster.Kubeconfig(), "SSL_CERT_FILE=" + e.HostCAs},
		filepath.Join(framework.Root(), "bin", "operator-sdk"), args...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return out
}

// RunBundle installs bundle (an image in the user's registry) into ns with operator-sdk run
// bundle and args, its registry pod under Pod Security restricted.
func (e *Env) RunBundle(ns, bundle string, args ...string) {
	ginkgo.GinkgoHelper()
	e.OperatorSDK(append([]string{"run", "bundle", bundle, "--namespace", ns,
		// The CLI reads the index image's labels itself: its default (quay.io's
		// opm:latest) is out of reach here, as on a disconnected cluster.
		"--index-image", framework.InRegistry(e.Registry, "quay.io/example/empty-index:v1.65.0"),
		"--security-context-config", "restricted", "--timeout", "5m"}, args...)...)
}

// CleanupBundle uninstalls what runBundle installed in ns with operator-sdk cleanup, and
// checks that nothing of it is left: in ns, the CRD, the CSV's ClusterRoles.
func (e *Env) CleanupBundle(ns string) {
	ginkgo.GinkgoHelper()
	e.OperatorSDK("cleanup", Package, "--namespace", ns, "--timeout", "3m")
	e.removeMetricsReader(ns)
	e.ExpectOnlyDefaultsLeft(ns)
	e.ExpectCRDGone()
	e.ExpectClusterRolesGone(ns)
}

// NewNamespace creates a namespace named after prefix (prefix-<random>); restricted makes
// it enforce the Pod Security "restricted" profile, as OpenShift and hardened clusters do.
func (e *Env) NewNamespace(prefix string, restricted bool) string {
	ginkgo.GinkgoHelper()
	return e.createNamespace(metav1.ObjectMeta{GenerateName: prefix + "-"}, restricted)
}

// CreateNamespace creates the namespace name, as NewNamespace.
func (e *Env) CreateNamespace(name string, restricted bool) string {
	ginkgo.GinkgoHelper()
	return e.createNamespace(metav1.ObjectMeta{Name: name}, restricted)
}

func (e *Env) createNamespace(om metav1.ObjectMeta, restricted bool) string {
	ginkgo.GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: om}
	if restricted {
		ns.Labels = map[string]string{
			"pod-security.kubernetes.io/enforce":         "restricted",
			"pod-security.kubernetes.io/enforce-version": "latest",
		}
	}
	gomega.Expect(e.Client.Create(context.Background(), ns)).To(gomega.Succeed())
	return ns.Name
}

// OperatorReplicas is how many replicas of the operator config/manager (and so the bundle)
// runs: a leader and a standby.
const OperatorReplicas = 2

// ExpectOperatorRunning waits until the operator's Deployment in ns has OperatorReplicas
// pods whose container runs image, Ready (its readiness probe passes) and never restarted
// (its liveness probe passes), with both probes as config/manager declares them, and
// returns them.
func (e *Env) ExpectOperatorRunning(ns, image string) []corev1.Pod {
	ginkgo.GinkgoHelper()
	var running []corev1.Pod
	gomega.Eventually(func(g gomega.Gomega) {
		running = e.OperatorPods(g, ns)
		g.Expect(running).To(gomega.HaveLen(OperatorReplicas))
		for _, pod := range running {
			g.Expect(pod.Spec.Containers[0].Image).To(gomega.Equal(image))
			g.Expect(pod.Spec.Containers[0].ReadinessProbe).NotTo(gomega.BeNil())
			g.Expect(pod.Spec.Containers[0].LivenessProbe).NotTo(gomega.BeNil())
			g.Expect(pod.Status.ContainerStatuses).To(gomega.HaveLen(1))
			status := pod.Status.ContainerStatuses[0]
			g.Expect(status.Ready).To(gomega.BeTrue(), "readiness probe of %s", pod.Name)
			g.Expect(status.State.Running).NotTo(gomega.BeNil())
			g.Expect(status.RestartCount).To(gomega.BeZero())
			// Ready proves the readiness probe; the liveness probe (15 s initial delay) is
			// seen passing in the kubelet's own probe counters.
			g.Expect(e.ProbeSuccesses(g, pod, "Liveness")).To(gomega.BeNumerically(">", 0), "liveness probe of %s", pod.Name)
		}
	}).Should(gomega.Succeed())
	return running
}

// OperatorPods are the operator's pods in ns that are not being deleted.
func (e *Env) OperatorPods(g gomega.Gomega, ns string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(e.Client.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels{"control-plane": "controller-manager"})).To(gomega.Succeed())
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	return running
}

// ProbeSuccesses is how many probes of probeType (Liveness, Readiness) of pod's first
// container succeeded, as the kubelet counts them (prober_probe_total of its
// /metrics/probes, read through the API server's node proxy).
func (e *Env) ProbeSuccesses(g gomega.Gomega, pod corev1.Pod, probeType string) int {
	raw, err := e.Clientset.CoreV1().RESTClient().Get().AbsPath("/api/v1/nodes", pod.Spec.NodeName, "proxy", "metrics", "probes").
		DoRaw(context.Background())
	g.Expect(err).NotTo(gomega.HaveOccurred())
	labels := []string{`container="` + pod.Spec.Containers[0].Name + `"`, `namespace="` + pod.Namespace + `"`,
		`pod="` + pod.Name + `"`, `probe_type="` + probeType + `"`, `result="successful"`}
	for _, line := range strings.Split(string(raw), "\n") {
		series, value, ok := strings.Cut(line, "} ")
		if !ok || !strings.HasPrefix(series, "prober_probe_total{") {
			continue
		}
		if slices.ContainsFunc(labels, func(l string) bool { return !strings.Contains(series, l) }) {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		g.Expect(err).NotTo(gomega.HaveOccurred())
		return int(n)
	}
	return 0
}

// CreateFoo creates a Foo whose Deployment has its name.
func (e *Env) CreateFoo(ns, name string, replicas int32, opts ...func(*samplev1alpha1.Foo)) *samplev1alpha1.Foo {
	ginkgo.GinkgoHelper()
	foo := &samplev1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       samplev1alpha1.FooSpec{DeploymentName: name, Replicas: ptr.To(replicas)},
	}
	for _, opt := range opts {
		opt(foo)
	}
	gomega.Expect(e.Client.Create(context.Background(), foo)).To(gomega.Succeed())
	return foo
}

// WithImage sets the Foo's operand image.
func WithImage(image string) func(*samplev1alpha1.Foo) {
	return func(foo *samplev1alpha1.Foo) { foo.Spec.Image = image }
}

// ExpectServing waits until exactly n pods of foo are Ready and each answers GET / on its
// pod IP with 200 and a page containing text, and the Foo reports n available replicas.
func (e *Env) ExpectServing(foo *samplev1alpha1.Foo, n int, text string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) {
		ips := e.ReadyPodIPs(g, foo)
		g.Expect(ips).To(gomega.HaveLen(n))
		for _, ip := range ips {
			code, body := HTTPGet(fmt.Sprintf("http://%s:8080/", ip))
			g.Expect(code).To(gomega.Equal(http.StatusOK), ip)
			g.Expect(body).To(gomega.ContainSubstring(text), ip)
		}
		got := &samplev1alpha1.Foo{}
		g.Expect(e.Client.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(gomega.Succeed())
		g.Expect(got.Status.AvailableReplicas).To(gomega.BeEquivalentTo(n))
	}).Should(gomega.Succeed())
}

// ReadyPodIPs are the IPs of foo's pods that are Ready and not being deleted.
func (e *Env) ReadyPodIPs(g gomega.Gomega, foo *samplev1alpha1.Foo) []string {
	pods := &corev1.PodList{}
	g.Expect(e.Client.List(context.Background(), pods, client.InNamespace(foo.Namespace),
		client.MatchingLabels(controllers.SelectorLabels(foo.Name)))).To(gomega.Succeed())
	var ips []string
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
				ips = append(ips, p.Status.PodIP)
			}
		}
	}
	return ips
}

// HTTPGet is the status code and body of a GET of url (0 when it cannot connect).
func HTTPGet(url string) (int, string) {
	c := http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// ExpectDeploymentImage waits until foo's Deployment runs image in all its replicas.
func (e *Env) ExpectDeploymentImage(foo *samplev1alpha1.Foo, image string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) {
		d := &appsv1.Deployment{}
		g.Expect(e.Client.Get(context.Background(), client.ObjectKey{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}, d)).To(gomega.Succeed())
		g.Expect(d.Spec.Template.Spec.Containers[0].Image).To(gomega.Equal(image))
		g.Expect(d.Status.UpdatedReplicas).To(gomega.Equal(d.Status.Replicas))
	}).Should(gomega.Succeed())
}

// ExpectOnlyDefaultsLeft waits until ns holds nothing but what every namespace has, and
// the kind/name objects of keep: no pod, Deployment, Service, Secret or OLM object, no
// ConfigMap but kube-root-ca.crt and no ServiceAccount but default.
func (e *Env) ExpectOnlyDefaultsLeft(ns string, keep ...string) {
	ginkgo.GinkgoHelper()
	lists := map[string]client.ObjectList{
		"pod": &corev1.PodList{}, "deployment": &appsv1.DeploymentList{}, "service": &corev1.ServiceList{},
		"secret": &corev1.SecretList{}, "configmap": &corev1.ConfigMapList{}, "serviceaccount": &corev1.ServiceAccountList{},
		"csv": &operatorsv1alpha1.ClusterServiceVersionList{}, "subscription": &operatorsv1alpha1.SubscriptionList{},
		"installplan": &operatorsv1alpha1.InstallPlanList{}, "catalogsource": &operatorsv1alpha1.CatalogSourceList{},
		"operatorgroup": &operatorsv1.OperatorGroupList{},
	}
	defaults := map[string]bool{"configmap/kube-root-ca.crt": true, "serviceaccount/default": true}
	for _, k := range keep {
		defaults[k] = true
	}
	gomega.Eventually(func(g gomega.Gomega) []string {
		var left []string
		for kind, list := range lists {
			g.Expect(e.Client.List(context.Background(), list, client.InNamespace(ns))).To(gomega.Succeed())
			items, err := meta.ExtractList(list)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			for _, item := range items {
				obj, err := meta.Accessor(item)
				g.Expect(err).NotTo(gomega.HaveOccurred())
				if name := kind + "/" + obj.GetName(); !defaults[name] {
					left = append(left, name)
				}
			}
		}
		return left
	}).Should(gomega.BeEmpty())
}

// ExpectUnpackJob checks that OLM ran a bundle-unpack Job in ns that pulled bundle and
// succeeded.
func (e *Env) ExpectUnpackJob(ns, bundle string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) {
		jobs := &batchv1.JobList{}
		g.Expect(e.Client.List(context.Background(), jobs, client.InNamespace(ns), client.HasLabels{"operatorframework.io/bundle-unpack-ref"})).To(gomega.Succeed())
		var succeeded []string
		for _, j := range jobs.Items {
			for _, c := range j.Spec.Template.Spec.InitContainers {
				if c.Image == bundle && j.Status.Succeeded > 0 {
					succeeded = append(succeeded, j.Name)
				}
			}
		}
		g.Expect(succeeded).To(gomega.HaveLen(1), "a completed unpack Job of %s", bundle)
	}).Should(gomega.Succeed())
}

// ExpectClusterRolesGone waits until OLM v0 has deleted the cluster roles it labelled as
// the CSVs' in ns, which it does after the CSVs are gone.
func (e *Env) ExpectClusterRolesGone(ns string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) []string {
		roles := &metav1.PartialObjectMetadataList{}
		roles.SetGroupVersionKind(rbacv1.SchemeGroupVersion.WithKind("ClusterRoleList"))
		g.Expect(e.Client.List(context.Background(), roles, client.MatchingLabels{"olm.owner.namespace": ns, "olm.owner.kind": "ClusterServiceVersion"})).To(gomega.Succeed())
		names := make([]string, 0, len(roles.Items))
		for _, r := range roles.Items {
			names = append(names, r.Name)
		}
		return names
	}).Should(gomega.BeEmpty(), "the cluster roles OLM made for the CSVs in %s", ns)
}

// Subscribe installs the package in ns as a user does through OLM v0: a CatalogSource named
// catalogName in catalogNS serving image (its registry pod under Pod Security restricted),
// and a Subscription to it (Subscription).
func (e *Env) Subscribe(ns, catalogNS, catalogName, image string, adjust func(*operatorsv1alpha1.SubscriptionSpec)) {
	ginkgo.GinkgoHelper()
	gomega.Expect(e.Client.Create(context.Background(), &operatorsv1alpha1.CatalogSource{
		ObjectMeta: metav1.ObjectMeta{Name: catalogName, Namespace: catalogNS},
		Spec: operatorsv1alpha1.CatalogSourceSpec{
			SourceType: operatorsv1alpha1.SourceTypeGrpc, Image: image, DisplayName: "Foo Operator",
			GrpcPodConfig: &operatorsv1alpha1.GrpcPodConfig{SecurityContextConfig: operatorsv1alpha1.Restricted},
		},
	})).To(gomega.Succeed())
	e.Subscription(ns, catalogNS, catalogName, adjust)
}

// Subscription subscribes ns to the package's stable channel in the CatalogSource
// catalogNS/catalogName, with Automatic approval; adjust, if any, changes the spec.
func (e *Env) Subscription(ns, catalogNS, catalogName string, adjust func(*operatorsv1alpha1.SubscriptionSpec)) {
	ginkgo.GinkgoHelper()
	spec := &operatorsv1alpha1.SubscriptionSpec{
		Package: Package, Channel: Channel, CatalogSource: catalogName, CatalogSourceNamespace: catalogNS,
		InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
	}
	if adjust != nil {
		adjust(spec)
	}
	gomega.Expect(e.Client.Create(context.Background(), &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: Package, Namespace: ns}, Spec: spec,
	})).To(gomega.Succeed())
}

// StartingAt is a Subscription that starts at csv, with Manual approval (as operator-sdk
// run bundle makes it): each InstallPlan waits for approveInstallPlan.
func StartingAt(csv string) func(*operatorsv1alpha1.SubscriptionSpec) {
	return func(spec *operatorsv1alpha1.SubscriptionSpec) {
		spec.StartingCSV, spec.InstallPlanApproval = csv, operatorsv1alpha1.ApprovalManual
	}
}

// ApproveInstallPlan approves the InstallPlan in ns that installs csv, which waits for
// approval.
func (e *Env) ApproveInstallPlan(ns, csv string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) {
		plans := &operatorsv1alpha1.InstallPlanList{}
		g.Expect(e.Client.List(context.Background(), plans, client.InNamespace(ns))).To(gomega.Succeed())
		i := slices.IndexFunc(plans.Items, func(p operatorsv1alpha1.InstallPlan) bool {
			return slices.Contains(p.Spec.ClusterServiceVersionNames, csv)
		})
		g.Expect(i).NotTo(gomega.Equal(-1), "an InstallPlan for %s", csv)
		plan := &plans.Items[i]
		if !plan.Spec.Approved {
			g.Expect(plan.Status.Phase).To(gomega.Equal(operatorsv1alpha1.InstallPlanPhaseRequiresApproval))
			patch := client.MergeFrom(plan.DeepCopy())
			plan.Spec.Approved = true
			g.Expect(e.Client.Patch(context.Background(), plan, patch)).To(gomega.Succeed())
		}
	}).Should(gomega.Succeed())
}

// Unsubscribe uninstalls what subscribe installed as a user does (the Subscription, the
// CSVs, the CatalogSource) and waits until OLM has removed what it made of them, the
// OperatorGroup foo-operator aside.
func (e *Env) Unsubscribe(ns, catalogNS, catalogName string, csvs ...string) {
	ginkgo.GinkgoHelper()
	objs := make([]client.Object, 0, len(csvs)+2)
	objs = append(objs, &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: Package, Namespace: ns}})
	for _, csv := range csvs {
		objs = append(objs, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: csv, Namespace: ns}})
	}
	objs = append(objs, &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: catalogName, Namespace: catalogNS}})
	for _, obj := range objs {
		gomega.Expect(client.IgnoreNotFound(e.Client.Delete(context.Background(), obj))).To(gomega.Succeed())
	}
	e.removeMetricsReader(ns)
	e.ExpectOnlyDefaultsLeft(ns, "operatorgroup/foo-operator")
	e.ExpectClusterRolesGone(ns)
}

// MetricsReader is the bundle's ServiceAccount that Prometheus scrapes the operator as.
const MetricsReader = "foo-operator-metrics-reader"

// removeMetricsReader deletes the MetricsReader ServiceAccount of ns once nothing else of the
// uninstalled operator is left, as docs/olm.md's uninstall does: OLM v0 (v0.38.0) gives a
// bundle's ServiceAccount no owner, so it outlives the CSV (bound to nothing: OLM removed its
// ClusterRoleBinding, and its token went with the CSV).
func (e *Env) removeMetricsReader(ns string) {
	ginkgo.GinkgoHelper()
	e.ExpectOnlyDefaultsLeft(ns, "operatorgroup/foo-operator", "serviceaccount/"+MetricsReader)
	e.Kubectl("delete", "serviceaccount", MetricsReader, "--namespace", ns, "--ignore-not-found")
}

// Uninstall deletes the Subscription and the CSV in ns, as the README says, and waits until
// OLM removed the operator's Deployment.
func (e *Env) Uninstall(ns, csv string) {
	ginkgo.GinkgoHelper()
	gomega.Expect(e.Client.Delete(context.Background(), &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Name: Package, Namespace: ns}})).To(gomega.Succeed())
	gomega.Expect(e.Client.Delete(context.Background(), &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Name: csv, Namespace: ns}})).To(gomega.Succeed())
	gomega.Eventually(func(g gomega.Gomega) {
		err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: OperatorServiceAccount}, &appsv1.Deployment{})
		g.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "the operator Deployment should be gone")
	}).Should(gomega.Succeed())
}

func CRDEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// ExpectScopedTo checks, with kubectl auth can-i, that OLM granted the operator's service
// account in ns the right to create and delete Deployments in the target namespaces and
// not in the others.
func (e *Env) ExpectScopedTo(ns string, targets, others []string) {
	ginkgo.GinkgoHelper()
	sa := fmt.Sprintf("system:serviceaccount:%s:%s", ns, OperatorServiceAccount)
	for _, verb := range []string{"create", "delete"} {
		for _, target := range targets {
			gomega.Eventually(func() string { return e.CanI(sa, verb, "deployments.apps", target) }).Should(gomega.Equal("yes"), "%s %s in %s", sa, verb, target)
		}
		for _, other := range others {
			gomega.Expect(e.CanI(sa, verb, "deployments.apps", other)).To(gomega.Equal("no"), "%s %s in %s", sa, verb, other)
		}
	}
}

// CanI is what `kubectl auth can-i --as user verb resource -n ns` answers.
func (e *Env) CanI(user, verb, resource, ns string) string {
	ginkgo.GinkgoHelper()
	out, err := framework.Run(framework.Root(), nil, nil, filepath.Join(framework.Root(), "bin", "kubectl"), "--kubeconfig", e.Cluster.Kubeconfig(),
		"auth", "can-i", verb, resource, "-n", ns, "--as", user)
	answer := strings.TrimSpace(out)
	if err != nil && answer != "no" { // "no" exits with 1
		ginkgo.Fail(err.Error())
	}
	return answer
}

// ExpectFooReady waits until foo reports its current generation Ready.
func (e *Env) ExpectFooReady(foo *samplev1alpha1.Foo) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(e.Client.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(gomega.Succeed())
		g.Expect(got.Status.ObservedGeneration).To(gomega.Equal(got.Generation))
		g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, samplev1alpha1.ReadyCondition)).To(gomega.BeTrue(), "%v", got.Status.Conditions)
		g.Expect(e.RunningPods(g, foo.Namespace, foo.Name)).To(gomega.HaveLen(int(got.Spec.DesiredReplicas())))
	}).Should(gomega.Succeed())
}

// AvailableReplicas is a Deployment's status.availableReplicas; 0 when it does not exist.
func (e *Env) AvailableReplicas(ns, name string) (int32, error) {
	d := &appsv1.Deployment{}
	err := e.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return d.Status.AvailableReplicas, err
}

func SampleFoo(ns string) *samplev1alpha1.Foo {
	ginkgo.GinkgoHelper()
	csvFile, err := os.ReadFile(filepath.Join(framework.Root(), "bundle", "manifests", "foo-operator.clusterserviceversion.yaml"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	gomega.Expect(yaml.Unmarshal(csvFile, csv)).To(gomega.Succeed())
	var foos []samplev1alpha1.Foo
	gomega.Expect(json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &foos)).To(gomega.Succeed())
	gomega.Expect(foos).NotTo(gomega.BeEmpty())
	foo := foos[0].DeepCopy()
	foo.Namespace = ns
	return foo
}

// RunningPods are the Running pods of a Foo's Deployment, found by its selector.
func (e *Env) RunningPods(g gomega.Gomega, ns, fooName string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(e.Client.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels(controllers.SelectorLabels(fooName)))).To(gomega.Succeed())
	var running []corev1.Pod
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			running = append(running, p)
		}
	}
	return running
}

// PatchFoo changes a Foo with a merge patch.
func (e *Env) PatchFoo(foo *samplev1alpha1.Foo, mutate func(*samplev1alpha1.Foo)) {
	ginkgo.GinkgoHelper()
	latest := &samplev1alpha1.Foo{}
	gomega.Expect(e.Client.Get(context.Background(), client.ObjectKeyFromObject(foo), latest)).To(gomega.Succeed())
	patch := client.MergeFrom(latest.DeepCopy())
	mutate(latest)
	gomega.Expect(e.Client.Patch(context.Background(), latest, patch)).To(gomega.Succeed())
	mutate(foo)
}

// SetUnschedulable cordons or uncordons a node, as kubectl cordon and uncordon do.
func (e *Env) SetUnschedulable(node *corev1.Node, unschedulable bool) {
	ginkgo.GinkgoHelper()
	patch := client.MergeFrom(node.DeepCopy())
	node.Spec.Unschedulable = unschedulable
	gomega.Expect(e.Client.Patch(context.Background(), node, patch)).To(gomega.Succeed())
}

// Kubectl runs bin/kubectl against the cluster; it fails the spec if the command fails.
func (e *Env) Kubectl(args ...string) string {
	ginkgo.GinkgoHelper()
	return Run(framework.Root(), nil, filepath.Join(framework.Root(), "bin", "kubectl"), append([]string{"--kubeconfig", e.Cluster.Kubeconfig()}, args...)...)
}

// DeleteFoo deletes foo as docs/olm.md's Uninstall says to before the CRD goes: in the
// foreground, so that the Foo is gone only once the garbage collector deleted what it owns
// (its Deployment, its budget). A CRD deleted with Foos in it races the garbage collector: a
// Deployment whose Foo's type is gone before the collector confirmed the Foo's absence is
// never collected (kubernetes/kubernetes#102641; a pinned release's cleanup left one so).
func (e *Env) DeleteFoo(foo *samplev1alpha1.Foo) {
	ginkgo.GinkgoHelper()
	gomega.Expect(e.Client.Delete(context.Background(), foo, client.PropagationPolicy(metav1.DeletePropagationForeground))).To(gomega.Succeed())
	gomega.Eventually(func() error {
		return e.Client.Get(context.Background(), client.ObjectKeyFromObject(foo), &samplev1alpha1.Foo{})
	}).Should(gomega.Satisfy(apierrors.IsNotFound), "Foo %s gone, after what it owns", client.ObjectKeyFromObject(foo))
	d := client.ObjectKey{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}
	gomega.Expect(e.Client.Get(context.Background(), d, &appsv1.Deployment{})).To(gomega.Satisfy(apierrors.IsNotFound), "Deployment %s gone before its Foo", d)
}

// RemoveCRD deletes the Foo CRD, if any, and waits until it is gone.
func (e *Env) RemoveCRD() {
	ginkgo.GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: FooCRD}}
	gomega.Expect(client.IgnoreNotFound(e.Client.Delete(context.Background(), crd))).To(gomega.Succeed())
	e.ExpectCRDGone()
}

func (e *Env) ExpectCRDGone() {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func() bool {
		return apierrors.IsNotFound(e.Client.Get(context.Background(), client.ObjectKey{Name: FooCRD}, &apiextensionsv1.CustomResourceDefinition{}))
	}).Should(gomega.BeTrue(), "the Foo CRD, and with it every Foo")
}
