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
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// scorecardCheck is the offline equivalent of one built-in scorecard test.
type scorecardCheck func(b *manifests.Bundle, examples []unstructured.Unstructured) scapiv1alpha3.TestResult

// scorecardChecks are the built-in scorecard tests, by the name the scorecard-test image's
// entrypoint takes. They check the bundle only: where the real test reads a live object
// (olm-status-descriptors reads the created CR's status) the offline check reads the CRD
// schema instead, which is stricter (every status field needs a descriptor).
var scorecardChecks = map[string]scorecardCheck{
	"basic-check-spec":         checkSpecExists,
	"olm-bundle-validation":    checkBundleValidation,
	"olm-crds-have-validation": checkCRDsHaveValidation,
	"olm-crds-have-resources":  checkCRDsHaveResources,
	"olm-spec-descriptors":     checkDescriptors("spec"),
	"olm-status-descriptors":   checkDescriptors("status"),
}

// runScorecardOffline runs the tests of a scorecard configuration against the bundle in
// dir and returns them as a v1alpha3 TestList.
func runScorecardOffline(dir, configPath string) (scapiv1alpha3.TestList, error) {
	list := scapiv1alpha3.NewTestList()
	raw, err := os.ReadFile(configPath)
	if err != nil {
		return list, err
	}
	cfg := scapiv1alpha3.Configuration{}
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		return list, fmt.Errorf("scorecard configuration %s: %w", configPath, err)
	}
	if cfg.Kind != scapiv1alpha3.ConfigurationKind || cfg.APIVersion != scapiv1alpha3.GroupVersion.String() {
		return list, fmt.Errorf("scorecard configuration %s is a %s %s, not a %s %s", configPath, cfg.APIVersion, cfg.Kind,
			scapiv1alpha3.GroupVersion, scapiv1alpha3.ConfigurationKind)
	}
	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		return list, fmt.Errorf("load bundle %s: %w", dir, err)
	}
	var examples []unstructured.Unstructured
	if err := json.Unmarshal([]byte(bundle.CSV.Annotations["alm-examples"]), &examples); err != nil {
		return list, fmt.Errorf("alm-examples of %s: %w", bundle.CSV.Name, err)
	}

	for _, stage := range cfg.Stages {
		for _, tc := range stage.Tests {
			test := scapiv1alpha3.NewTest()
			test.Spec = tc
			name := ""
			if len(tc.Entrypoint) > 0 {
				name = tc.Entrypoint[len(tc.Entrypoint)-1]
			}
			check, ok := scorecardChecks[name]
			if !ok {
				test.Status.Results = []scapiv1alpha3.TestResult{{
					Name: name, State: scapiv1alpha3.ErrorState,
					Errors: []string{fmt.Sprintf("no offline equivalent of scorecard test %q; run `make scorecard` on a cluster", name)},
				}}
			} else {
				result := check(bundle, examples)
				result.Name = name
				test.Status.Results = []scapiv1alpha3.TestResult{result}
			}
			list.Items = append(list.Items, test)
		}
	}
	return list, nil
}

func result(errs, suggestions []string, log string) scapiv1alpha3.TestResult {
	r := scapiv1alpha3.TestResult{State: scapiv1alpha3.PassState, Errors: errs, Suggestions: suggestions, Log: log}
	if len(errs) > 0 {
		r.State = scapiv1alpha3.FailState
	}
	return r
}

// checkSpecExists: every custom resource in alm-examples has a spec.
func checkSpecExists(_ *manifests.Bundle, examples []unstructured.Unstructured) scapiv1alpha3.TestResult {
	var errs []string
	for _, cr := range examples {
		if spec, ok := cr.Object["spec"].(map[string]any); !ok || len(spec) == 0 {
			errs = append(errs, fmt.Sprintf("%s %s has no spec", cr.GetKind(), cr.GetName()))
		}
	}
	return result(errs, nil, fmt.Sprintf("%d custom resources in alm-examples", len(examples)))
}

// checkBundleValidation: the default bundle validators find no error; warnings are
// suggestions.
func checkBundleValidation(b *manifests.Bundle, _ []unstructured.Unstructured) scapiv1alpha3.TestResult {
	var errs, suggestions []string
	for _, r := range validation.DefaultBundleValidators.Validate(b.ObjectsToValidate()...) {
		for _, e := range r.Errors {
			errs = append(errs, e.Error())
		}
		for _, w := range r.Warnings {
			suggestions = append(suggestions, w.Error())
		}
	}
	return result(errs, suggestions, "")
}

