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
	"maps"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

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

	// FooUIDAnnotation records on a Deployment the UID of the Foo it was made for. It
	// outlives the ownerReference when the Foo is deleted with --cascade=orphan, so the Foo
	// created again under that name can tell the orphan (another UID) from a Deployment a
	// user detached from it (its own UID).
	FooUIDAnnotation = "samplecontroller.example.com/foo-uid"

	// containerName is the name of the nginx container in the operand pods.
	containerName = "nginx"
	// containerPort is the port nginx-unprivileged images listen on.
	containerPort = 8080
	// tmpVolume is the writable volume nginx-unprivileged keeps its temporary files in.
	tmpVolume = "tmp"
)

// SelectorLabels are the labels that select the pods of the Foo named fooName (its
// Deployment's selector, published in status.selector). They are sample-controller's and,
// being the immutable Deployment selector, never change.
func SelectorLabels(fooName string) map[string]string {
	return map[string]string{
		"app":        "nginx",
		"controller": fooName,
	}
}

// madeFor reports whether d was created for foo: its selector, which the API server never
// lets change, is the one DeploymentFor gives foo's Deployments.
func madeFor(d *appsv1.Deployment, foo *samplev1alpha1.Foo) bool {
	return d.Spec.Selector != nil && len(d.Spec.Selector.MatchExpressions) == 0 &&
		maps.Equal(d.Spec.Selector.MatchLabels, SelectorLabels(foo.Name))
}

// deploymentLabels are the labels of a Foo's Deployment and pods: the selector labels plus
// the recommended app.kubernetes.io labels.
func deploymentLabels(foo *samplev1alpha1.Foo) map[string]string {
	labels := SelectorLabels(foo.Name)
	labels["app.kubernetes.io/name"] = "nginx"
	labels["app.kubernetes.io/instance"] = foo.Name
	labels["app.kubernetes.io/component"] = "web-server"
	labels[ManagedByLabel] = ManagedByValue
	return labels
}

// DeploymentFor is the Deployment a Foo asks for, as a server-side apply configuration: it
// holds exactly the fields the operator owns, so applying it never touches fields other
// actors set. defaultImage is the operand image when the Foo names none. make bench's bare
// client creates it too, so that its cluster runs the same pods as the operator's. It
// carries DesiredHashLabel (withDesiredHash).
func DeploymentFor(foo *samplev1alpha1.Foo, defaultImage string) *appsv1ac.DeploymentApplyConfiguration {
	return withDesiredHash(unhashedDeploymentFor(foo, defaultImage))
}

// desiredHashes remembers, for each Foo, the DesiredHashLabel of its desired Deployment
// with what it was computed from: the Foo's UID and generation, and the default image.
// The desired Deployment is a function of them alone (unhashedDeploymentFor), so a pass
// that finds them unchanged (most passes: the steps of a rollout change the Deployment, not
// the Foo's spec) stamps the remembered hash instead of marshalling the Deployment again,
// which was 4 % of the operator's CPU profile while 2,000 Foos converged
// (docs/benchmark-history.md). forget drops a Foo's.
type desiredHashes struct{ perFoo[desiredHash] }

// desiredHash is the hash of the desired Deployment of the Foo of uid at generation, with
// image as the default image.
type desiredHash struct {
	uid        types.UID
	generation int64
	image      string
	hash       string
}

// deploymentFor is DeploymentFor(foo, image), its hash from memory when foo's UID and
// generation and image are those it was last computed for. A Foo without a UID (never
// stored) is not remembered.
func (h *desiredHashes) deploymentFor(foo *samplev1alpha1.Foo, image string) *appsv1ac.DeploymentApplyConfiguration {
	desired := unhashedDeploymentFor(foo, image)
	key := client.ObjectKeyFromObject(foo)
	want := desiredHash{uid: foo.UID, generation: foo.Generation, image: image}
	known, ok := h.load(key)
	if ok && known.uid == want.uid && known.generation == want.generation && known.image == want.image {
		return desired.WithLabels(map[string]string{DesiredHashLabel: known.hash})
	}
	want.hash = hashOf(desired)
	if foo.UID != "" {
		h.store(key, want)
	}
	return desired.WithLabels(map[string]string{DesiredHashLabel: want.hash})
}

// unhashedDeploymentFor is DeploymentFor without DesiredHashLabel. It reads only foo's
// name, namespace, UID and spec: the same for a UID and generation.
func unhashedDeploymentFor(foo *samplev1alpha1.Foo, defaultImage string) *appsv1ac.DeploymentApplyConfiguration {
	image := foo.Spec.Image
	if image == "" {
		image = defaultImage
	}
	labels := deploymentLabels(foo)

	container := corev1ac.Container().
		WithName(containerName).
		WithImage(image).
		WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(containerPort).WithProtocol(corev1.ProtocolTCP)).
		WithReadinessProbe(corev1ac.Probe().WithHTTPGet(httpRoot())).
		// An nginx that stops answering leaves its Service after 3 failed probes, 10 s apart,
		// and is restarted after 6: readiness alone would keep it out of service for ever.
		WithLivenessProbe(corev1ac.Probe().WithHTTPGet(httpRoot()).WithFailureThreshold(6)).
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
		WithVolumeMounts(corev1ac.VolumeMount().WithName(tmpVolume).WithMountPath("/tmp"))

	return appsv1ac.Deployment(foo.Spec.DeploymentName, foo.Namespace).
		WithLabels(labels).
		WithAnnotations(map[string]string{FooUIDAnnotation: string(foo.UID)}).
		WithOwnerReferences(controlledBy(foo)).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(foo.Spec.DesiredReplicas()).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(foo.Name))).
			WithTemplate(corev1ac.PodTemplateSpec().
				WithLabels(labels).
				WithSpec(corev1ac.PodSpec().
					WithAutomountServiceAccountToken(false).
					WithSecurityContext(corev1ac.PodSecurityContext().
						WithRunAsNonRoot(true).
						WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))).
					WithContainers(container).
					WithVolumes(corev1ac.Volume().WithName(tmpVolume).WithEmptyDir(corev1ac.EmptyDirVolumeSource())))))
}

// controlledBy is the ownerReference that makes foo the controller of what the operator
// makes for it, which the garbage collector deletes with it.
func controlledBy(foo *samplev1alpha1.Foo) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(samplev1alpha1.GroupVersion.String()).
		WithKind("Foo").
		WithName(foo.Name).
		WithUID(foo.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// httpRoot is the handler of the operand's probes: a GET of / on nginx's port.
func httpRoot() *corev1ac.HTTPGetActionApplyConfiguration {
	return corev1ac.HTTPGetAction().WithPath("/").WithPort(intstr.FromString("http"))
}

// lastApplied is when the operator last changed d (the latest time of its managedFields
// entries, which the API server moves only when a write changes something); zero when it
// never did.
func lastApplied(d *appsv1.Deployment) time.Time {
	var last time.Time
	for _, e := range d.ManagedFields {
		if isOwn(e) && e.Time != nil && e.Time.After(last) {
			last = e.Time.Time
		}
	}
	return last
}

// replicasOf is a Deployment's spec.replicas, 1 when unset, as the apps/v1 API defaults it.
func replicasOf(d *appsv1.Deployment) int32 { return ptr.Deref(d.Spec.Replicas, 1) }
