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
	"k8s.io/apimachinery/pkg/util/validation/field"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// validateFoo checks what the CRD cannot: its rules (api/v1alpha1, in CEL and OpenAPI)
// reject at admission every Foo no valid Deployment can be made of, but whether a Foo
// without spec.image has an image depends on the operator's configuration
// (RELATED_IMAGE_NGINX). The Foo admission specs of the envtest suite check both halves:
// the CRD rejects each invalid Foo, and every Foo it admits makes a Deployment the API
// server accepts. A Foo stored under a CRD without some rule, which makes an invalid
// Deployment, is reported as DeploymentWriteFailed with the API server's message, which
// names the field.
func validateFoo(foo *samplev1alpha1.Foo, defaultImage string) error {
	if foo.Spec.Image == "" && defaultImage == "" {
		return field.Required(field.NewPath("spec", "image"), "the operator has no default image (RELATED_IMAGE_NGINX is empty): set spec.image")
	}
	return nil
}
