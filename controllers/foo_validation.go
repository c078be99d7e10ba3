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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// maxReplicas is the upper bound of spec.replicas; the CRD enforces the same bound.
const maxReplicas = 100

// maxDeploymentNameLength is the longest spec.deploymentName whose ReplicaSet names,
// <deploymentName>-<hash of up to 10 characters>, fit in 253 characters on the Kubernetes
// versions the bundle supports (before 1.34; kubernetes/kubernetes#116447). The CRD
// enforces the same bound.
const maxDeploymentNameLength = validation.DNS1123SubdomainMaxLength - 1 - 10

// validateFoo checks that a Foo can be turned into a valid Deployment. The CRD rejects
// such Foos at admission; this check covers Foos stored before the CRD carried a rule (or
// written with validation bypassed), so the operator reports them instead of retrying a
// write the API server would refuse. The error names the field and says what to fix.
func validateFoo(foo *samplev1alpha1.Foo, defaultImage string) error {
	var errs field.ErrorList
	spec := field.NewPath("spec")

	if len(foo.Name) > validation.LabelValueMaxLength {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), foo.Name, validation.LabelValueMaxLength))
	}
	if foo.Spec.DeploymentName == "" {
		errs = append(errs, field.Required(spec.Child("deploymentName"), "name the Deployment to create"))
	}
	for _, msg := range validation.IsDNS1123Subdomain(foo.Spec.DeploymentName) {
		if foo.Spec.DeploymentName != "" {
			errs = append(errs, field.Invalid(spec.Child("deploymentName"), foo.Spec.DeploymentName, msg))
		}
	}
	if len(foo.Spec.DeploymentName) > maxDeploymentNameLength {
		errs = append(errs, field.TooLong(spec.Child("deploymentName"), foo.Spec.DeploymentName, maxDeploymentNameLength))
	}
	if r := foo.Spec.Replicas; r != nil && (*r < 0 || *r > maxReplicas) {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *r, fmt.Sprintf("must be between 0 and %d", maxReplicas)))
	}
	if foo.Spec.Image == "" && defaultImage == "" {
		errs = append(errs, field.Required(spec.Child("image"), "the operator has no default image (RELATED_IMAGE_NGINX is empty): set spec.image"))
	}
	if strings.ContainsAny(foo.Spec.Image, " \t\n") {
		errs = append(errs, field.Invalid(spec.Child("image"), foo.Spec.Image, "must not contain whitespace"))
	}
	return errs.ToAggregate()
}
