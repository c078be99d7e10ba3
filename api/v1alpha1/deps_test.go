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
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNothingOfTheOperator checks that a program importing the Foo API and its
// generated client (examples/foo-watch is one) builds none of controller-runtime or of the
// operator's own packages.
func TestImportsNothingOfTheOperator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps",
		"github.com/example/foo-operator/api/...",
		"github.com/example/foo-operator/pkg/generated/...",
		"github.com/example/foo-operator/examples/foo-watch").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages; want the API's dependencies", len(deps))
	}
	for _, pkg := range deps {
		if strings.HasPrefix(pkg, "sigs.k8s.io/controller-runtime") || pkg == "github.com/example/foo-operator" ||
			strings.HasPrefix(pkg, "github.com/example/foo-operator/controllers") {
			t.Errorf("the API and its client depend on %s", pkg)
		}
	}
}
