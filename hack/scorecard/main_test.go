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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// program is the scorecard's test program, which make scorecard-offline builds and names.
var program = os.Getenv("SCORECARD_TEST")

func TestMain(m *testing.M) {
	if program == "" {
		fmt.Fprintln(os.Stderr, "SCORECARD_TEST names no scorecard-test program: run these tests with make scorecard-offline")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

const (
	committed = "../../bundle"
	csvFile   = "manifests/foo-operator.clusterserviceversion.yaml"
)

// builtIn selects the scorecard-test image's suites: the tests that run without a cluster.
var builtIn, _ = labels.Parse("suite in (basic,olm)")

// states are the results of a run by test name.
func states(g Gomega, dir string) map[string]scapiv1alpha3.State {
	list, err := run(program, dir, builtIn)
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]scapiv1alpha3.State{}
	for _, t := range list.Items {
		g.Expect(t.Status.Results).To(HaveLen(1))
		out[t.Status.Results[0].Name] = t.Status.Results[0].State
	}
	return out
}

func TestCommittedBundlePassesEveryTest(t *testing.T) {
	g := NewWithT(t)
	got := states(g, committed)
	g.Expect(got).To(HaveLen(6))
	for name, state := range got {
		g.Expect(state).To(Equal(scapiv1alpha3.PassState), name)
	}
	list, err := run(program, committed, builtIn)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(verdict(list)).To(Succeed())
}

func TestTheCustomSuiteNeedsACluster(t *testing.T) {
	g := NewWithT(t)
	_, err := run(program, committed, labels.Everything())
	g.Expect(err).To(MatchError(ContainSubstring("only the scorecard-test image's tests run without a cluster")))
}

// TestEachTestFailsItsBrokenBundle breaks the committed bundle in one way per built-in test
// and checks that scorecard-test, run as the pod would run it, fails that test.
func TestEachTestFailsItsBrokenBundle(t *testing.T) {
	tests := []struct {
		test    string
		breakIt func(g Gomega, csv *operatorsv1alpha1.ClusterServiceVersion)
	}{
		// scorecard-test only suggests adding a missing spec; it fails examples it cannot read.
		{"basic-check-spec", func(_ Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) {
			csv.Annotations["alm-examples"] = `[{"apiVersion": "samplecontroller.example.com/v1alpha1",`
		}},
		{"olm-bundle-validation", func(_ Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) {
			csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs = nil
		}},
		{"olm-crds-have-validation", func(g Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) {
			editExample(g, csv, func(cr map[string]any) { cr["spec"].(map[string]any)["colour"] = "blue" })
		}},
		{"olm-crds-have-resources", func(_ Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) {
			csv.Spec.CustomResourceDefinitions.Owned[0].Resources = nil
		}},
		{"olm-spec-descriptors", func(_ Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) {
			csv.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors = nil
		}},
		{"olm-status-descriptors", func(g Gomega, csv *operatorsv1alpha1.ClusterServiceVersion) {
			csv.Spec.CustomResourceDefinitions.Owned[0].StatusDescriptors = nil
			editExample(g, csv, func(cr map[string]any) { cr["status"] = map[string]any{"availableReplicas": 1} })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.test, func(t *testing.T) {
			g := NewWithT(t)
			dir := t.TempDir()
			g.Expect(os.CopyFS(dir, os.DirFS(committed))).To(Succeed())
			editCSV(g, filepath.Join(dir, csvFile), func(csv *operatorsv1alpha1.ClusterServiceVersion) { tt.breakIt(g, csv) })

			got := states(g, dir)
			g.Expect(got).To(HaveKeyWithValue(tt.test, scapiv1alpha3.FailState))
			list, err := run(program, dir, builtIn)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(verdict(list)).NotTo(Succeed())
		})
	}
}

func editCSV(g Gomega, path string, edit func(*operatorsv1alpha1.ClusterServiceVersion)) {
	raw, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	g.Expect(yaml.Unmarshal(raw, csv)).To(Succeed())
	edit(csv)
	raw, err = yaml.Marshal(csv)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(path, raw, 0o644)).To(Succeed())
}

// editExample changes the first alm-example.
func editExample(g Gomega, csv *operatorsv1alpha1.ClusterServiceVersion, edit func(cr map[string]any)) {
	var examples []map[string]any
	g.Expect(json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &examples)).To(Succeed())
	edit(examples[0])
	raw, err := json.Marshal(examples)
	g.Expect(err).NotTo(HaveOccurred())
	csv.Annotations["alm-examples"] = string(raw)
}
