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

package main

import (
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// fooOption changes a Foo made by newFoo.
type fooOption func(*samplev1alpha1.Foo)

func newFoo(opts ...fooOption) *samplev1alpha1.Foo {
	foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: "ns", Generation: 2}}
	for _, o := range opts {
		o(foo)
	}
	return foo
}

func withReady(status metav1.ConditionStatus, generation int64) fooOption {
	return func(foo *samplev1alpha1.Foo) {
		foo.Status.Conditions = append(foo.Status.Conditions, metav1.Condition{
			Type: samplev1alpha1.ReadyCondition, Status: status, ObservedGeneration: generation,
			Reason: "R", Message: "m",
		})
	}
}

func withAvailable(n int32) fooOption {
	return func(foo *samplev1alpha1.Foo) { foo.Status.AvailableReplicas = n }
}

func TestReadyWith(t *testing.T) {
	for _, c := range []struct {
		foo  *samplev1alpha1.Foo
		want string // a part of the error; none when empty
	}{
		{newFoo(withReady(metav1.ConditionTrue, 2), withAvailable(2)), ""},
		{newFoo(withAvailable(2)), "has no Ready condition"},
		{newFoo(withReady(metav1.ConditionFalse, 2), withAvailable(2)), "at generation 2, is Ready=False for generation 2 (R: m)"},
		{newFoo(withReady(metav1.ConditionTrue, 1), withAvailable(2)), "is Ready=True for generation 1"},
		{newFoo(withReady(metav1.ConditionTrue, 2), withAvailable(1)), "is Ready with 1 available replicas, want 2"},
	} {
		g := NewWithT(t)
		err := readyWith(c.foo, 2)
		if c.want == "" {
			g.Expect(err).NotTo(HaveOccurred())
			continue
		}
		g.Expect(err).To(MatchError(ContainSubstring(c.want)))
		g.Expect(err).To(MatchError(ContainSubstring("ns/f")))
	}
}

func newPod(name string, ready corev1.ConditionStatus, ports ...corev1.ContainerPort) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Ports: ports}}},
		Status: corev1.PodStatus{
			PodIP:      "10.0.0.7",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}},
		},
	}
}

func TestReadyPods(t *testing.T) {
	g := NewWithT(t)
	deleting := newPod("deleting", corev1.ConditionTrue)
	deleting.DeletionTimestamp = &metav1.Time{}
	noCondition := newPod("no-condition", corev1.ConditionTrue)
	noCondition.Status.Conditions = nil
	pods := []corev1.Pod{newPod("ready", corev1.ConditionTrue), newPod("unready", corev1.ConditionFalse), deleting, noCondition}

	ready := readyPods(pods)
	g.Expect(ready).To(HaveLen(1))
	g.Expect(ready[0].Name).To(Equal("ready"))
	g.Expect(ready[0]).To(BeIdenticalTo(&pods[0]))
}

func TestPodURL(t *testing.T) {
	metrics := corev1.ContainerPort{Name: "metrics", ContainerPort: 9113, Protocol: corev1.ProtocolTCP}
	httpPort := corev1.ContainerPort{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}
	udp := corev1.ContainerPort{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}
	for _, c := range []struct {
		pod  corev1.Pod
		want string // the URL, or a part of the error
	}{
		{newPod("p", corev1.ConditionTrue, metrics, httpPort), "http://10.0.0.7:8080/"},
		{newPod("p", corev1.ConditionTrue, udp, metrics), "http://10.0.0.7:9113/"},
		{newPod("p", corev1.ConditionTrue, corev1.ContainerPort{ContainerPort: 80}), "http://10.0.0.7:80/"},
		{newPod("p", corev1.ConditionTrue, udp), "pod p declares no TCP container port"},
		{newPod("p", corev1.ConditionTrue), "pod p declares no TCP container port"},
	} {
		g := NewWithT(t)
		got, err := podURL(&c.pod)
		if err != nil {
			g.Expect(err.Error()).To(Equal(c.want))
			continue
		}
		g.Expect(got).To(Equal(c.want))
	}

	g := NewWithT(t)
	v6 := newPod("p", corev1.ConditionTrue, httpPort)
	v6.Status.PodIP = "fd00::7"
	g.Expect(podURL(&v6)).To(Equal("http://[fd00::7]:8080/"))
	v6.Status.PodIP = ""
	_, err := podURL(&v6)
	g.Expect(err).To(MatchError("pod p has no IP"))
}

func TestOwners(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{Kind: "Foo", Name: "f"}}}}
	NewWithT(t).Expect(owners(d)).To(Equal([]string{"Foo/f"}))
}
