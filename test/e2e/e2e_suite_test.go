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

// Package e2e runs what the operator's users run, on a local cluster with OLM
// (hack/local-cluster.sh). The cluster's node is the suite's parameter, as kind makes its node
// image one: E2E_NODE=kwok (the default) is a simulated node, E2E_NODE=real one that runs
// containers (hack/real-node.sh; root: containerd, the kubelet and iptables need it).
// Specs that need containers to run say so with Label(RealNode) and run only on a real node,
// those that need a simulated node's cluster with Label(SimulatedNode) (the suite derives
// that filter from the node); the others run on both, where what differs
// (where a catalog comes from, how the operator runs, how pods use CPU) is the node's.
// `make test-e2e` runs the suite on each.
package e2e

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// RealNode labels the specs that need a real node: pods that run. SimulatedNode labels the
// few that act on what only a simulated node's cluster is: local processes kwokctl started.
const (
	RealNode      = "real-node"
	SimulatedNode = "simulated-node"
)

const (
	csvV1 = "foo-operator.v0.1.0"
	csvV2 = "foo-operator.v0.2.0"
	csvV3 = "foo-operator.v0.3.0"
	// operandV2 is v0.2.0's operand (RELATED_IMAGE_NGINX): the upgrade changes every Foo's
	// pods, and on a real node their page names its tag.
	operandV2 = "docker.io/nginxinc/nginx-unprivileged:1.29.1-alpine"
	// publishedOperatorV1 is the operator image config/manager names: this project's own.
	publishedOperatorV1 = "quay.io/example/foo-operator:v0.1.0"
	// v0.3.0, for the upgrade graph only, is built here under the project's names, which the
	// cluster's registry mirrors. catalogV3 holds v0.1.0 (deprecated), v0.2.0 and v0.3.0,
	// which skips both.
	bundleV3  = "quay.io/example/foo-operator-bundle:v0.3.0"
	catalogV3 = "quay.io/example/foo-operator-catalog:v0.3.0"
	// deprecationV1 is catalogV3's deprecation message for v0.1.0.
	deprecationV1 = "foo-operator v0.1.0 is deprecated: upgrade to v0.3.0"
)

