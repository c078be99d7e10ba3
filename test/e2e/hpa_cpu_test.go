//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework/suite"
)

// expectHPAScalesOnLoad applies config/samples' HorizontalPodAutoscaler to foo (scaled to
// its minReplicas first), loads the Foo's pods with HTTP requests from a pod in the cluster
// through a Service, and checks that the HPA controller, reading the CPU the kubelet measured
// through metrics-server, scales the Foo up, and back to minReplicas once the load stops.
func expectHPAScalesOnLoad(foo *samplev1alpha1.Foo) {
	GinkgoHelper()
	hpa := suite.SampleHPA(foo.Namespace, foo.Name)
	minReplicas := ptr.Deref(hpa.Spec.MinReplicas, 1)
	Expect(k8s.Create(context.Background(), hpa)).To(Succeed())
	expectServing(foo, int(minReplicas), "nginx-unprivileged")

	By("loading the Foo's pods through a Service from a pod in the cluster")
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: foo.Name, Namespace: foo.Namespace},
		Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 8080, TargetPort: intstr.FromInt32(8080)}}},
	}
	Expect(k8s.Create(context.Background(), svc)).To(Succeed())
	load := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "load", Namespace: foo.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "load"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "load"}},
				Spec: corev1.PodSpec{
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name: "load", Image: "docker.io/library/busybox:1.35.0",
						Command: []string{"sh", "-c", fmt.Sprintf("while true; do wget -q -O /dev/null http://%s:8080/; done", svc.Name)},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	raised := time.Now()
	Expect(k8s.Create(context.Background(), load)).To(Succeed())
	var peak int32
	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		peak = got.Spec.DesiredReplicas()
		g.Expect(peak).To(BeNumerically(">", minReplicas), "the HPA scaled the Foo up")
		g.Expect(got.Status.AvailableReplicas).To(Equal(peak))
	}).WithTimeout(5 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
	up := time.Since(raised)

	By("stopping the load")
	lowered := time.Now()
	Expect(k8s.Delete(context.Background(), load)).To(Succeed())
	Eventually(func(g Gomega) {
		got := &samplev1alpha1.Foo{}
		g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(foo), got)).To(Succeed())
		g.Expect(got.Spec.DesiredReplicas()).To(Equal(minReplicas))
		g.Expect(readyPodIPs(g, foo)).To(HaveLen(int(minReplicas)))
	}).WithTimeout(5 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
	AddReportEntry("HorizontalPodAutoscaler on real CPU", fmt.Sprintf("scaled up %d → %d in %v under load, down to %d in %v after it stopped",
		minReplicas, peak, up.Round(time.Second), minReplicas, time.Since(lowered).Round(time.Second)))
}
