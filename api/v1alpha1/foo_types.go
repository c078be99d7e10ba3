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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FooSpec is the desired state of a Foo: an nginx Deployment of a given name and size.
type FooSpec struct {
	// deploymentName is the name of the Deployment the operator creates and keeps in the
	// Foo's namespace. It must be a valid Deployment name (a lowercase RFC 1123 subdomain) of
	// at most 242 characters: before Kubernetes 1.34 the Deployment controller names the
	// ReplicaSets <deploymentName>-<hash of up to 10 characters>, and a longer name leaves
	// the Deployment without pods (kubernetes/kubernetes#116447). Changing it creates the
	// Deployment under the new name and deletes the one under the old name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.size() <= 242",message="deploymentName must be at most 242 characters: the Deployment controller of Kubernetes before 1.34 names ReplicaSets <deploymentName>-<hash>, which must fit in 253 characters"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="deploymentName must be a valid Deployment name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (for example \"example-foo\")"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Deployment Name",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text"}
	DeploymentName string `json:"deploymentName"`

	// replicas is the number of nginx pods the Deployment runs. Defaults to 1; 0 scales the
	// Deployment to zero without deleting it. At most 100. It is also the target of the scale
	// subresource, so `kubectl scale` and a HorizontalPodAutoscaler can set it.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Replicas",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:podCount"}
	Replicas *int32 `json:"replicas,omitempty"`

	// image is the container image the Deployment runs, for example
	// "registry.example.com/mirror/nginx-unprivileged:1.28.0-alpine". When empty or unset the
	// operator uses its default operand image (the RELATED_IMAGE_NGINX environment variable of the
	// operator). The image must run as a non-root user and serve HTTP on port 8080, as the
	// nginx-unprivileged images do.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)([.][a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]+)?/)?[a-z0-9]+(([.]|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([.]|_|__|-+)[a-z0-9]+)*)*(:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127})?(@[a-z0-9]+([+._-][a-z0-9]+)*:[a-fA-F0-9]{32,})?$')",message="image must be empty (the operator's default image) or a container image reference such as \"registry.example.com/nginx:1.28.0\" or \"nginx@sha256:<digest>\": no spaces, lowercase repository path, optional tag and digest"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Image",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:text","urn:alm:descriptor:com.tectonic.ui:advanced"}
	Image string `json:"image,omitempty"`

	// podDisruptionBudget says whether the operator keeps a PodDisruptionBudget, named like
	// the Foo, that lets voluntary disruptions (a node drain, a cluster upgrade) take down at
	// most one of the Foo's pods at a time while the Foo has 2 or more replicas. Enabled (the
	// default when unset) or Disabled: the operator then deletes the budget it kept, and a
	// budget of your own may select the pods instead.
	// +optional
	// +kubebuilder:validation:Enum=Enabled;Disabled
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Pod Disruption Budget",xDescriptors={"urn:alm:descriptor:com.tectonic.ui:select:Enabled","urn:alm:descriptor:com.tectonic.ui:select:Disabled","urn:alm:descriptor:com.tectonic.ui:advanced"}
	PodDisruptionBudget PodDisruptionBudgetPolicy `json:"podDisruptionBudget,omitempty"`
}

// PodDisruptionBudgetPolicy is whether the operator keeps a PodDisruptionBudget for a
// Foo's pods.
type PodDisruptionBudgetPolicy string

const (
	// PodDisruptionBudgetEnabled: the operator keeps a budget while the Foo has 2 or more
	// replicas. It is what an unset spec.podDisruptionBudget means.
	PodDisruptionBudgetEnabled PodDisruptionBudgetPolicy = "Enabled"
	// PodDisruptionBudgetDisabled: the operator keeps no budget.
	PodDisruptionBudgetDisabled PodDisruptionBudgetPolicy = "Disabled"
)

// WantsDisruptionBudget reports whether the operator keeps a PodDisruptionBudget for the
// Foo: it is not Disabled and asks for 2 or more replicas, so that a drain can always
// evict one pod while the others serve (a budget of one replica would either block every
// drain or allow what having none allows).
func (s *FooSpec) WantsDisruptionBudget() bool {
	return s.PodDisruptionBudget != PodDisruptionBudgetDisabled && s.DesiredReplicas() >= 2
}

// DefaultReplicas is the default of spec.replicas: the +kubebuilder:default marker above
// writes the same into the CRD, and a test (api/v1alpha1) checks that they agree.
const DefaultReplicas int32 = 1

// DesiredReplicas is spec.replicas, or its default when the API server did not default it
// (a Foo built in Go and never stored, or stored before the CRD had a default).
func (s *FooSpec) DesiredReplicas() int32 {
	if s.Replicas == nil {
		return DefaultReplicas
	}
	return *s.Replicas
}

// FooStatus is the observed state of a Foo. The operator rebuilds it from the Deployment on
// every reconcile and writes it only when it changed.
type FooStatus struct {
	// observedGeneration is the metadata.generation of the Foo that the operator last
	// reconciled successfully.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed Generation",xDescriptors={"urn:alm:descriptor:text"}
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// deploymentName is the name of the Deployment this Foo currently owns. It is empty
	// while the Foo owns none, for example while the name is taken by another object.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Deployment",xDescriptors={"urn:alm:descriptor:io.kubernetes:apps:v1:Deployment"}
	DeploymentName string `json:"deploymentName,omitempty"`

	// replicas is the number of pods of the owned Deployment (status.replicas of the
	// Deployment). It is the status replica count of the scale subresource.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Replicas",xDescriptors={"urn:alm:descriptor:text"}
	Replicas int32 `json:"replicas,omitempty"`

	// readyReplicas is the number of ready pods of the owned Deployment.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Ready Replicas",xDescriptors={"urn:alm:descriptor:text"}
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// availableReplicas is the number of available pods of the owned Deployment (ready for
	// at least minReadySeconds), as reported by kubernetes/sample-controller.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Available Replicas",xDescriptors={"urn:alm:descriptor:text"}
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// selector is the label selector of the pods of the owned Deployment, in string form
	// ("app=nginx,controller=example-foo"). A HorizontalPodAutoscaler targeting the Foo uses
	// it through the scale subresource.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Selector",xDescriptors={"urn:alm:descriptor:text"}
	Selector string `json:"selector,omitempty"`

	// conditions describe the Foo's state: Ready (a summary), Available, Progressing and
	// Degraded. Each carries the generation it was computed for.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors={"urn:alm:descriptor:io.kubernetes.conditions"}
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Foo asks for an nginx Deployment of a given name and replica count, owned by the Foo. It
// is kubernetes/sample-controller's Foo with validation, conditions and a scale subresource.
// +genclient
// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:shortName=fo,categories=samplecontroller
// +kubebuilder:printcolumn:name="Deployment",type=string,JSONPath=`.spec.deploymentName`
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Foo",resources={{Deployment,v1,""},{ReplicaSet,v1,""},{Pod,v1,""},{Event,v1,""}}
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="metadata.name must be at most 63 characters: the operator uses the Foo's name as a label value on its Deployment and pods"
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the Foo.
	// +required
	Spec FooSpec `json:"spec"`

	// status is the observed state of the Foo, written by the operator.
	// +optional
	Status FooStatus `json:"status,omitempty"`
}

// FooList is a list of Foos.
// +kubebuilder:object:root=true
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Foo `json:"items"`
}
