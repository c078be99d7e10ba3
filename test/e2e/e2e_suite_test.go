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

// Package e2e installs, uses, upgrades and uninstalls the operator through a real OLM on a
// local control plane with simulated nodes (hack/local-cluster.sh). Run it with
// `make test-e2e`.
package e2e

import (
	"context"
	"path/filepath"
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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

var (
	root = framework.Root() // commands run there
	// cluster is the suite's own, apart from a `make demo` one.
	cluster    = &framework.Cluster{Dir: filepath.Join(root, ".kwok-e2e")}
	cfg        *rest.Config
	k8s        client.Client
	clientset  *kubernetes.Clientset
	work       string // the suite's scratch directory
	managerBin string // the operator, built once
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(3 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "e2e suite")
}

var _ = BeforeSuite(func() {
	work = GinkgoT().TempDir()
	By("building the operator")
	managerBin = suite.BuildManager(work)

	By("starting a local cluster and OLM of the suite's own")
	Expect(cluster.Up()).To(Succeed())
	DeferCleanup(func() { Expect(cluster.Down()).To(Succeed()) })
	Expect(cluster.OLMUp()).To(Succeed())

	var err error
	cfg, err = cluster.Config()
	Expect(err).NotTo(HaveOccurred())
	k8s, clientset = suite.Clients(cfg, apiextensionsv1.AddToScheme, operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme, samplev1alpha1.AddToScheme)

	By("checking that the cluster enforces OwnerReferencesPermissionEnforcement (hack/kwokctl.yaml)")
	expectOwnerReferencesPermissionEnforcement()
})

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
