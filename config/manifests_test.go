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

// Package config_test checks the kustomize manifests in config/ as `make deploy` builds them.
package config_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/controllers"
)

// build runs `kustomize build` on a folder of config/ and returns the objects by kind.
func build(t *testing.T, dir string) map[string][]map[string]any {
	t.Helper()
	g := NewWithT(t)
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	g.Expect(err).NotTo(HaveOccurred())
	byKind := map[string][]map[string]any{}
	for _, r := range resources.Resources() {
		m, err := r.Map()
		g.Expect(err).NotTo(HaveOccurred())
		byKind[r.GetKind()] = append(byKind[r.GetKind()], m)
	}
	return byKind
}

func convert[T any](g Gomega, m map[string]any) *T {
	obj := new(T)
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, obj, true)).To(Succeed())
	return obj
}

func TestManagerDeployment(t *testing.T) {
	g := NewWithT(t)
	objs := build(t, "default")
	g.Expect(objs["Deployment"]).To(HaveLen(1))
	d := convert[appsv1.Deployment](g, objs["Deployment"][0])

	// The install namespace enforces the restricted profile, and the manager passes it.
	g.Expect(objs["Namespace"]).To(HaveLen(1))
	ns := convert[corev1.Namespace](g, objs["Namespace"][0])
	g.Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))
	g.Expect(d.Namespace).To(Equal(ns.Name))

	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	g.Expect(err).NotTo(HaveOccurred())
	restricted := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	result := policy.AggregateCheckResults(evaluator.EvaluatePod(restricted, &d.Spec.Template.ObjectMeta, &d.Spec.Template.Spec))
	g.Expect(result.Allowed).To(BeTrue(), "violates restricted: %s: %s", result.ForbiddenReason(), result.ForbiddenDetail())
	// The evaluator does reject what restricted forbids.
	privileged := d.Spec.Template.DeepCopy()
	privileged.Spec.SecurityContext.RunAsNonRoot = nil
	g.Expect(policy.AggregateCheckResults(evaluator.EvaluatePod(restricted, &privileged.ObjectMeta, &privileged.Spec)).Allowed).To(BeFalse())

	g.Expect(d.Spec.Template.Spec.Containers).To(HaveLen(1))
	c := d.Spec.Template.Spec.Containers[0]
	g.Expect(*c.SecurityContext.ReadOnlyRootFilesystem).To(BeTrue())
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceCPU))
	g.Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceMemory))
	g.Expect(c.Resources.Limits).To(HaveKey(corev1.ResourceMemory))
	g.Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
	g.Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
	g.Expect(c.Args).To(ContainElements("--leader-elect", "--metrics-bind-address=:8443"))
	g.Expect(c.Image).To(Equal("quay.io/example/foo-operator:v0.1.0"))
	// The default operand image is pinned and the same in the manifest and in the code.
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: "RELATED_IMAGE_NGINX", Value: controllers.DefaultOperandImage}))
	// The Go runtime's soft memory limit follows the container's (main.go takes a share).
	g.Expect(c.Env).To(ContainElement(SatisfyAll(
		HaveField("Name", "MEMORY_LIMIT"),
		HaveField("ValueFrom.ResourceFieldRef.Resource", "limits.memory"),
	)))
	// A heap goal of a quarter of the live heap above it (Go's default: all of it): docs/operations.md.
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: "GOGC", Value: "25"}))
	g.Expect(controllers.DefaultOperandImage).NotTo(HaveSuffix(":latest"))
}

