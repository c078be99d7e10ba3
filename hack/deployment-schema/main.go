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

// Command deployment-schema writes the part of client-go's applyconfigurations schema that
// io.k8s.api.apps.v1.Deployment reaches, for the client-go version in go.mod, to the file
// it is given: controllers/deployment_schema.yaml, through the go:generate line of
// controllers/foo_drift.go, which make generate runs. The schema is the string literal of
// client-go's applyconfigurations/internal, which no program can import.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: deployment-schema OUTPUT")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "deployment-schema:", err)
		os.Exit(1)
	}
}

func run(output string) error {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		return fmt.Errorf("locate client-go: %w", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "applyconfigurations", "internal", "internal.go"))
	if err != nil {
		return err
	}
	full := regexp.MustCompile("(?s)typed\\.YAMLObject\\(`(.*?)`\\)").FindSubmatch(src)
	if full == nil {
		return fmt.Errorf("no schema in client-go's applyconfigurations/internal")
	}
	schema := closure(string(full[1]), "io.k8s.api.apps.v1.Deployment", "__untyped_atomic_", "__untyped_deduced_")
	return os.WriteFile(output, []byte(schema), 0o644)
}

// closure is the schema of the named types and those they refer to, each as in full, in
// full's order.
func closure(full string, roots ...string) string {
	chunks := regexp.MustCompile(`\n- name: `).Split(full, -1)
	byName := map[string]string{}
	order := make([]string, 0, len(chunks)-1)
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
