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
	"encoding/json"
	"fmt"
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

const (
	// DefaultOperandImage is the operand image when RELATED_IMAGE_NGINX is not set: an nginx
	// build that runs as a non-root user (uid 101) and listens on port 8080, so its pods
	// pass the Pod Security "restricted" profile. config/manager sets the same value.
	DefaultOperandImage = "docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine"

	// FieldManager is the server-side apply field manager of every write the operator makes.
	FieldManager = "foo-operator"

	// ManagedByLabel marks the Deployments the operator manages; its cache holds only those.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedByValue is the value of ManagedByLabel on the operator's Deployments.
	ManagedByValue = "foo-operator"

	// containerName is the name of the nginx container in the operand pods.
	containerName = "nginx"
	// containerPort is the port nginx-unprivileged images listen on.
	containerPort = 8080
)

// selectorLabels are the labels that select a Foo's pods. They are sample-controller's and,
// being the immutable Deployment selector, never change.
func selectorLabels(foo *samplev1alpha1.Foo) map[string]string {
	return map[string]string{
		"app":        "nginx",
		"controller": foo.Name,
	}
}

// deploymentLabels are the labels of a Foo's Deployment and pods: the selector labels plus
// the recommended app.kubernetes.io labels.
func deploymentLabels(foo *samplev1alpha1.Foo) map[string]string {
	labels := selectorLabels(foo)
	labels["app.kubernetes.io/name"] = "nginx"
	labels["app.kubernetes.io/instance"] = foo.Name
	labels["app.kubernetes.io/component"] = "web-server"
	labels[ManagedByLabel] = ManagedByValue
	return labels
}

// desiredReplicas is spec.replicas, or its documented default when the API server did not
// default it (for example a Foo stored before the CRD had a default).
func desiredReplicas(foo *samplev1alpha1.Foo) int32 {
	if foo.Spec.Replicas == nil {
		return 1
	}
	return *foo.Spec.Replicas
}

// deploymentFor is the Deployment a Foo asks for, as a server-side apply configuration: it
// holds exactly the fields the operator owns, so applying it never touches fields other
// actors set. image is the operand image when the Foo names none.
func deploymentFor(foo *samplev1alpha1.Foo, defaultImage string) *appsv1ac.DeploymentApplyConfiguration {
	image := foo.Spec.Image
	if image == "" {
		image = defaultImage
	}
	labels := deploymentLabels(foo)

	container := corev1ac.Container().
		WithName(containerName).
		WithImage(image).
		WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(containerPort).WithProtocol(corev1.ProtocolTCP)).
		WithReadinessProbe(corev1ac.Probe().WithHTTPGet(corev1ac.HTTPGetAction().WithPath("/").WithPort(intstr.FromString("http")))).
		WithResources(corev1ac.ResourceRequirements().
			WithRequests(corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("10m"),
				corev1.ResourceMemory: resource.MustParse("32Mi"),
			}).
			WithLimits(corev1.ResourceList{
				corev1.ResourceMemory: resource.MustParse("128Mi"),
			})).
		WithSecurityContext(corev1ac.SecurityContext().
			WithAllowPrivilegeEscalation(false).
			WithReadOnlyRootFilesystem(true).
			WithRunAsNonRoot(true).
			WithCapabilities(corev1ac.Capabilities().WithDrop("ALL"))).
		// nginx-unprivileged keeps its pid file and temporary files under /tmp.
		WithVolumeMounts(corev1ac.VolumeMount().WithName("tmp").WithMountPath("/tmp"))

	return appsv1ac.Deployment(foo.Spec.DeploymentName, foo.Namespace).
		WithLabels(labels).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(samplev1alpha1.GroupVersion.String()).
			WithKind("Foo").
			WithName(foo.Name).
			WithUID(foo.UID).
			WithController(true).
			WithBlockOwnerDeletion(true)).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(desiredReplicas(foo)).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorLabels(foo))).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(labels).
				WithSpec(corev1ac.PodSpec().
					WithAutomountServiceAccountToken(false).
					WithSecurityContext(corev1ac.PodSecurityContext().
						WithRunAsNonRoot(true).
						WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))).
					WithContainers(container).
					WithVolumes(corev1ac.Volume().WithName("tmp").WithEmptyDir(corev1ac.EmptyDirVolumeSource())))))
}

// asDeployment converts an apply configuration (desired, or filled from an apply response)
// to the Deployment type.
func asDeployment(ac *appsv1ac.DeploymentApplyConfiguration) (*appsv1.Deployment, error) {
	raw, err := json.Marshal(ac)
	if err != nil {
		return nil, err
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, err
	}
	return d, nil
}

// needsApply reports whether the live Deployment differs from the desired one in any field
// the desired one sets. Fields the desired one leaves out (server defaults, other actors'
// labels and annotations) do not count, so an unchanged Deployment needs no write.
func needsApply(desired *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment) (bool, error) {
	want, err := toJSONMap(desired)
	if err != nil {
		return false, fmt.Errorf("convert desired Deployment: %w", err)
	}
	have, err := toJSONMap(live)
	if err != nil {
		return false, fmt.Errorf("convert live Deployment: %w", err)
	}
	// The cache does not always fill in the type meta of typed objects.
	delete(want, "apiVersion")
	delete(want, "kind")
	return !contains(have, want), nil
}

func toJSONMap(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	return m, json.Unmarshal(raw, &m)
}

// contains reports whether have holds every value of want: maps may have extra keys, lists
// must have the same length with each element containing the wanted one, scalars must be
// equal.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !contains(h[k], v) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !contains(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}
