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
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// TestNewRESTMapperWithoutAPIServer checks that the kinds the operator caches map without
// an API server (nothing listens on port 1), and that other kinds are asked of it.
func TestNewRESTMapperWithoutAPIServer(t *testing.T) {
	mapper, err := NewRESTMapper(&rest.Config{Host: "https://127.0.0.1:1"}, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	for gk, resource := range map[schema.GroupKind]string{
		{Group: "samplecontroller.example.com", Kind: "Foo"}: "foos",
		{Group: "apps", Kind: "Deployment"}:                  "deployments",
	} {
		mapping, err := mapper.RESTMapping(gk)
		if err != nil {
			t.Fatalf("RESTMapping(%v): %v", gk, err)
		}
		if mapping.Resource.Resource != resource || mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			t.Errorf("RESTMapping(%v) = %v, %v; want %s, namespaced", gk, mapping.Resource, mapping.Scope.Name(), resource)
		}
	}
	if _, err := mapper.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}); err == nil {
		t.Error("RESTMapping(ConfigMap) succeeded without an API server; want it asked of the API server")
	}
}
