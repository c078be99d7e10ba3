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
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/applyconfigurations"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// TestTrimmedSchemaTypesAsFull checks that desired Deployments have the same field sets
// with the trimmed schema as with client-go's whole one.
func TestTrimmedSchemaTypesAsFull(t *testing.T) {
	full := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)
	mods := []func(*appsv1ac.DeploymentApplyConfiguration){
		func(*appsv1ac.DeploymentApplyConfiguration) {}, withForeignVolume, withSidecar, withForeignMetadata, withForeignOwner,
	}
	for _, foo := range []*samplev1alpha1.Foo{newFoo("a"), newFoo("b", withReplicas(3), withImage("x:1")), newFoo("c", withDeploymentName("d"))} {
		for _, m := range mods {
			desired := DeploymentFor(foo, "img")
			m(desired)
			got, err := fieldSet(desired)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(desired)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil {
				t.Fatal(err)
			}
			tv, err := full.ObjectToTyped(u)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tv.ToFieldSet()
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equals(want) {
				t.Errorf("Foo %s: field set %s with the trimmed schema, %s with the whole one", foo.Name, got, want)
			}
		}
	}
}
