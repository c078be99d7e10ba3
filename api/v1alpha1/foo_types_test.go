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
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The CRD's default of spec.replicas, which the API server applies, is DefaultReplicas,
// which DesiredReplicas applies to a Foo the API server did not default.
func TestDefaultReplicasIsTheCRDs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "crd", "bases", "samplecontroller.example.com_foos.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != GroupVersion.Version {
			continue
		}
		def := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["replicas"].Default
		if def == nil {
			t.Fatal("the CRD gives spec.replicas no default")
		}
		var got int32
		if err := json.Unmarshal(def.Raw, &got); err != nil || got != DefaultReplicas {
			t.Fatalf("the CRD's default of spec.replicas is %s, DefaultReplicas %d (%v)", def.Raw, DefaultReplicas, err)
		}
		if (&FooSpec{}).DesiredReplicas() != DefaultReplicas {
			t.Fatal("DesiredReplicas of a spec without replicas is not DefaultReplicas")
		}
		return
	}
	t.Fatalf("the CRD has no version %s", GroupVersion.Version)
}
