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
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	interfaces "github.com/operator-framework/api/pkg/validation/interfaces"
)

// namedValidator is a validator with the name operator-sdk selects it by.
type namedValidator struct {
	name      string
	validator interfaces.Validator
}

// bundleValidators are what `operator-sdk bundle validate --select-optional
// suite=operatorframework` runs: the default bundle validators and the operatorframework
// suite.
var bundleValidators = []namedValidator{
	{"csv", validation.ClusterServiceVersionValidator},
	{"crd", validation.CustomResourceDefinitionValidator},
	{"bundle", validation.BundleValidator},
	{"operatorhubv2", validation.OperatorHubV2Validator},
	{"capabilities", validation.StandardCapabilitiesValidator},
	{"categories", validation.StandardCategoriesValidator},
	{"alpha-deprecated-apis", validation.AlphaDeprecatedAPIsValidator},
	{"good-practices", validation.GoodPracticesValidator},
}

// finding is one error or warning of a validator.
type finding struct {
	validator string
	level     errors.Level
	object    string
	message   string
}

// validateBundle loads the bundle in dir and runs the validators on it. k8sVersion is the
// cluster version the deprecated-API checks use.
func validateBundle(dir, k8sVersion string, validators []namedValidator) ([]finding, error) {
	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load bundle %s: %w", dir, err)
	}
	objs := append(bundle.ObjectsToValidate(), map[string]string{"k8s-version": k8sVersion})
	var findings []finding
	for _, v := range validators {
		for _, result := range v.validator.Validate(objs...) {
			for _, e := range append(result.Errors, result.Warnings...) {
				findings = append(findings, finding{validator: v.name, level: e.Level, object: result.Name, message: e.Error()})
			}
		}
	}
	return findings, nil
}

// printFindings writes a table with a row for every finding, and one for every validator
// that found nothing.
func printFindings(w io.Writer, validators []namedValidator, findings []finding) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VALIDATOR\tRESULT\tOBJECT\tMESSAGE")
	for _, v := range validators {
		found := false
		for _, f := range findings {
			if f.validator == v.name {
				found = true
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.validator, f.level, f.object, f.message)
			}
		}
		if !found {
			fmt.Fprintf(tw, "%s\tpass\t\t\n", v.name)
		}
	}
	tw.Flush()
	errs, warns := 0, 0
	for _, f := range findings {
		if f.level == errors.LevelError {
			errs++
		} else {
			warns++
		}
	}
	fmt.Fprintf(w, "%d validators, %d errors, %d warnings\n", len(validators), errs, warns)
}

func runValidate(args []string) error {
	fs := flag.NewFlagSet("validate", flag.ExitOnError)
	k8sVersion := fs.String("k8s-version", "1.35", "Kubernetes version for the deprecated-API checks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := defaultBundleDir
	if fs.NArg() > 0 {
		dir = fs.Arg(0)
	}
	findings, err := validateBundle(dir, *k8sVersion, bundleValidators)
	if err != nil {
		return err
	}
	printFindings(os.Stdout, bundleValidators, findings)
	if len(findings) > 0 {
		return fmt.Errorf("bundle %s: %d findings; the bundle must have no errors and no warnings", dir, len(findings))
	}
	return nil
}
