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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	psaapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

func TestDeploymentFor(t *testing.T) {
	tests := []struct {
		name         string
		foo          *samplev1alpha1.Foo
		wantName     string
		wantImage    string
		wantReplicas int32
	}{
		{
			name:         "sample-controller's example",
			foo:          newFoo("example-foo", withDeploymentName("example-foo"), withReplicas(1)),
			wantName:     "example-foo",
			wantImage:    testImage,
			wantReplicas: 1,
		},
		{
			name:         "replicas and image from the spec",
			foo:          newFoo("a", withReplicas(3), withImage("nginx@sha256:0123456789abcdef0123456789abcdef")),
			wantName:     "a-web",
			wantImage:    "nginx@sha256:0123456789abcdef0123456789abcdef",
			wantReplicas: 3,
		},
		{
			name:         "scaled to zero",
			foo:          newFoo("a", withReplicas(0)),
			wantName:     "a-web",
			wantImage:    testImage,
			wantReplicas: 0,
		},
		{
			name:         "replicas not defaulted by the API server",
			foo:          newFoo("a", withoutReplicas()),
			wantName:     "a-web",
			wantImage:    testImage,
			wantReplicas: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			tt.foo.UID = "uid-1"
			d, err := asDeployment(deploymentFor(tt.foo, testImage))
			g.Expect(err).NotTo(HaveOccurred())

			g.Expect(d.Name).To(Equal(tt.wantName))
			g.Expect(d.Namespace).To(Equal(tt.foo.Namespace))
			g.Expect(d.Spec.Replicas).To(Equal(ptr.To(tt.wantReplicas)))

			// sample-controller's selector, plus the recommended labels on Deployment and pods.
			selector := map[string]string{"app": "nginx", "controller": tt.foo.Name}
			g.Expect(d.Spec.Selector.MatchLabels).To(Equal(selector))
			for _, labels := range []map[string]string{d.Labels, d.Spec.Template.Labels} {
				g.Expect(labels).To(HaveKeyWithValue("app", "nginx"))
				g.Expect(labels).To(HaveKeyWithValue("controller", tt.foo.Name))
				g.Expect(labels).To(HaveKeyWithValue("app.kubernetes.io/name", "nginx"))
				g.Expect(labels).To(HaveKeyWithValue("app.kubernetes.io/instance", tt.foo.Name))
				g.Expect(labels).To(HaveKeyWithValue("app.kubernetes.io/managed-by", "foo-operator"))
			}

			g.Expect(d.OwnerReferences).To(ConsistOf(metav1.OwnerReference{
				APIVersion:         "samplecontroller.example.com/v1alpha1",
				Kind:               "Foo",
				Name:               tt.foo.Name,
				UID:                "uid-1",
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}))

			pod := d.Spec.Template.Spec
			g.Expect(pod.Containers).To(HaveLen(1))
			c := pod.Containers[0]
			g.Expect(c.Image).To(Equal(tt.wantImage))
			g.Expect(c.Ports).To(ConsistOf(corev1.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}))
			expectRestricted(g, d.Spec.Template)
		})
	}
}

// expectRestricted checks a pod against the Pod Security "restricted" profile with the
// API server's own evaluator.
func expectRestricted(g Gomega, pod corev1.PodTemplateSpec) {
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	g.Expect(err).NotTo(HaveOccurred())
	restricted := psaapi.LevelVersion{Level: psaapi.LevelRestricted, Version: psaapi.LatestVersion()}
	result := policy.AggregateCheckResults(evaluator.EvaluatePod(restricted, &pod.ObjectMeta, &pod.Spec))
	g.Expect(result.Allowed).To(BeTrue(), "violates restricted: %s: %s", result.ForbiddenReason(), result.ForbiddenDetail())
}

// defaulted is d as the API server stores it: with defaults, a status and what other actors
// added.
func defaulted(d *appsv1.Deployment) *appsv1.Deployment {
	d = d.DeepCopy()
	d.ResourceVersion = "42"
	d.Labels["team"] = "web"
	d.Annotations = map[string]string{"deployment.kubernetes.io/revision": "1"}
	d.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	pod := &d.Spec.Template.Spec
	pod.RestartPolicy = corev1.RestartPolicyAlways
	pod.DNSPolicy = corev1.DNSClusterFirst
	pod.Containers[0].TerminationMessagePath = "/dev/termination-log"
	pod.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
	pod.Containers[0].ReadinessProbe.TimeoutSeconds = 1
	d.Status.Replicas = 1
	return d
}

func TestNeedsApply(t *testing.T) {
	foo := newFoo("a", withIdentity("uid-1", 1))
	desired := func() *appsv1.Deployment { return newDeployment(foo) }
	tests := []struct {
		name   string
		mutate func(*appsv1.Deployment)
		want   bool
	}{
		{name: "as built", mutate: func(*appsv1.Deployment) {}, want: false},
		{name: "with server defaults, status and foreign labels", mutate: func(d *appsv1.Deployment) { *d = *defaulted(d) }, want: false},
		{name: "replicas changed", mutate: func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) }, want: true},
		{name: "image changed", mutate: func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "busybox" }, want: true},
		{name: "own label removed", mutate: func(d *appsv1.Deployment) { delete(d.Labels, "app.kubernetes.io/name") }, want: true},
		{name: "own label changed", mutate: func(d *appsv1.Deployment) { d.Labels["app"] = "apache" }, want: true},
		{name: "owner reference removed", mutate: func(d *appsv1.Deployment) { d.OwnerReferences = nil }, want: true},
		{name: "security context loosened", mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
		}, want: true},
		{name: "container added", mutate: func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar"})
		}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			live := desired()
			tt.mutate(live)
			got, err := needsApply(deploymentFor(foo, testImage), live)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

func TestContains(t *testing.T) {
	tests := []struct {
		name       string
		have, want any
		expected   bool
	}{
		{"equal scalars", "a", "a", true},
		{"different scalars", "a", "b", false},
		{"missing key", map[string]any{}, map[string]any{"a": "x"}, false},
		{"extra key", map[string]any{"a": "x", "b": "y"}, map[string]any{"a": "x"}, true},
		{"nested", map[string]any{"a": map[string]any{"b": 1.0, "c": 2.0}}, map[string]any{"a": map[string]any{"b": 1.0}}, true},
		{"list elements contain", []any{map[string]any{"a": 1.0, "b": 2.0}}, []any{map[string]any{"a": 1.0}}, true},
		{"list of other length", []any{"a", "b"}, []any{"a"}, false},
		{"list order matters", []any{"b", "a"}, []any{"a", "b"}, false},
		{"type mismatch", "a", map[string]any{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(contains(tt.have, tt.want)).To(Equal(tt.expected))
		})
	}
}
