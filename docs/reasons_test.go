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

package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReasonsAreDocumented checks docs/api.md against the constants, the one source of the
// condition and event reasons: the reasons column of its Conditions table names exactly the
// condition reasons of api/v1alpha1, and its Events table exactly the event reasons of
// controllers/ and the Degraded reasons its Warning events carry.
func TestReasonsAreDocumented(t *testing.T) {
	conditionReasons := stringConsts(t, "../api/v1alpha1/foo_conditions.go", func(name string) bool { return strings.HasSuffix(name, "Reason") })
	eventReasons := stringConsts(t, "../controllers/foo_controller.go", func(name string) bool { return strings.HasPrefix(name, "Reason") })
	raw, err := os.ReadFile("api.md")
	if err != nil {
		t.Fatal(err)
	}
	conditions := table(t, string(raw), "| type | True when | reasons |")
	events := table(t, string(raw), "| type | reason | when |")

	var reasons, degraded []string
	for _, row := range conditions {
		reasons = append(reasons, row[2])
		if row[0] == "`Degraded`" {
			degraded = codeWords(row[2])
		}
	}
	if got := codeWords(reasons...); !slices.Equal(got, conditionReasons) {
		t.Errorf("the Conditions table of docs/api.md names the reasons\n  %v\nthe constants of api/v1alpha1 are\n  %v", got, conditionReasons)
	}
	// Warning events carry the Degraded reason, DeploymentConflict's being sample-controller's
	// ErrResourceExists.
	warnings := slices.DeleteFunc(slices.Clone(degraded), func(r string) bool { return r == "DeploymentConflict" || r == "AsExpected" })
	want := slices.Sorted(slices.Values(append(warnings, eventReasons...)))
	want = slices.Compact(want)
	var named []string
	for _, row := range events {
		named = append(named, row[1])
	}
	if got := codeWords(named...); !slices.Equal(got, want) {
		t.Errorf("the Events table of docs/api.md names the reasons\n  %v\nthe event constants of controllers/ and the Degraded reasons are\n  %v", got, want)
	}
}

// stringConsts are the values of the string constants of the Go file path whose names keep
// says, sorted.
func stringConsts(t *testing.T, path string, keep func(name string) bool) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range spec.Names {
			if !keep(name.Name) || i >= len(spec.Values) {
				continue
			}
			if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				values[v] = true
			}
		}
		return true
	})
	if len(values) == 0 {
		t.Fatalf("no reason constants in %s", path)
	}
	return slices.Sorted(maps.Keys(values))
}

// table is the rows of the Markdown table whose header is header, each with at least
// three cells.
func table(t *testing.T, doc, header string) [][]string {
	t.Helper()
	start := strings.Index(doc, header+"\n")
	if start < 0 {
		t.Fatalf("docs/api.md has no table %q", header)
	}
	var rows [][]string
	for _, line := range strings.Split(doc[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) < 3 {
			t.Fatalf("docs/api.md: row %q has fewer than 3 cells", line)
		}
		rows = append(rows, cells)
	}
	return rows
}

// reasonWord is a reason in a code span: CamelCase, as the API's reasons are.
var reasonWord = regexp.MustCompile("`([A-Z][A-Za-z]+)`")

// codeWords are the reasons in code spans of texts, sorted and each once.
func codeWords(texts ...string) []string {
	var words []string
	for _, text := range texts {
		for _, m := range reasonWord.FindAllStringSubmatch(text, -1) {
			words = append(words, m[1])
		}
	}
	slices.Sort(words)
	return slices.Compact(words)
}