func TestRBACIsLeastPrivilege(t *testing.T) {
	g := NewWithT(t)
	objs := build(t, "default")
	var rules []rbacv1.PolicyRule
	for _, kind := range []string{"ClusterRole", "Role"} {
		for _, m := range objs[kind] {
			rules = append(rules, convert[rbacv1.ClusterRole](g, m).Rules...)
		}
	}
	g.Expect(rules).NotTo(BeEmpty())
	for _, r := range rules {
		g.Expect(r.Verbs).NotTo(ContainElement("*"), "wildcard verb in %v", r)
		g.Expect(r.Resources).NotTo(ContainElement("*"), "wildcard resource in %v", r)
		g.Expect(r.APIGroups).NotTo(ContainElement("*"), "wildcard group in %v", r)
		if slices.Contains(r.Resources, "secrets") {
			// One Secret only, by name: the one the metrics certificate is kept in.
			g.Expect(r).To(Equal(rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"},
				ResourceNames: []string{"foo-operator-metrics-cert"}, Verbs: []string{"list", "watch", "update"}}), "the operator reaches no other Secret")
		}
	}
	// The Secret that rule names is the one config/default ships and the manager keeps.
	g.Expect(objs["Secret"]).To(ConsistOf(HaveKeyWithValue("metadata", HaveKeyWithValue("name", "foo-operator-metrics-cert"))))
	container := convert[appsv1.Deployment](g, objs["Deployment"][0]).Spec.Template.Spec.Containers[0]
	g.Expect(container.Args).To(ContainElement("--metrics-cert-secret=foo-operator-metrics-cert"))

	// The manager's own role: exactly what the reconciler uses.
	var manager *rbacv1.ClusterRole
	for _, m := range objs["ClusterRole"] {
		if cr := convert[rbacv1.ClusterRole](g, m); cr.Name == "foo-operator-manager-role" {
			manager = cr
		}
	}
	g.Expect(manager).NotTo(BeNil())
	g.Expect(manager.Rules).To(ConsistOf(
		rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"create", "delete", "get", "list", "patch", "watch"}},
		rbacv1.PolicyRule{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		// Budgets are read from the cache, and from the API server when a create finds one.
		rbacv1.PolicyRule{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"create", "delete", "get", "list", "patch", "watch"}},
		// Foos are read from the cache only: no get.
		rbacv1.PolicyRule{APIGroups: []string{"samplecontroller.example.com"}, Resources: []string{"foos"}, Verbs: []string{"list", "watch"}},
		// The controller ownerReference sets blockOwnerDeletion, which
		// OwnerReferencesPermissionEnforcement (OpenShift) allows only with this.
		rbacv1.PolicyRule{APIGroups: []string{"samplecontroller.example.com"}, Resources: []string{"foos/finalizers"}, Verbs: []string{"update"}},
		rbacv1.PolicyRule{APIGroups: []string{"samplecontroller.example.com"}, Resources: []string{"foos/status"}, Verbs: []string{"patch"}},
	))

	// Leader election reads and renews its own Lease only: an AllNamespaces OLM install
	// makes this Role a ClusterRole, which must not reach node heartbeats or other
	// components' leader Leases.
	var leases []rbacv1.PolicyRule
	for _, r := range rules {
		if slices.Contains(r.Resources, "leases") {
			leases = append(leases, r)
		}
	}
	g.Expect(leases).To(ConsistOf(
		// the one Lease main.go elects with (main_test.go checks the name)
		SatisfyAll(HaveField("APIGroups", []string{"coordination.k8s.io"}), HaveField("Resources", []string{"leases"}),
			HaveField("ResourceNames", HaveLen(1)), HaveField("Verbs", []string{"get", "update"})),
		rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
	))
}

// TestBundleBindsReconcilerRulesPerNamespace checks that what `make bundle` builds binds the
// reconciler's role with a RoleBinding, so the CSV lists its rules under `permissions` and
// OLM grants them only in the OperatorGroup's target namespaces; `make deploy` binds it
// cluster-wide.
func TestBundleBindsReconcilerRulesPerNamespace(t *testing.T) {
	g := NewWithT(t)
	bindings := func(dir, kind string) []string {
		var names []string
		for _, m := range build(t, dir)[kind] {
			names = append(names, convert[rbacv1.RoleBinding](g, m).Name)
		}
		return names
	}
	g.Expect(bindings("manifests", "RoleBinding")).To(ContainElement("foo-operator-manager-rolebinding"))
	g.Expect(bindings("manifests", "ClusterRoleBinding")).NotTo(ContainElement("foo-operator-manager-rolebinding"))
	g.Expect(bindings("default", "ClusterRoleBinding")).To(ContainElement("foo-operator-manager-rolebinding"))
}

