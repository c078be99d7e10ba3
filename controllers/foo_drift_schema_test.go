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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/applyconfigurations"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// TestDeploymentSchemaIsCurrent checks that deployment_schema.yaml is the part of the
// client-go version in go.mod's applyconfigurations schema that a Deployment reaches;
// UPDATE_DEPLOYMENT_SCHEMA=1 rewrites it.
func TestDeploymentSchemaIsCurrent(t *testing.T) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		t.Fatalf("locate client-go: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "applyconfigurations", "internal", "internal.go"))
	if err != nil {
		t.Fatal(err)
	}
	full := regexp.MustCompile("(?s)typed\\.YAMLObject\\(`(.*?)`\\)").FindSubmatch(src)
	if full == nil {
		t.Fatal("no schema in client-go's applyconfigurations/internal")
	}
	want := deploymentClosure(string(full[1]), "io.k8s.api.apps.v1.Deployment", "__untyped_atomic_", "__untyped_deduced_")
	if os.Getenv("UPDATE_DEPLOYMENT_SCHEMA") != "" {
		if err := os.WriteFile("deployment_schema.yaml", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if deploymentSchema != want {
		t.Errorf("deployment_schema.yaml is not the Deployment's part of client-go's schema: run UPDATE_DEPLOYMENT_SCHEMA=1 go test ./controllers -run TestDeploymentSchemaIsCurrent")
	}
}

// deploymentClosure is the schema of the named types and those they refer to, each as in
// full, in full's order.
func deploymentClosure(full string, roots ...string) string {
	chunks := regexp.MustCompile(`\n- name: `).Split(full, -1)
	byName := map[string]string{}
	var order []string
	for _, c := range chunks[1:] {
		name, _, _ := strings.Cut(c, "\n")
		byName[name] = c
		order = append(order, name)
	}
	ref := regexp.MustCompile(`namedType: (\S+)`)
	seen := map[string]bool{}
	for todo := roots; len(todo) > 0; {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, m := range ref.FindAllStringSubmatch(byName[name], -1) {
			todo = append(todo, m[1])
		}
	}
	var b strings.Builder
	b.WriteString(chunks[0])
	for _, name := range order {
		if seen[name] {
			b.WriteString("\n- name: " + byName[name])
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// TestTrimmedSchemaTypesAsFull checks that desired Deployments have the same field sets
// with the trimmed schema as with client-go's whole one.
func TestTrimmedSchemaTypesAsFull(t *testing.T) {
	full := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)
	mods := []func(*appsv1ac.DeploymentApplyConfiguration){
		func(*appsv1ac.DeploymentApplyConfiguration) {}, withForeignVolume, withSidecar, withForeignMetadata, withForeignOwner,
	}
	for _, foo := range []*samplev1alpha1.Foo{newFoo("a"), newFoo("b", withReplicas(3), withImage("x:1")), newFoo("c", withDeploymentName("d"))} {
		for _, m := range mods {
			desired := deploymentFor(foo, "img")
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
