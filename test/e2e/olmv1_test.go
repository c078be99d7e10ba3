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
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework/suite"
)

// OLM v1's API (operator-controller v1.2.0), read without its Go module: the suite's
// clients stay at the operator's Kubernetes version.
var (
	clusterCatalogGVK   = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterCatalog"}
	clusterExtensionGVK = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterExtension"}
)

const (
	// olmv1Manifest is the install through OLM v1 as docs/olm.md gives it: the ClusterCatalog,
	// the namespace, the installer ServiceAccount and its RBAC, the ClusterExtension.
	olmv1Manifest = "docs/olm/olmv1.yaml"
	// olmv1SingleNamespaceManifest is the Role a SingleNamespace install through OLM v1
	// v1.2.0 needs besides: the operator's leader election in its own namespace.
	olmv1SingleNamespaceManifest = "docs/olm/olmv1-single-namespace.yaml"
	// The names it uses.
	olmv1Name, olmv1Namespace = "foo-operator", "foo-operator-system"
	// watchNamespace is the annotation of a ClusterExtension that picks the namespace a
	// Single or OwnNamespace install watches (behind operator-controller's
	// SingleOwnNamespaceInstallSupport feature gate in v1.2.0).
	watchNamespace = "olm.operatorframework.io/watch-namespace"
	// ownerName labels what operator-controller installed for a ClusterExtension.
	ownerName = "olm.operatorframework.io/owner-name"
)

// bundleClusterRoles are the ClusterRoles of the bundle's manifests.
var bundleClusterRoles = []string{"foo-operator-foo-editor-role", "foo-operator-foo-viewer-role", "foo-operator-metrics-reader"}

