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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/framework/suite"
)

// The upgrade graph as config/catalog/template.yaml asks releases to write it (catalogV3 is
// rendered from such a template): each release skips every earlier one, and a deprecated
// release says so through OLM.
var _ = Describe("The catalog's upgrade graph", Label(RealNode), Ordered, func() {
	const catalogNS, catalogName = "olm", "foo-catalog-graph"
	var ns string

	BeforeAll(func() {
		ns = env.NewNamespace("graph", true)
		Expect(k8s.Create(context.Background(), &operatorsv1.OperatorGroup{
			ObjectMeta: metav1.ObjectMeta{Name: "foo-operator", Namespace: ns},
			Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: []string{ns}},
		})).To(Succeed())
	})
	AfterEach(func() { env.ReportOLMStateOnFailure(ns) })
	AfterAll(func() {
		env.Unsubscribe(ns, catalogNS, catalogName, csvV1, csvV3)
	})

	It("shows v0.1.0 deprecated in the Subscription, and upgrades it past v0.2.0 to v0.3.0 in one step", func() {
		env.Subscribe(ns, catalogNS, catalogName, catalogV3, suite.StartingAt(csvV1))
		env.ApproveInstallPlan(ns, csvV1)
		suite.ExpectCSVSucceeded(k8s, ns, csvV1)

		By("reading the deprecation from the Subscription's conditions")
		Eventually(func(g Gomega) {
			sub := &operatorsv1alpha1.Subscription{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: suite.Package}, sub)).To(Succeed())
			deprecated := sub.Status.GetCondition(operatorsv1alpha1.SubscriptionBundleDeprecated)
			g.Expect(deprecated.Status).To(Equal(corev1.ConditionTrue))
			g.Expect(deprecated.Message).To(ContainSubstring(deprecationV1))
		}).Should(Succeed())

		By("upgrading: the InstallPlan OLM proposes installs v0.3.0, whose skipRange covers v0.1.0")
		env.ApproveInstallPlan(ns, csvV3)
		suite.ExpectCSVSucceeded(k8s, ns, csvV3)
		env.ExpectOperatorRunning(ns, operatorV2)
		plans := &operatorsv1alpha1.InstallPlanList{}
		Expect(k8s.List(context.Background(), plans, client.InNamespace(ns))).To(Succeed())
		var installed []string
		for _, p := range plans.Items {
			installed = append(installed, p.Spec.ClusterServiceVersionNames...)
		}
		Expect(installed).To(ConsistOf(csvV1, csvV3), "v0.2.0 was never installed")
		Eventually(func(g Gomega) {
			sub := &operatorsv1alpha1.Subscription{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: suite.Package}, sub)).To(Succeed())
			g.Expect(sub.Status.GetCondition(operatorsv1alpha1.SubscriptionBundleDeprecated).Status).NotTo(Equal(corev1.ConditionTrue))
		}).Should(Succeed(), "v0.3.0 is not deprecated")
	})
})
