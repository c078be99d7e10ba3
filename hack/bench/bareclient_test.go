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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/example/foo-operator/controllers"
)

// The bare client's Deployment is the operator's for the same Foo: its name, replicas,
// owner and pod template, with the label of the bare client's cache in place of the
// operator's.
func TestBareClientCreatesTheOperatorsDeployment(t *testing.T) {
	foo := newFoo(fooGroup, 7)
	foo.SetUID(types.UID("5e0c1a52-4f1e-4a0e-9d37-3b1c2a9e1f07"))
	if err := unstructured.SetNestedField(foo.Object, int64(3), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	d, err := deploymentFor(foo)
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != fooName(7) || d.Namespace != fooNamespace(7) || ptr.Deref(d.Spec.Replicas, 0) != 3 {
		t.Errorf("Deployment %s/%s with %d replicas, want %s/%s with 3", d.Namespace, d.Name, ptr.Deref(d.Spec.Replicas, 0), fooNamespace(7), fooName(7))
	}
	if len(d.OwnerReferences) != 1 || d.OwnerReferences[0].UID != foo.GetUID() || !ptr.Deref(d.OwnerReferences[0].Controller, false) {
		t.Errorf("owner references %+v, want the Foo as controller", d.OwnerReferences)
	}
	if d.Labels[bareClientLabel] != bareClientUserAgent {
		t.Errorf("label %s=%q, want %q: the bare client's cache would not hold it", bareClientLabel, d.Labels[bareClientLabel], bareClientUserAgent)
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 || pod.Containers[0].Image != controllers.DefaultOperandImage ||
		pod.Containers[0].ReadinessProbe == nil || pod.Containers[0].LivenessProbe == nil ||
		pod.Containers[0].SecurityContext == nil || len(pod.Volumes) != 1 || pod.SecurityContext == nil {
		t.Errorf("pod template %+v, want the operator's: its image, probes, security contexts and volume", pod)
	}
}
