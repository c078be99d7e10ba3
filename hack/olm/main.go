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

// Command olm does for this project what the operator-sdk CLI would (it cannot be installed
// here): it generates the OLM bundle from config/manifests, validates it with
// operator-framework/api's validators, and runs the scorecard's built-in tests offline.
//
//	go run ./hack/olm bundle   [flags]   # write bundle/ and bundle.Dockerfile
//	go run ./hack/olm validate [dir]     # the validators of `operator-sdk bundle validate --select-optional suite=operatorframework`
//	go run ./hack/olm scorecard [flags] [dir]  # the six built-in scorecard tests, without a cluster
//	go run ./hack/olm catalog [flags]  # add the bundle to the file-based catalog (with opm render)
package main

import (
	"flag"
	"fmt"
	"os"
)

// defaultBundleDir is where the bundle is written and read.
const defaultBundleDir = "bundle"

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "bundle":
		err = runBundle(args)
	case "validate":
		err = runValidate(args)
	case "scorecard":
		err = runScorecard(args)
	case "catalog":
		err = runCatalog(args)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: olm bundle|validate|scorecard|catalog [flags]")
	os.Exit(2)
}

func runBundle(args []string) error {
	fs := flag.NewFlagSet("bundle", flag.ExitOnError)
	o := bundleOptions{}
	fs.StringVar(&o.manifestsDir, "manifests", "config/manifests", "the kustomization to build the bundle from")
	fs.StringVar(&o.outDir, "output-dir", defaultBundleDir, "the bundle directory")
	fs.StringVar(&o.dockerfile, "dockerfile", "bundle.Dockerfile", "the bundle image's Dockerfile")
	fs.StringVar(&o.packageName, "package", "foo-operator", "the OLM package name")
	fs.StringVar(&o.version, "version", "", "the operator version (semver, no leading v)")
	fs.StringVar(&o.channels, "channels", "stable", "comma-separated channels of the bundle")
	fs.StringVar(&o.defaultChannel, "default-channel", "stable", "the package's default channel")
	fs.StringVar(&o.replaces, "replaces", "", "the CSV this version replaces (spec.replaces)")
	fs.StringVar(&o.skips, "skips", "", "comma-separated CSVs this version skips (spec.skips)")
	fs.StringVar(&o.skipRange, "skip-range", "", "the olm.skipRange annotation, for example '>=0.1.0 <0.2.0'")
	fs.StringVar(&o.createdAt, "created-at", "", "the createdAt annotation (RFC 3339); fixed so that the bundle is reproducible")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.version == "" || o.createdAt == "" {
		return fmt.Errorf("--version and --created-at are required")
	}
	if err := generateBundle(o); err != nil {
		return err
	}
	fmt.Printf("Generated bundle %s.v%s in %s/ and %s\n", o.packageName, o.version, o.outDir, o.dockerfile)
	return nil
}