var _ = Describe("OLM v1", Label(RealNode), Ordered, func() {
	var fooNS, manifest string
	var foo *samplev1alpha1.Foo

	BeforeAll(func() {
		began := time.Now()
		Expect(cluster.OLMv1Up("")).To(Succeed())
		AddReportEntry("OLM v1 deployed", time.Since(began).Round(time.Second).String())
		// OLM v1 installs a CRD only where nobody else owns it: OLM v0 leaves the CRD of an
		// operator it removed (the catalog specs' install).
		env.RemoveCRD()
		// Nor does it take over the bundle's ClusterRoles, which an OLM v0 install may leave
		// (docs/olm.md): the move from OLM v0 as docs/olm.md gives it.
		for _, name := range bundleClusterRoles {
			role := &rbacv1.ClusterRole{}
			if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, role); err == nil {
				AddReportEntry("ClusterRole "+name+" left by OLM v0, with labels", role.Labels)
				Expect(k8s.Delete(context.Background(), role)).To(Succeed())
			}
		}
		fooNS = env.NewNamespace("olmv1-foos", true)
		// The manifest as a user applies it: with their catalog image in the ClusterCatalog.
		manifest = filepath.Join(work, "olmv1.yaml")
		Expect(os.WriteFile(manifest, []byte(suite.ReadFile(filepath.Join(root, olmv1Manifest))), 0o644)).To(Succeed())
		suite.ReplaceInFile(manifest, "ref: quay.io/example/foo-operator-catalog:v0.1.0\n", "ref: "+catalogV1+"\n")
		env.Kubectl("apply", "--server-side", "-f", manifest)
	})
	AfterEach(func() {
		if CurrentSpecReport().Failed() {
			for _, gvk := range []schema.GroupVersionKind{clusterCatalogGVK, clusterExtensionGVK} {
				obj := &unstructured.Unstructured{}
				obj.SetGroupVersionKind(gvk)
				if err := k8s.Get(context.Background(), client.ObjectKey{Name: olmv1Name}, obj); err == nil {
					status, _, _ := unstructured.NestedFieldNoCopy(obj.Object, "status")
					AddReportEntry(gvk.Kind+" status", status)
				}
			}
		}
	})
	AfterAll(func() {
		deleteClusterExtension()
		catalog := &unstructured.Unstructured{}
		catalog.SetGroupVersionKind(clusterCatalogGVK)
		catalog.SetName(olmv1Name)
		Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), catalog))).To(Succeed())
		Expect(cluster.OLMv1Up("")).To(Succeed())
	})

	It("installs v0.1.0 from the catalog image for all namespaces, with the installer's RBAC only", func() {
		began := time.Now()
		expectCatalogServing(catalogV1)
		expectInstalled("0.1.0")
		env.ExpectOperatorRunning(olmv1Namespace, operatorV1)
		AddReportEntry("OLM v1 install", time.Since(began).Round(time.Second).String())
		Expect(targetNamespaces(Default)).To(Equal(""), "AllNamespaces: OLM v1 sets olm.targetNamespaces empty")

		foo = env.CreateFoo(fooNS, "olmv1-web", 2)
		env.ExpectServing(foo, 2, "nginx-unprivileged 1.28.0-alpine")
	})

	It("upgrades to v0.2.0 through the channel when the catalog image moves on, keeping the Foo", func() {
		began := time.Now()
		catalog := &unstructured.Unstructured{}
		catalog.SetGroupVersionKind(clusterCatalogGVK)
		catalog.SetName(olmv1Name)
		Expect(k8s.Patch(context.Background(), catalog, client.RawPatch(types.MergePatchType,
			[]byte(`{"spec":{"source":{"image":{"ref":"`+catalogV2+`"}}}}`)))).To(Succeed())
		expectCatalogServing(catalogV2)
		expectInstalled("0.2.0")
		env.ExpectOperatorRunning(olmv1Namespace, operatorV2)
		env.ExpectDeploymentImage(foo, operandV2)
		env.ExpectServing(foo, 2, "nginx-unprivileged 1.29.1-alpine")
		AddReportEntry("OLM v1 upgrade", time.Since(began).Round(time.Second).String())
	})

	It("removes everything it installed when the ClusterExtension is deleted", func() {
		installed := installedObjects(Default)
		Expect(installed).To(ContainElements("CustomResourceDefinition/"+suite.FooCRD, "Deployment/foo-operator-controller-manager",
			"ServiceAccount/foo-operator-controller-manager", "Service/foo-operator-controller-manager-metrics-service",
			"PodDisruptionBudget/foo-operator-controller-manager"))
		for _, name := range bundleClusterRoles {
			Expect(installed).To(ContainElement("ClusterRole/" + name))
		}
		began := time.Now()
		deleteClusterExtension()
		Eventually(installedObjects).Should(BeEmpty(), "what OLM v1 installed: %v", installed)
		env.ExpectCRDGone()
		AddReportEntry("OLM v1 uninstall", time.Since(began).Round(time.Second).String())
	})

	// OLM v1 installs for all namespaces by default; v1.2.0 installs for one namespace behind
	// its SingleOwnNamespaceInstallSupport feature gate, the namespace named by an annotation
	// of the ClusterExtension. MultiNamespace has no way to be asked for.
	for _, mode := range []string{"SingleNamespace", "OwnNamespace"} {
		It("installs watching one namespace ("+mode+"), its permissions as Roles there", func() {
			Expect(cluster.OLMv1Up("SingleOwnNamespaceInstallSupport=true")).To(Succeed())
			watched := olmv1Namespace
			if mode == "SingleNamespace" {
				watched = fooNS
			}
			// Back to the manifest as docs/olm.md gives it (the upgrade moved the catalog on).
			env.Kubectl("apply", "--server-side", "--force-conflicts", "-f", manifest)
			env.Kubectl("annotate", "clusterextension", olmv1Name, watchNamespace+"="+watched)
			expectCatalogServing(catalogV1)
			expectInstalled("0.1.0")
			// The ClusterExtension may be installed for all namespaces before the annotation
			// lands; operator-controller then installs it again for the one namespace.
			Eventually(targetNamespaces).Should(Equal(watched))
			if mode == "SingleNamespace" {
				// OLM v1 v1.2.0 grants the CSV's permissions in the watched namespace only
				// (OLM v0 also in the operator's own), so the operator cannot take its Lease.
				// Eventually: when the ClusterExtension was installed for all namespaces first,
				// Helm's upgrade to the one namespace deletes that install's ClusterRoleBinding
				// only after it has updated the Deployment.
				Eventually(operatorMayCreateLease).WithArguments(watched).Should(BeTrue(), "the CSV's permissions in the watched namespace")
				Eventually(operatorMayCreateLease).WithArguments(olmv1Namespace).Should(BeFalse(),
					"OLM v1 now grants the CSV's permissions in the install namespace: %s is no longer needed", olmv1SingleNamespaceManifest)
				env.Kubectl("apply", "--server-side", "-f", filepath.Join(root, olmv1SingleNamespaceManifest))
				DeferCleanup(env.Kubectl, "delete", "-f", filepath.Join(root, olmv1SingleNamespaceManifest))
			}
			env.ExpectOperatorRunning(olmv1Namespace, operatorV1)
			roles := &rbacv1.RoleList{}
			Expect(k8s.List(context.Background(), roles, client.InNamespace(watched), client.MatchingLabels{ownerName: olmv1Name})).To(Succeed())
			Expect(roles.Items).NotTo(BeEmpty(), "the CSV's permissions as Roles in %s", watched)

			web := env.CreateFoo(watched, "olmv1-"+strings.ToLower(mode), 1)
			env.ExpectServing(web, 1, "nginx-unprivileged 1.28.0-alpine")
			env.DeleteFoo(web) // before the CRD goes: docs/olm.md's Uninstall
			deleteClusterExtension()
			Eventually(installedObjects).Should(BeEmpty())
			env.ExpectCRDGone()
		})
	}
})