// TestBundleCSV checks what `make bundle` (operator-sdk generate bundle) makes of the CSV
// base and config/: the content OperatorHub shows, the install modes, and RBAC that is
// cluster-wide only where it must be.
func TestBundleCSV(t *testing.T) {
	g := NewWithT(t)
	b, err := manifests.GetBundleFromDir("../bundle")
	g.Expect(err).NotTo(HaveOccurred())
	csv := b.CSV
	g.Expect(csv.Name).To(Equal("foo-operator.v0.1.0"))
	// docs/olm.md says which test shows each level.
	g.Expect(csv.Annotations).To(HaveKeyWithValue("capabilities", "Deep Insights"))
	g.Expect(csv.Annotations).To(HaveKeyWithValue("createdAt", "2026-11-22T00:00:00Z"), "make bundle pins createdAt to CREATED_AT")
	g.Expect(csv.Spec.Description).To(ContainSubstring("## Prerequisites"))
	g.Expect(csv.Spec.Icon).To(HaveLen(1))
	for _, m := range csv.Spec.InstallModes {
		g.Expect(m.Supported).To(BeTrue(), string(m.Type))
	}
	g.Expect(csv.Spec.InstallModes).To(HaveLen(4))
	g.Expect(csv.Spec.RelatedImages).To(ContainElement(
		operatorsv1alpha1.RelatedImage{Name: "nginx", Image: controllers.DefaultOperandImage}))
	owned := csv.Spec.CustomResourceDefinitions.Owned
	g.Expect(owned).To(HaveLen(1))
	g.Expect(owned[0].SpecDescriptors).To(HaveLen(4), "one per spec field, from the +operator-sdk:csv markers")
	g.Expect(owned[0].StatusDescriptors).To(HaveLen(7), "one per status field, from the +operator-sdk:csv markers")

	strategy := csv.Spec.InstallStrategy.StrategySpec
	env := strategy.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Env
	g.Expect(env).To(ContainElement(HaveField("ValueFrom.FieldRef.FieldPath", "metadata.annotations['olm.targetNamespaces']")))
	// Cluster-wide: only the metrics endpoint's TokenReviews and SubjectAccessReviews, and the
	// APIServer configuration whose TLS profile it follows on OpenShift.
	var clusterResources, namespacedResources []string
	for _, p := range strategy.ClusterPermissions {
		for _, r := range p.Rules {
			clusterResources = append(clusterResources, r.Resources...)
		}
	}
	for _, p := range strategy.Permissions {
		for _, r := range p.Rules {
			namespacedResources = append(namespacedResources, r.Resources...)
		}
	}
	g.Expect(clusterResources).To(ConsistOf("tokenreviews", "subjectaccessreviews", "apiservers"))
	g.Expect(namespacedResources).To(ContainElements("deployments", "events", "foos", "foos/status", "foos/finalizers", "leases"))
}