var (
	root = framework.Root() // commands run there
	// node is the kind of the cluster's node: kwok or real.
	node = cmp.Or(os.Getenv("E2E_NODE"), "kwok")
	// cluster is the suite's own, apart from a `make demo` one.
	cluster = &framework.Cluster{Dir: filepath.Join(root, ".kwok-e2e-"+node), RealNode: node == "real", Images: []string{"olm", "olmv1", "sdk"}}
	// env is the cluster with its admin's clients, which the helpers of test/framework/suite
	// act on; cfg, k8s and clientset are its.
	env        *suite.Env
	cfg        *rest.Config
	k8s        client.Client
	clientset  *kubernetes.Clientset
	work       string // the suite's scratch directory
	managerBin string // the operator, built once, on a simulated node
	// The rest is a real node's.
	// users is a user's registry: this machine's address under a port, a CA and an org of
	// its own, which the node trusts and nothing mirrors. make release publishes v0.1.0 and
	// v0.2.0 there (IMAGE_TAG_BASE users.Host/acme/foo-operator), and every workflow but the
	// upgrade graph installs those images.
	users *framework.Registry
	// The images make release published.
	operatorV1, operatorV2, bundleV1, bundleV2, catalogV1, catalogV2 string
	// releaseV1 is make release's directory for v0.1.0 (its bundle/ and catalog/).
	releaseV1 string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(3 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	suiteConfig, reporterConfig := GinkgoConfiguration()
	suiteConfig.LabelFilter = nodeFilter(suiteConfig.LabelFilter, cluster.RealNode)
	RunSpecs(t, "e2e suite on a "+node+" node", suiteConfig, reporterConfig)
}

// nodeFilter is the label filter that leaves out the specs that need the other kind of node,
// and also applies the one given (-ginkgo.label-filter), if any.
func nodeFilter(given string, realNode bool) string {
	other := RealNode
	if realNode {
		other = SimulatedNode
	}
	if given == "" {
		return "!" + other
	}
	return "(" + given + ") && !" + other
}

var _ = BeforeSuite(func() {
	work = GinkgoT().TempDir()
	if cluster.RealNode {
		By("checking that this machine can run containers")
		suite.Run(root, nil, "hack/real-node.sh", "check")
	} else {
		By("building the operator, which runs as a local process beside the simulated node")
		managerBin = suite.BuildManager(work)
	}

	By("starting a local cluster (" + node + " node) and OLM of the suite's own")
	env = suite.StartEnv(cluster, suite.EnvOptions{OLM: true, Schemes: []func(*runtime.Scheme) error{
		apiextensionsv1.AddToScheme, operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme, samplev1alpha1.AddToScheme,
	}})
	cfg, k8s, clientset = env.Config, env.Client, env.Clientset

	By("checking that the cluster enforces OwnerReferencesPermissionEnforcement (hack/kwokctl.yaml)")
	expectOwnerReferencesPermissionEnforcement()

	if cluster.RealNode {
		releaseToUsersRegistry()
	}
})

// A spec that fails says which of the control plane's processes exited, if any.
var _ = AfterEach(func() { env.ReportExitedComponentsOnFailure() })

// releaseToUsersRegistry starts the user's registry and publishes v0.1.0 and v0.2.0 there
// with make release, then builds v0.3.0 and the catalog of the upgrade graph.
func releaseToUsersRegistry() {
	GinkgoHelper()
	By("starting the user's registry, which the node trusts and nothing mirrors")
	users = env.StartRegistry(filepath.Join(work, "users"), false)
	hostCAs := filepath.Join(work, "host-cas.crt")
	suite.Run(root, nil, "bash", "-c", `cat "$1" "$2" >"$3"`, "cat", env.HostCAs, users.CA, hostCAs)
	env.HostCAs = hostCAs
	base := users.Host + "/acme/foo-operator"
	operatorV1, bundleV1, catalogV1 = base+":v0.1.0", base+"-bundle:v0.1.0", base+"-catalog:v0.1.0"
	operatorV2, bundleV2, catalogV2 = base+":v0.2.0", base+"-bundle:v0.2.0", base+"-catalog:v0.2.0"

	By("releasing v0.1.0 with make release, on a copy of the tree, to the user's registry")
	releaseV1 = release(suite.CopyTree(work, "v1"), base, "0.1.0")

	By("releasing v0.2.0 the same way, with a newer operand and its entries in the template's channels")
	v2 := suite.CopyTree(work, "v2")
	suite.ReplaceInFile(filepath.Join(v2, "config", "manager", "manager.yaml"), controllers.DefaultOperandImage, operandV2)
	suite.ReplaceInFile(filepath.Join(v2, "config", "catalog", "template.yaml"), "  - name: "+csvV1+"\n",
		"  - name: "+csvV1+"\n  - name: "+csvV2+"\n    replaces: "+csvV1+"\n    skipRange: '>=0.1.0 <0.2.0'\n")
	releaseV2 := release(v2, base, "0.2.0")

	began := time.Now()
	By("building bundle v0.3.0 (generated, running v0.2.0's operator) and the catalog of the upgrade graph, v0.1.0 to v0.3.0")
	v3 := filepath.Join(work, "v3")
	generateUpgradeBundle("0.3.0", filepath.Join(v3, "bundle"))
	Expect(cluster.BuildImage(bundleV3, filepath.Join(root, "bundle.Dockerfile"), v3)).To(Succeed())
	catalog := suite.RenderCatalogTemplate(filepath.Join(work, "catalog-v3", "catalog"), []suite.Release{
		{CSV: csvV1, Image: bundleV1, Context: releaseV1}, {CSV: csvV2, Image: bundleV2, Context: releaseV2}, {CSV: csvV3, Image: bundleV3, Context: v3},
	}, map[string]string{csvV1: deprecationV1})
	Expect(cluster.BuildImage(catalogV3, filepath.Join(root, "catalog.Dockerfile"), filepath.Dir(catalog))).To(Succeed())
	AddReportEntry("image builds", time.Since(began).Round(time.Second).String())
}

// generateUpgradeBundle generates the bundle of version into dir, running v0.2.0's operator
// image and operand: config/manager names this project's v0.1.0 (make bundle sets it from IMG).
func generateUpgradeBundle(version, dir string) {
	GinkgoHelper()
	suite.GenerateBundle(version, dir)
	csv := filepath.Join(dir, "manifests", "foo-operator.clusterserviceversion.yaml")
	raw, err := os.ReadFile(csv)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).To(ContainSubstring(controllers.DefaultOperandImage))
	Expect(string(raw)).To(ContainSubstring(publishedOperatorV1))
	upgraded := strings.NewReplacer(controllers.DefaultOperandImage, operandV2, publishedOperatorV1, operatorV2).Replace(string(raw))
	Expect(os.WriteFile(csv, []byte(upgraded), 0o644)).To(Succeed())
}

// expectOwnerReferencesPermissionEnforcement checks that the API server runs the admission
// plugin: a service account that may create Deployments but not update its owner's
// finalizers cannot set blockOwnerDeletion.
func expectOwnerReferencesPermissionEnforcement() {
	GinkgoHelper()
	const ns, name = "admission-probe", "deployer"
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}},
		&rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"create", "delete"}}},
		},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
		},
	}
	for _, obj := range objs {
		Expect(k8s.Create(context.Background(), obj)).To(Succeed())
	}
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: ns}}
	Expect(k8s.Create(context.Background(), owner)).To(Succeed())

	impersonated := rest.CopyConfig(cfg)
	impersonated.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name}
	deployer, err := client.New(impersonated, client.Options{})
	Expect(err).NotTo(HaveOccurred())
	labels := map[string]string{"app": "probe"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: ptr.To(true),
		}}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/c:1"}}},
			},
		},
	}
	Eventually(func() error { return deployer.Create(context.Background(), d.DeepCopy(), client.DryRunAll) }).
		Should(MatchError(ContainSubstring("cannot set blockOwnerDeletion")))
	Expect(k8s.Delete(context.Background(), objs[0])).To(Succeed())
}