// operatorMayCreateLease reports whether RBAC lets the operator's ServiceAccount create a
// Lease in ns.
func operatorMayCreateLease(g Gomega, ns string) bool {
	review, err := clientset.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "system:serviceaccount:" + olmv1Namespace + ":foo-operator-controller-manager",
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: "create", Group: "coordination.k8s.io", Resource: "leases",
			},
		},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	return review.Status.Allowed
}

// expectCatalogServing waits until catalogd serves the ClusterCatalog's content unpacked
// from image.
func expectCatalogServing(image string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		catalog := &unstructured.Unstructured{}
		catalog.SetGroupVersionKind(clusterCatalogGVK)
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Name: olmv1Name}, catalog)).To(Succeed())
		ref, _, _ := unstructured.NestedString(catalog.Object, "status", "resolvedSource", "image", "ref")
		g.Expect(ref).To(HavePrefix(repository(image)+"@sha256:"), "%s resolved to a digest", image)
		g.Expect(conditionOf(g, catalog, "Serving")).To(Equal(metav1.ConditionTrue))
		g.Expect(conditionOf(g, catalog, "Progressing")).To(Equal(metav1.ConditionTrue))
	}).Should(Succeed())
}

// expectInstalled waits until the ClusterExtension reports version installed.
func expectInstalled(version string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		ext := &unstructured.Unstructured{}
		ext.SetGroupVersionKind(clusterExtensionGVK)
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Name: olmv1Name}, ext)).To(Succeed())
		g.Expect(conditionOf(g, ext, "Installed")).To(Equal(metav1.ConditionTrue))
		installed, _, _ := unstructured.NestedString(ext.Object, "status", "install", "bundle", "version")
		g.Expect(installed).To(Equal(version))
	}).Should(Succeed())
}

// conditionOf is the status of obj's condition of type t.
func conditionOf(g Gomega, obj *unstructured.Unstructured, t string) metav1.ConditionStatus {
	raw, _, err := unstructured.NestedSlice(obj.Object, "status", "conditions")
	g.Expect(err).NotTo(HaveOccurred())
	var conditions []metav1.Condition
	for _, c := range raw {
		m, _ := c.(map[string]any)
		s, _ := m["type"].(string)
		st, _ := m["status"].(string)
		conditions = append(conditions, metav1.Condition{Type: s, Status: metav1.ConditionStatus(st)})
	}
	if c := meta.FindStatusCondition(conditions, t); c != nil {
		return c.Status
	}
	return metav1.ConditionUnknown
}

// targetNamespaces is the olm.targetNamespaces annotation of the operator's pod template:
// the namespaces it watches (WATCH_NAMESPACE), "" for all.
func targetNamespaces(g Gomega) string {
	d := &appsv1.Deployment{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: olmv1Namespace, Name: "foo-operator-controller-manager"}, d)).To(Succeed())
	namespaces, ok := d.Spec.Template.Annotations["olm.targetNamespaces"]
	g.Expect(ok).To(BeTrue())
	return namespaces
}

// installedObjects are kind/name of every object labelled as installed for the
// ClusterExtension, of the kinds a registry+v1 bundle of this operator holds.
func installedObjects(g Gomega) []string {
	var found []string
	for kind, list := range map[string]client.ObjectList{
		"CustomResourceDefinition": &apiextensionsv1.CustomResourceDefinitionList{},
		"Deployment":               &appsv1.DeploymentList{}, "ServiceAccount": &corev1.ServiceAccountList{}, "Service": &corev1.ServiceList{},
		"ClusterRole": &rbacv1.ClusterRoleList{}, "ClusterRoleBinding": &rbacv1.ClusterRoleBindingList{},
		"Role": &rbacv1.RoleList{}, "RoleBinding": &rbacv1.RoleBindingList{},
		"PodDisruptionBudget": &policyv1.PodDisruptionBudgetList{},
	} {
		g.Expect(k8s.List(context.Background(), list, client.MatchingLabels{ownerName: olmv1Name})).To(Succeed())
		items, err := meta.ExtractList(list)
		g.Expect(err).NotTo(HaveOccurred())
		for _, item := range items {
			obj, err := meta.Accessor(item)
			g.Expect(err).NotTo(HaveOccurred())
			found = append(found, kind+"/"+obj.GetName())
		}
	}
	return found
}

// deleteClusterExtension deletes the ClusterExtension and waits until it is gone.
func deleteClusterExtension() {
	GinkgoHelper()
	ext := &unstructured.Unstructured{}
	ext.SetGroupVersionKind(clusterExtensionGVK)
	ext.SetName(olmv1Name)
	Expect(client.IgnoreNotFound(k8s.Delete(context.Background(), ext))).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Name: olmv1Name}, ext))
	}).Should(BeTrue())
}
