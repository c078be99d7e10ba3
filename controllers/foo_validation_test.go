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
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

func TestValidateFoo(t *testing.T) {
	tests := []struct {
		name         string
		foo          *samplev1alpha1.Foo
		defaultImage string
		wantErrs     []string // substrings of the error, each naming the field
	}{
		{name: "valid", foo: newFoo("a"), defaultImage: testImage},
		{name: "valid, the longest deploymentName", foo: newFoo("a", withDeploymentName(strings.Repeat("w", 242))), defaultImage: testImage},
		{
			name: "deploymentName too long for its ReplicaSets", foo: newFoo("a", withDeploymentName(strings.Repeat("w", 243))), defaultImage: testImage,
			wantErrs: []string{"spec.deploymentName: Too long"},
		},
		{name: "valid, zero replicas and a dotted name", foo: newFoo("a", withReplicas(0), withDeploymentName("web.v1")), defaultImage: testImage},
		{name: "valid, image from the spec without a default", foo: newFoo("a", withImage("nginx:1.28"))},
		{
			name: "Foo name too long for a label value", foo: newFoo(strings.Repeat("a", 64)), defaultImage: testImage,
			wantErrs: []string{"metadata.name: Too long"},
		},
		{
			name: "no deploymentName", foo: newFoo("a", withDeploymentName("")), defaultImage: testImage,
			wantErrs: []string{"spec.deploymentName: Required value"},
		},
		{
			name: "uppercase deploymentName", foo: newFoo("a", withDeploymentName("Web")), defaultImage: testImage,
			wantErrs: []string{`spec.deploymentName: Invalid value: "Web"`},
		},
		{
			name: "negative replicas", foo: newFoo("a", withReplicas(-1)), defaultImage: testImage,
			wantErrs: []string{"spec.replicas: Invalid value: -1: must be between 0 and 100"},
		},
		{
			name: "too many replicas", foo: newFoo("a", withReplicas(101)), defaultImage: testImage,
			wantErrs: []string{"spec.replicas: Invalid value: 101"},
		},
		{
			name: "no image anywhere", foo: newFoo("a"),
			wantErrs: []string{"spec.image: Required value"},
		},
		{
			name: "image with a space", foo: newFoo("a", withImage("nginx latest")), defaultImage: testImage,
			wantErrs: []string{"spec.image: Invalid value"},
		},
		{
			name: "several problems at once", foo: newFoo("a", withDeploymentName("A_B"), withReplicas(500)), defaultImage: testImage,
			wantErrs: []string{"spec.deploymentName", "spec.replicas"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := validateFoo(tt.foo, tt.defaultImage)
			if len(tt.wantErrs) == 0 {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(HaveOccurred())
			for _, want := range tt.wantErrs {
				g.Expect(err.Error()).To(ContainSubstring(want))
			}
		})
	}
}
