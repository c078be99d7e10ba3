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
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/pkg/generated/clientset/versioned"
	"github.com/example/foo-operator/pkg/generated/clientset/versioned/fake"
)

// TestWatchWithFakeClientset runs foo-watch on the generated fake clientset.
func TestWatchWithFakeClientset(t *testing.T) {
	// NewClientset needs an OpenAPI schema of Foo for its apply support, which the
	// generated client does not carry (as kubernetes/sample-controller's does not);
	// NewSimpleClientset serves create, get, list, watch and update.
	clientset := fake.NewSimpleClientset(newFoo("default", "web", metav1.ConditionFalse)) //nolint:staticcheck // see above
	expectWatchFollows(t, clientset, "default")
}

// TestWatchAgainstAPIServer runs foo-watch and the generated clientset against a real
// kube-apiserver and etcd (envtest, KUBEBUILDER_ASSETS) serving the Foo CRD.
func TestWatchAgainstAPIServer(t *testing.T) {
	g := NewWithT(t)
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	config, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { g.Expect(env.Stop()).To(Succeed()) })
	clientset, err := versioned.NewForConfig(config)
	g.Expect(err).NotTo(HaveOccurred())

	created, err := clientset.SamplecontrollerV1alpha1().Foos("default").Create(context.Background(), newFoo("default", "web", ""), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	created.Status = newFoo("default", "web", metav1.ConditionFalse).Status
	_, err = clientset.SamplecontrollerV1alpha1().Foos("default").UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	// The informer's first list is served from kube-apiserver's watch cache (resourceVersion
	// "0"), which follows etcd a moment behind, and before Kubernetes 1.31
	// (ConsistentListFromCache) is not made to catch up first: on 1.29 it once listed the Foo
	// without its status.
	g.Eventually(func(g Gomega) {
		list, err := clientset.SamplecontrollerV1alpha1().Foos("default").List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(list.Items).To(ConsistOf(HaveField("Status.Conditions", Not(BeEmpty()))))
	}).WithTimeout(10 * time.Second).Should(Succeed())
	expectWatchFollows(t, clientset, "default")

	// The scale subresource an HorizontalPodAutoscaler uses, through the generated client.
	foos := clientset.SamplecontrollerV1alpha1().Foos("default")
	scale, err := foos.GetScale(context.Background(), "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(scale.Spec.Replicas).To(BeEquivalentTo(1))
	_, err = foos.UpdateScale(context.Background(), "web", &autoscalingv1.Scale{ObjectMeta: scale.ObjectMeta, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	foo, err := foos.Get(context.Background(), "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(*foo.Spec.Replicas).To(BeEquivalentTo(3))
}

// expectWatchFollows runs watch on a clientset holding the Foo web (Ready False) in ns and
// checks what it prints as the Foo becomes Ready and another Foo appears.
func expectWatchFollows(t *testing.T, clientset versioned.Interface, ns string) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &output{}
	done := make(chan error)
	go func() { done <- watch(ctx, clientset, ns, out) }()
	t.Cleanup(func() {
		cancel()
		g.Expect(<-done).To(Succeed())
	})
	g.Eventually(out.String).WithTimeout(10 * time.Second).Should(Equal(
		ns + "/web Ready=False DeploymentUnavailable: 0 of 1 replicas available\n" +
			"synced: 1 Foos, 0 Ready\n"))

	foos := clientset.SamplecontrollerV1alpha1().Foos(ns)
	web, err := foos.Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	web.Status = newFoo(ns, "web", metav1.ConditionTrue).Status
	_, err = foos.UpdateStatus(ctx, web, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = foos.Create(ctx, newFoo(ns, "api", ""), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(out.String).WithTimeout(10 * time.Second).Should(HaveSuffix(
		ns + "/web Ready=True Ready: 1 of 1 replicas available\n" +
			ns + "/api Ready=Unknown (no condition yet)\n"))
}

// newFoo is a Foo with a Ready condition of the given status (none when empty).
func newFoo(ns, name string, readyStatus metav1.ConditionStatus) *samplev1alpha1.Foo {
	foo := &samplev1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       samplev1alpha1.FooSpec{DeploymentName: name, Replicas: ptr.To[int32](1)},
	}
	switch readyStatus {
	case metav1.ConditionTrue:
		foo.Status.Conditions = []metav1.Condition{{Type: samplev1alpha1.ReadyCondition, Status: readyStatus,
			Reason: "Ready", Message: "1 of 1 replicas available", LastTransitionTime: metav1.Now()}}
	case metav1.ConditionFalse:
		foo.Status.Conditions = []metav1.Condition{{Type: samplev1alpha1.ReadyCondition, Status: readyStatus,
			Reason: "DeploymentUnavailable", Message: "0 of 1 replicas available", LastTransitionTime: metav1.Now()}}
	}
	return foo
}

// output is what watch printed, safe to read while it prints.
type output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