// TestBundleCSVDeclarations checks what the CSV declares about the operator for OperatorHub
// and OpenShift certification (docs/olm.md, "What the CSV declares") against the manifests
// that make it true: the image it names is the one it runs, the namespace it suggests is
// the one config/default and docs/olm/olmv1.yaml install into, and every
// features.operators.openshift.io annotation is set, "true" only where docs/olm.md names
// the test behind it.
func TestBundleCSVDeclarations(t *testing.T) {
	g := NewWithT(t)
	b, err := manifests.GetBundleFromDir("../bundle")
	g.Expect(err).NotTo(HaveOccurred())
	csv := b.CSV
	manager := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0]
	g.Expect(csv.Annotations).To(HaveKeyWithValue("containerImage", manager.Image))
	// relatedImages lists every image the operator runs or starts, as mirroring tools need:
	// its own and the operand's.
	var related []string
	for _, r := range csv.Spec.RelatedImages {
		related = append(related, r.Image)
	}
	g.Expect(related).To(ConsistOf(manager.Image, controllers.DefaultOperandImage))
	for _, e := range manager.Env {
		if strings.HasPrefix(e.Name, "RELATED_IMAGE_") {
			g.Expect(related).To(ContainElement(e.Value), e.Name)
		}
	}
	for _, key := range []string{"repository", "support", "createdAt", "description", "categories", "capabilities"} {
		g.Expect(csv.Annotations).To(HaveKeyWithValue(key, Not(BeEmpty())))
	}

	suggested := csv.Annotations["operatorframework.io/suggested-namespace"]
	g.Expect(build(t, "default")["Namespace"]).To(ContainElement(HaveKeyWithValue("metadata", HaveKeyWithValue("name", suggested))))
	raw, err := os.ReadFile("../docs/olm/olmv1.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(raw)).To(ContainSubstring("  namespace: "+suggested+"\n"), "the ClusterExtension's install namespace")

	features := map[string]string{}
	for k, v := range csv.Annotations {
		if name, ok := strings.CutPrefix(k, "features.operators.openshift.io/"); ok {
			features[name] = v
		}
	}
	// The keys OpenShift's certification checks (operator-pipelines' static tests).
	g.Expect(slices.Sorted(maps.Keys(features))).To(Equal([]string{"cnf", "cni", "csi", "disconnected", "fips-compliant",
		"proxy-aware", "tls-profiles", "token-auth-aws", "token-auth-azure", "token-auth-gcp"}))
	// "true" only where a test shows it (docs/olm.md names each). disconnected is "true" only
	// in a release bundle pinned by digest (make bundle USE_IMAGE_DIGESTS=true, test/e2e on a real node).
	shown := map[string]string{
		"proxy-aware":  "test/e2e on a real node: sends its requests through the proxy OLM passes it",
		"tls-profiles": "TestMetricsTLSFollowsClusterProfile: the metrics server follows the TLS security profile of the cluster's APIServer configuration",
	}
	for name, v := range features {
		if _, ok := shown[name]; ok {
			g.Expect(v).To(Equal("true"), "%s: %s", name, shown[name])
			continue
		}
		g.Expect(v).To(Equal("false"), "%s: no test shows it true (docs/olm.md)", name)
	}

	// minKubeVersion is the oldest Kubernetes make test-min-kube runs the envtest suites on:
	// the kube-apiserver it builds from hack/tools/kube-min.
	raw, err = os.ReadFile("../hack/tools/kube-min/go.mod")
	g.Expect(err).NotTo(HaveOccurred())
	mod, err := modfile.ParseLax("go.mod", raw, nil)
	g.Expect(err).NotTo(HaveOccurred())
	tested := slices.IndexFunc(mod.Require, func(r *modfile.Require) bool { return r.Mod.Path == "k8s.io/kubernetes" })
	g.Expect(tested).NotTo(Equal(-1), "hack/tools/kube-min requires k8s.io/kubernetes")
	g.Expect(semver.MajorMinor(mod.Require[tested].Mod.Version)).To(Equal(semver.MajorMinor("v"+csv.Spec.MinKubeVersion)),
		"minKubeVersion %s names the Kubernetes minor make test-min-kube tests (%s)", csv.Spec.MinKubeVersion, mod.Require[tested].Mod.Version)

	// OpenShift's catalogs take the bundle from the OpenShift of minKubeVersion on: 4.N runs
	// Kubernetes 1.(N+13) (4.16 runs 1.29), in the annotation and the bundle image's label.
	minor, err := strconv.Atoi(strings.Split(csv.Spec.MinKubeVersion, ".")[1])
	g.Expect(err).NotTo(HaveOccurred())
	openshift := fmt.Sprintf("v4.%d", minor-13)
	raw, err = os.ReadFile("../bundle/metadata/annotations.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	var metadata struct{ Annotations map[string]string }
	g.Expect(yaml.Unmarshal(raw, &metadata)).To(Succeed())
	g.Expect(metadata.Annotations).To(HaveKeyWithValue("com.redhat.openshift.versions", openshift))
	raw, err = os.ReadFile("../bundle.Dockerfile")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(strings.Split(string(raw), "\n")).To(ContainElement("LABEL com.redhat.openshift.versions=" + openshift))

	// The platforms the operator image is built and tested for: hack/images.sh builds it
	// for this machine's, linux/amd64.
	g.Expect(csv.Labels).To(Equal(map[string]string{
		"operatorframework.io/arch.amd64": "supported",
		"operatorframework.io/os.linux":   "supported",
	}))
}

// TestBundleOperatorHA checks that the bundle runs the operator highly available: two
// replicas spread over nodes where the scheduler can (an affinity, which a Subscription's
// spec.config.affinity replaces), and a PodDisruptionBudget over exactly its pods that lets a
// drain evict one at a time.
func TestBundleOperatorHA(t *testing.T) {
	g := NewWithT(t)
	b, err := manifests.GetBundleFromDir("../bundle")
	g.Expect(err).NotTo(HaveOccurred())
	deployment := b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec
	g.Expect(deployment.Replicas).To(HaveValue(BeEquivalentTo(2)))
	podLabels := deployment.Template.Labels
	preferred := deployment.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	g.Expect(preferred).To(HaveLen(1))
	g.Expect(preferred[0].PodAffinityTerm.TopologyKey).To(Equal(corev1.LabelHostname))
	g.Expect(preferred[0].PodAffinityTerm.LabelSelector.MatchLabels).To(Equal(deployment.Selector.MatchLabels))

	var budgets []*policyv1.PodDisruptionBudget
	for _, o := range b.Objects {
		if o.GetKind() == "PodDisruptionBudget" {
			budgets = append(budgets, convert[policyv1.PodDisruptionBudget](g, o.Object))
		}
	}
	g.Expect(budgets).To(HaveLen(1))
	g.Expect(budgets[0].Spec.MaxUnavailable).To(HaveValue(Equal(intstr.FromInt32(1))))
	g.Expect(budgets[0].Spec.MinAvailable).To(BeNil(), "a minAvailable would block drains of an operator scaled to one replica")
	g.Expect(budgets[0].Spec.Selector.MatchLabels).To(Equal(deployment.Selector.MatchLabels))
	for k, v := range budgets[0].Spec.Selector.MatchLabels {
		g.Expect(podLabels).To(HaveKeyWithValue(k, v))
	}
}

// TestBundleMonitoring checks that the bundle's ServiceMonitor scrapes what the bundle makes:
// the metrics Service, by its labels and port; the certificate the manager keeps in the
// bundle's Secret, verified under a name it carries; the token of the bundle's
// ServiceAccount, which the CSV's clusterPermissions let read /metrics. OLM creates a
// bundle's objects in the order of their files: the ServiceAccount before its token.
func TestBundleMonitoring(t *testing.T) {
	g := NewWithT(t)
	b, err := manifests.GetBundleFromDir("../bundle")
	g.Expect(err).NotTo(HaveOccurred())
	objects := map[string]map[string]any{}
	for _, o := range b.Objects {
		objects[o.GetKind()+"/"+o.GetName()] = o.Object
	}
	g.Expect(objects).To(HaveKey("PrometheusRule/foo-operator-controller-manager-alerts"))
	monitor := objects["ServiceMonitor/foo-operator-controller-manager-metrics-monitor"]
	g.Expect(monitor).NotTo(BeNil())
	var sm struct {
		Spec struct {
			Selector  metav1.LabelSelector `json:"selector"`
			Endpoints []struct {
				Port, Scheme  string
				Authorization struct {
					Credentials corev1.SecretKeySelector `json:"credentials"`
				} `json:"authorization"`
				TLSConfig struct {
					ServerName string `json:"serverName"`
					CA         struct {
						Secret corev1.SecretKeySelector `json:"secret"`
					} `json:"ca"`
					InsecureSkipVerify bool `json:"insecureSkipVerify"`
				} `json:"tlsConfig"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	raw, err := json.Marshal(monitor)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(raw, &sm)).To(Succeed())
	g.Expect(sm.Spec.Endpoints).To(HaveLen(1))
	e := sm.Spec.Endpoints[0]

	service := convert[corev1.Service](g, objects["Service/"+e.TLSConfig.ServerName])
	g.Expect(service.Name).To(Equal(e.TLSConfig.ServerName), "serverName is the metrics Service's name, which the certificate carries")
	for k, v := range sm.Spec.Selector.MatchLabels {
		g.Expect(service.Labels).To(HaveKeyWithValue(k, v), "the ServiceMonitor selects the metrics Service")
	}
	g.Expect(service.Spec.Ports).To(ContainElement(HaveField("Name", e.Port)))
	g.Expect(e.Scheme).To(Equal("https"))
	g.Expect(e.TLSConfig.InsecureSkipVerify).To(BeFalse())

	g.Expect(objects).To(HaveKey("Secret/" + e.TLSConfig.CA.Secret.Name))
	g.Expect(e.TLSConfig.CA.Secret.Key).To(Equal("ca.crt"))
	manager := b.CSV.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0]
	g.Expect(manager.Args).To(ContainElement("--metrics-cert-secret=" + e.TLSConfig.CA.Secret.Name))

	token := convert[corev1.Secret](g, objects["Secret/"+e.Authorization.Credentials.Name])
	g.Expect(token.Type).To(Equal(corev1.SecretTypeServiceAccountToken))
	g.Expect(e.Authorization.Credentials.Key).To(Equal(corev1.ServiceAccountTokenKey))
	reader := token.Annotations[corev1.ServiceAccountNameKey]
	g.Expect(objects).To(HaveKey("ServiceAccount/" + reader))
	g.Expect(reader+"_v1_serviceaccount.yaml" < token.Name+"_v1_secret.yaml").To(BeTrue(), "the ServiceAccount's file sorts before its token's")
	g.Expect(b.CSV.Spec.InstallStrategy.StrategySpec.ClusterPermissions).To(ContainElement(SatisfyAll(
		HaveField("ServiceAccountName", reader),
		HaveField("Rules", ConsistOf(rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}})),
	)), "OLM binds the reader in the install namespace")
}