// checkCRDsHaveValidation: every spec field the alm-examples set is in the CRD's schema.
func checkCRDsHaveValidation(b *manifests.Bundle, examples []unstructured.Unstructured) scapiv1alpha3.TestResult {
	var errs []string
	for _, cr := range examples {
		schema := crdSchema(b, cr)
		if schema == nil {
			errs = append(errs, fmt.Sprintf("no CRD schema for %s in the bundle", cr.GroupVersionKind()))
			continue
		}
		spec, _ := cr.Object["spec"].(map[string]any)
		props := schema.Properties["spec"].Properties
		for _, field := range sortedKeys(spec) {
			if _, ok := props[field]; !ok {
				errs = append(errs, fmt.Sprintf("%s: spec.%s has no validation in the CRD schema", cr.GetKind(), field))
			}
		}
	}
	return result(errs, nil, "")
}

// checkCRDsHaveResources: every owned CRD lists the resources it creates.
func checkCRDsHaveResources(b *manifests.Bundle, _ []unstructured.Unstructured) scapiv1alpha3.TestResult {
	var errs []string
	for _, d := range b.CSV.Spec.CustomResourceDefinitions.Owned {
		if len(d.Resources) == 0 {
			errs = append(errs, fmt.Sprintf("owned CRD %s lists no resources", d.Name))
		}
	}
	return result(errs, nil, "")
}

// checkDescriptors returns the check that every field of the spec or status of every owned
// CRD has a spec or status descriptor in the CSV.
func checkDescriptors(block string) scorecardCheck {
	return func(b *manifests.Bundle, _ []unstructured.Unstructured) scapiv1alpha3.TestResult {
		var errs []string
		for _, d := range b.CSV.Spec.CustomResourceDefinitions.Owned {
			paths := map[string]bool{}
			if block == "spec" {
				for _, sd := range d.SpecDescriptors {
					paths[sd.Path] = true
				}
			} else {
				for _, sd := range d.StatusDescriptors {
					paths[sd.Path] = true
				}
			}
			schema := versionSchema(b, d.Name, d.Version)
			if schema == nil {
				errs = append(errs, fmt.Sprintf("owned CRD %s %s is not in the bundle", d.Name, d.Version))
				continue
			}
			fields := schema.Properties[block].Properties
			for _, f := range sortedKeys(fields) {
				if !paths[f] {
					errs = append(errs, fmt.Sprintf("%s: %s.%s has no %s descriptor", d.Kind, block, f, block))
				}
			}
		}
		return result(errs, nil, "")
	}
}

// crdSchema is the schema of the CRD version of a custom resource.
func crdSchema(b *manifests.Bundle, cr unstructured.Unstructured) *apiextensionsv1.JSONSchemaProps {
	gvk := cr.GroupVersionKind()
	for _, crd := range b.V1CRDs {
		if crd.Spec.Group == gvk.Group && crd.Spec.Names.Kind == gvk.Kind {
			return versionSchema(b, crd.Name, gvk.Version)
		}
	}
	return nil
}

func versionSchema(b *manifests.Bundle, crdName, version string) *apiextensionsv1.JSONSchemaProps {
	for _, crd := range b.V1CRDs {
		if crd.Name != crdName {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == version && v.Schema != nil {
				return v.Schema.OpenAPIV3Schema
			}
		}
	}
	return nil
}

func runScorecard(args []string) error {
	fs := flag.NewFlagSet("scorecard", flag.ExitOnError)
	output := fs.String("output", "text", "text or json, as operator-sdk scorecard prints them")
	config := fs.String("config", "", "the scorecard configuration (default <bundle>/tests/scorecard/config.yaml)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := defaultBundleDir
	if fs.NArg() > 0 {
		dir = fs.Arg(0)
	}
	if *config == "" {
		*config = filepath.Join(dir, "tests", "scorecard", "config.yaml")
	}
	list, err := runScorecardOffline(dir, *config)
	if err != nil {
		return err
	}
	sort.SliceStable(list.Items, func(i, j int) bool { return list.Items[i].Spec.Labels["suite"] < list.Items[j].Spec.Labels["suite"] })
	switch *output {
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
		return fmt.Errorf("--output %q: want text or json", *output)
	}
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
