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
		{name: "the default image", foo: newFoo("a"), defaultImage: testImage},
		{name: "an image from the spec without a default", foo: newFoo("a", withImage("nginx:1.28"))},
		{name: "no image anywhere", foo: newFoo("a"), wantErrs: []string{"spec.image: Required value", "RELATED_IMAGE_NGINX"}},
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
