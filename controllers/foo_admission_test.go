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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The CRD's validation, as the real API server applies it at admission.
var _ = Describe("Foo admission", func() {
	var ns string
	BeforeEach(func() {
		ns = newNamespace(context.Background())
	})

	// fooObject is a valid Foo as unstructured content, so that specs can set fields to
	// values of the wrong type.
	fooObject := func(name string, spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "samplecontroller.example.com/v1alpha1",
			"kind":       "Foo",
			"metadata":   map[string]any{"name": name, "namespace": ns},
		}}
		if spec != nil {
			u.Object["spec"] = spec
		}
		return u
	}
	valid := func(overrides map[string]any) map[string]any {
		spec := map[string]any{"deploymentName": "web", "replicas": int64(1)}
		for k, v := range overrides {
			if v == nil {
				delete(spec, k)
			} else {
				spec[k] = v
			}
		}
		return spec
	}

	// Sent as kubectl sends it: with strict field validation, so that an unknown field is an
	// error rather than a warning.
	DescribeTable("rejects an invalid Foo with a message that names the field",
		func(name string, spec any, wantField, wantMessage string) {
			foo := fooObject(name, nil)
			if spec != nil {
				foo.Object["spec"] = spec
			}
			err := k8sClient.Create(context.Background(), foo, client.FieldValidation(metav1.FieldValidationStrict))
			Expect(err).To(HaveOccurred())
			// 422 Invalid; an unknown field fails decoding: 400 Bad Request.
			Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "want 422 Invalid or 400 Bad Request, got %v", err)
			Expect(err.Error()).To(ContainSubstring(wantField))
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("no spec", "a", nil, "spec", "Required value"),
		Entry("no deploymentName", "a", valid(map[string]any{"deploymentName": nil}), "spec.deploymentName", "Required value"),
		Entry("empty deploymentName", "a", valid(map[string]any{"deploymentName": ""}), "spec.deploymentName", "at least 1 chars long"),
		Entry("uppercase deploymentName", "a", valid(map[string]any{"deploymentName": "Web"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("underscore in deploymentName", "a", valid(map[string]any{"deploymentName": "my_web"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("deploymentName starting with a dash", "a", valid(map[string]any{"deploymentName": "-web"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("deploymentName ending with a dot", "a", valid(map[string]any{"deploymentName": "web."}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("deploymentName starting with a dot", "a", valid(map[string]any{"deploymentName": ".web"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("deploymentName in unicode", "a", valid(map[string]any{"deploymentName": "wëb-ünïcödé"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("deploymentName with a slash", "a", valid(map[string]any{"deploymentName": "team/web"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("deploymentName too long for a name", "a", valid(map[string]any{"deploymentName": strings.Repeat("w", 254)}), "spec.deploymentName", "Too long"),
		Entry("deploymentName too long for its ReplicaSets' names (243)", "a", valid(map[string]any{"deploymentName": strings.Repeat("w", 243)}), "spec.deploymentName", "deploymentName must be at most 242 characters"),
		Entry("deploymentName of the wrong type", "a", valid(map[string]any{"deploymentName": int64(5)}), "spec.deploymentName", "must be of type string"),
		Entry("negative replicas", "a", valid(map[string]any{"replicas": int64(-1)}), "spec.replicas", "greater than or equal to 0"),
		Entry("too many replicas", "a", valid(map[string]any{"replicas": int64(101)}), "spec.replicas", "less than or equal to 100"),
		Entry("replicas of 2^31, past int32", "a", valid(map[string]any{"replicas": int64(1) << 31}), "spec.replicas", "less than or equal to 100"),
		Entry("replicas as a string", "a", valid(map[string]any{"replicas": "three"}), "spec.replicas", "must be of type integer"),
		Entry("fractional replicas", "a", valid(map[string]any{"replicas": 1.5}), "spec.replicas", "must be of type integer"),
		Entry("image with a space", "a", valid(map[string]any{"image": "nginx latest"}), "spec.image", "image must be empty (the operator's default image) or a container image reference"),
		Entry("image with an uppercase repository", "a", valid(map[string]any{"image": "NGINX:1.28"}), "spec.image", "image must be empty (the operator's default image) or a container image reference"),
		Entry("image with an empty tag", "a", valid(map[string]any{"image": "nginx:"}), "spec.image", "image must be empty (the operator's default image) or a container image reference"),
		Entry("image with a short digest", "a", valid(map[string]any{"image": "nginx@sha256:abc"}), "spec.image", "image must be empty (the operator's default image) or a container image reference"),
		Entry("image of the wrong type", "a", valid(map[string]any{"image": int64(1)}), "spec.image", "must be of type string"),
		Entry("image too long", "a", valid(map[string]any{"image": "nginx:" + strings.Repeat("1", 600)}), "spec.image", "Too long"),
		Entry("Foo name too long for a label value", strings.Repeat("f", 64), valid(nil), "metadata.name must be at most 63 characters", "label value"),
		Entry("Foo name in uppercase", "Web", valid(nil), "metadata.name", "a lowercase RFC 1123 subdomain"),
		Entry("a misspelt field (strict validation, as kubectl)", "a", valid(map[string]any{"replica": int64(3)}), "spec.replica", "unknown field"),
		Entry("spec of the wrong type", "a", "web", "spec", "must be of type object"),
		Entry("deploymentName with a space", "a", valid(map[string]any{"deploymentName": "my web"}), "spec.deploymentName", "deploymentName must be a valid Deployment name"),
		Entry("image with a URL scheme", "a", valid(map[string]any{"image": "https://registry.example.com/nginx:1.28"}), "spec.image", "image must be empty (the operator's default image) or a container image reference"),
		Entry("image with a tag of 129 characters", "a", valid(map[string]any{"image": "nginx:" + strings.Repeat("t", 129)}), "spec.image", "image must be empty (the operator's default image) or a container image reference"),
	)

	DescribeTable("accepts a valid Foo",
		func(spec map[string]any) {
			Expect(k8sClient.Create(context.Background(), fooObject("ok", spec))).To(Succeed())
		},
		Entry("sample-controller's example", valid(nil)),
		Entry("zero replicas", valid(map[string]any{"replicas": int64(0)})),
		Entry("the longest deploymentName (242)", valid(map[string]any{"deploymentName": strings.Repeat("w", 242)})),
		Entry("a one-character deploymentName", valid(map[string]any{"deploymentName": "w"})),
		Entry("an empty image: the operator's default", valid(map[string]any{"image": ""})),
		Entry("the most replicas", valid(map[string]any{"replicas": int64(100)})),
		Entry("a dotted deploymentName", valid(map[string]any{"deploymentName": "web.v1"})),
		Entry("an image with registry, port, path and tag", valid(map[string]any{"image": "registry.example.com:5000/mirror/nginx-unprivileged:1.28.0-alpine"})),
		Entry("an image pinned by digest", valid(map[string]any{"image": "nginx@sha256:" + strings.Repeat("a", 64)})),
		Entry("an image with tag and digest", valid(map[string]any{"image": "docker.io/library/nginx:1.28@sha256:" + strings.Repeat("0", 64)})),
	)

	It("defaults replicas to 1", func() {
		foo := newFoo("defaulted", withNamespace(ns), withoutReplicas())
		Expect(k8sClient.Create(context.Background(), foo)).To(Succeed())
		Expect(foo.Spec.Replicas).To(Equal(ptr.To[int32](1)))
	})
})
