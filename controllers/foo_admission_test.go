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

package controllers

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
)

// The CRD's validation, as the real API server applies it at admission.
var _ = Describe("Foo admission", func() {
	var ns string
	BeforeEach(func() {
		ns = newNamespace(context.Background())
	})

	// Sent as kubectl sends it: with strict field validation, so that an unknown field is an
	// error rather than a warning. The chaos suite sends the same Foos to a cluster with
	// production admission plugins, and reports the answers.
	var invalid []TableEntry
	for _, foo := range framework.InvalidFoos() {
		invalid = append(invalid, Entry(foo.Description, foo))
	}
	DescribeTable("rejects an invalid Foo with a message that names the field and what to fix",
		func(foo framework.InvalidFoo) {
			err := k8sClient.Create(context.Background(), foo.Object(ns), client.FieldValidation(metav1.FieldValidationStrict))
			Expect(err).To(HaveOccurred())
			// 422 Invalid; an unknown field fails decoding: 400 Bad Request.
			Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "want 422 Invalid or 400 Bad Request, got %v", err)
			Expect(err.Error()).To(ContainSubstring(foo.Field))
			Expect(err.Error()).To(ContainSubstring(foo.Message))
		},
		invalid,
	)

	// validateFoo leaves the spec to the CRD: every Foo it admits, up to its bounds, makes a
	// Deployment the API server accepts.
	DescribeTable("accepts a valid Foo, whose Deployment the API server accepts",
		func(name string, spec map[string]any) {
			ctx := context.Background()
			Expect(k8sClient.Create(ctx, framework.FooObject(ns, name, spec))).To(Succeed())
			foo := &samplev1alpha1.Foo{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, foo)).To(Succeed())
			Expect(validateFoo(foo, testImage)).To(Succeed())
			desired := DeploymentFor(foo, testImage)
			_, err := reconciler.Deployments.Deployments(ns).Apply(ctx, desired, metav1.ApplyOptions{FieldManager: FieldManager, DryRun: []string{metav1.DryRunAll}})
			Expect(err).NotTo(HaveOccurred())
		},
		Entry("sample-controller's example", "ok", framework.FooSpec(nil)),
		Entry("the longest Foo name (63)", strings.Repeat("f", 63), framework.FooSpec(nil)),
		Entry("zero replicas", "ok", framework.FooSpec(map[string]any{"replicas": int64(0)})),
		Entry("the longest deploymentName (242)", "ok", framework.FooSpec(map[string]any{"deploymentName": strings.Repeat("w", 242)})),
		Entry("a one-character deploymentName", "ok", framework.FooSpec(map[string]any{"deploymentName": "w"})),
		Entry("an empty image: the operator's default", "ok", framework.FooSpec(map[string]any{"image": ""})),
		Entry("the most replicas", "ok", framework.FooSpec(map[string]any{"replicas": int64(100)})),
		Entry("a dotted deploymentName", "ok", framework.FooSpec(map[string]any{"deploymentName": "web.v1"})),
		Entry("an image with registry, port, path and tag", "ok", framework.FooSpec(map[string]any{"image": "registry.example.com:5000/mirror/nginx-unprivileged:1.28.0-alpine"})),
		Entry("an image pinned by digest", "ok", framework.FooSpec(map[string]any{"image": "nginx@sha256:" + strings.Repeat("a", 64)})),
		Entry("an image with tag and digest", "ok", framework.FooSpec(map[string]any{"image": "docker.io/library/nginx:1.28@sha256:" + strings.Repeat("0", 64)})),
	)

	It("defaults replicas to 1", func() {
		foo := newFoo("defaulted", withNamespace(ns), withoutReplicas())
		Expect(k8sClient.Create(context.Background(), foo)).To(Succeed())
		Expect(foo.Spec.Replicas).To(Equal(ptr.To[int32](1)))
	})
})
