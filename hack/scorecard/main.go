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

// Command scorecard runs the scorecard tests of a bundle without a cluster.
//
// `operator-sdk scorecard` runs each test of tests/scorecard/config.yaml in a pod: the
// image's scorecard-test program, with the bundle mounted at /bundle, prints a v1alpha3
// TestStatus. The project's local cluster simulates its nodes (kwok), so those pods never
// run. This command runs the same program — scorecard-test built from operator-sdk v1.42.2
// (make scorecard-test) — the way the pod would: with the test's entrypoint, in a user and
// mount namespace whose root holds the program and the bundle at /bundle (unshare
// --map-root-user --root, no privileges needed). The verdicts are scorecard-test's own.
//
//	scorecard [--output text|json] [--scorecard-test bin/scorecard-test] [bundle-dir]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

func main() {
	output := flag.String("output", "text", "text or json, as operator-sdk scorecard prints them")
	program := flag.String("scorecard-test", "bin/scorecard-test", "the scorecard-test program, statically linked")
	selector := flag.String("selector", "", "the tests to run, by their labels, as operator-sdk scorecard's --selector")
	flag.Parse()
	dir := "bundle"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	selected, err := labels.Parse(*selector)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error: --selector:", err)
		os.Exit(1)
	}
	list, err := run(*program, dir, selected)
	if err == nil {
		err = printList(list, *output)
	}
	if err == nil {
		err = verdict(list)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

// run runs each test of the bundle's scorecard configuration whose labels selected matches,
// and returns their results as operator-sdk scorecard collects them.
func run(program, dir string, selected labels.Selector) (scapiv1alpha3.TestList, error) {
	list := scapiv1alpha3.NewTestList()
	cfg, err := configuration(filepath.Join(dir, "tests", "scorecard", "config.yaml"))
	if err != nil {
		return list, err
	}
	root, err := podRoot(program, dir)
	if err != nil {
		return list, err
	}
	defer os.RemoveAll(root)
	for _, stage := range cfg.Stages {
		for _, spec := range stage.Tests {
			if !selected.Matches(labels.Set(spec.Labels)) {
				continue
			}
			test := scapiv1alpha3.NewTest()
			test.Spec = spec
			test.Status, err = runTest(root, spec)
			if err != nil {
				return list, err
			}
			list.Items = append(list.Items, test)
		}
	}
	return list, nil
}

func configuration(path string) (*scapiv1alpha3.Configuration, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg := &scapiv1alpha3.Configuration{}
	if err := yaml.UnmarshalStrict(raw, cfg); err != nil {
		return nil, fmt.Errorf("scorecard configuration %s: %w", path, err)
	}
	if cfg.Kind != scapiv1alpha3.ConfigurationKind {
		return nil, fmt.Errorf("scorecard configuration %s is a %s, not a %s", path, cfg.Kind, scapiv1alpha3.ConfigurationKind)
	}
	return cfg, nil
}

// podRoot is a root file system as the test pod sees it: the scorecard-test program at
// /scorecard-test and the bundle at /bundle.
func podRoot(program, bundleDir string) (string, error) {
	root, err := os.MkdirTemp("", "scorecard-pod-")
	if err != nil {
		return "", err
	}
	raw, err := os.ReadFile(program)
	if err == nil {
		err = os.WriteFile(filepath.Join(root, "scorecard-test"), raw, 0o755)
	}
	if err == nil {
		err = os.CopyFS(filepath.Join(root, "bundle"), os.DirFS(bundleDir))
	}
	if err != nil {
		os.RemoveAll(root)
		return "", fmt.Errorf("prepare the test pod's file system: %w", err)
	}
	return root, nil
}

// runTest runs one test's entrypoint in root and decodes the TestStatus it prints.
func runTest(root string, spec scapiv1alpha3.TestConfiguration) (scapiv1alpha3.TestStatus, error) {
	var status scapiv1alpha3.TestStatus
	if len(spec.Entrypoint) == 0 || spec.Entrypoint[0] != "scorecard-test" {
		return status, fmt.Errorf("test %v: only the scorecard-test image's tests run without a cluster; run make scorecard", spec.Entrypoint)
	}
	args := append([]string{"--map-root-user", "--root=" + root, "/scorecard-test"}, spec.Entrypoint[1:]...)
	cmd := exec.Command("unshare", args...)
	cmd.Env = []string{}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return status, fmt.Errorf("test %v: %w", spec.Entrypoint, err)
	}
	if err := json.Unmarshal(out, &status); err != nil {
		return status, fmt.Errorf("test %v printed no TestStatus: %w: %s", spec.Entrypoint, err, out)
	}
	return status, nil
}

func printList(list scapiv1alpha3.TestList, output string) error {
	switch output {
	case "json":
		raw, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(raw))
	case "text":
		for _, t := range list.Items {
			fmt.Print(t.MarshalText())
		}
	default:
		return fmt.Errorf("--output %q: want text or json", output)
	}
	return nil
}

// verdict fails when a test did not pass, as operator-sdk scorecard exits non-zero then.
func verdict(list scapiv1alpha3.TestList) error {
	failed := 0
	for _, t := range list.Items {
		for _, r := range t.Status.Results {
			if r.State != scapiv1alpha3.PassState {
				failed++
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d scorecard tests did not pass", failed, len(list.Items))
	}
	return nil
}
