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
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/blang/semver/v4"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"sigs.k8s.io/yaml"
)

// The file-based catalog schemas this project writes (operator-registry's declcfg; the
// operator-registry module stays out of the operator's go.mod, opm is built as a tool).
type fbcPackage struct {
	Schema         string   `json:"schema"`
	Name           string   `json:"name"`
	DefaultChannel string   `json:"defaultChannel"`
	Description    string   `json:"description,omitempty"`
	Icon           *fbcIcon `json:"icon,omitempty"`
}

type fbcIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type fbcChannel struct {
	Schema  string     `json:"schema"`
	Name    string     `json:"name"`
	Package string     `json:"package"`
	Entries []fbcEntry `json:"entries"`
}

type fbcEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces,omitempty"`
	Skips     []string `json:"skips,omitempty"`
	SkipRange string   `json:"skipRange,omitempty"`
}

// catalogOptions say where a bundle goes in the catalog.
type catalogOptions struct {
	opm            string // the opm binary
	bundleDir      string // the bundle directory to add
	catalogDir     string // the package's directory in the catalog
	bundleImage    string // BUNDLE_IMG; empty keeps the bundle objects inline only
	channels       string // the channels the bundle is added to
	defaultChannel string
}

const packageFile = "package.yaml"

// addToCatalog renders a bundle with `opm render` into the package's catalog directory and
// rewrites the package and channel blobs: the bundle is added to (or replaced in) each of
// its channels, with the replaces, skips and skipRange of its CSV. Bundles already in the
// catalog stay, so the catalog holds the upgrade graph.
func addToCatalog(o catalogOptions) error {
	rendered, err := exec.Command(o.opm, "render", o.bundleDir, "--output", "json").Output()
	if err != nil {
		return fmt.Errorf("opm render %s: %w", o.bundleDir, exitError(err))
	}
	bundle := map[string]any{}
	if err := json.Unmarshal(rendered, &bundle); err != nil {
		return fmt.Errorf("opm render %s: %w", o.bundleDir, err)
	}
	// With an image, OLM unpacks the bundle image; without, it installs the inline objects.
	bundle["image"] = o.bundleImage
	csv, err := renderedCSV(bundle)
	if err != nil {
		return err
	}

	pkg, channels, err := readPackage(o.catalogDir)
	if err != nil {
		return err
	}
	pkgName, _ := bundle["package"].(string)
	pkg.Schema, pkg.Name, pkg.DefaultChannel = "olm.package", pkgName, o.defaultChannel
	pkg.Description = csv.Annotations["description"]
	if len(csv.Spec.Icon) > 0 {
		pkg.Icon = &fbcIcon{Data: csv.Spec.Icon[0].Data, MediaType: csv.Spec.Icon[0].MediaType}
	}
	entry := fbcEntry{Name: csv.Name, Replaces: csv.Spec.Replaces, Skips: csv.Spec.Skips, SkipRange: csv.Annotations[operatorsv1alpha1.SkipRangeAnnotationKey]}
	for _, name := range splitList(o.channels) {
		ch := channels[name]
		if ch == nil {
			ch = &fbcChannel{Schema: "olm.channel", Name: name, Package: pkg.Name}
			channels[name] = ch
		}
		ch.Entries = upsertEntry(ch.Entries, entry)
	}

	if err := os.MkdirAll(o.catalogDir, 0o755); err != nil {
		return err
	}
	if err := writeYAMLDocs(filepath.Join(o.catalogDir, csv.Name+".yaml"), bundle); err != nil {
		return err
	}
	docs := []any{pkg}
	for _, name := range sortedKeys(channels) {
		docs = append(docs, channels[name])
	}
	return writeYAMLDocs(filepath.Join(o.catalogDir, packageFile), docs...)
}

// renderedCSV is the ClusterServiceVersion among a rendered bundle's olm.bundle.object
// properties.
func renderedCSV(bundle map[string]any) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	props, _ := bundle["properties"].([]any)
	for _, p := range props {
		prop, _ := p.(map[string]any)
		if prop["type"] != "olm.bundle.object" {
			continue
		}
		value, _ := prop["value"].(map[string]any)
		data, _ := value["data"].(string)
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, err
		}
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		if err := json.Unmarshal(raw, csv); err != nil {
			return nil, err
		}
		if csv.Kind == operatorsv1alpha1.ClusterServiceVersionKind {
			return csv, nil
		}
	}
	return nil, fmt.Errorf("rendered bundle %v has no ClusterServiceVersion", bundle["name"])
}

// readPackage reads the package and channel blobs of a catalog directory, if any.
func readPackage(dir string) (*fbcPackage, map[string]*fbcChannel, error) {
	pkg := &fbcPackage{}
	channels := map[string]*fbcChannel{}
	raw, err := os.ReadFile(filepath.Join(dir, packageFile))
	if os.IsNotExist(err) {
		return pkg, channels, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		var head struct {
			Schema string `json:"schema"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, nil, err
		}
		switch head.Schema {
		case "olm.package":
			err = yaml.UnmarshalStrict(doc, pkg)
		case "olm.channel":
			ch := &fbcChannel{}
			err = yaml.UnmarshalStrict(doc, ch)
			channels[ch.Name] = ch
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return pkg, channels, nil
}

// upsertEntry adds or replaces an entry, keeping entries in version order.
func upsertEntry(entries []fbcEntry, e fbcEntry) []fbcEntry {
	out := []fbcEntry{e}
	for _, old := range entries {
		if old.Name != e.Name {
			out = append(out, old)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return csvVersion(out[i].Name).LT(csvVersion(out[j].Name)) })
	return out
}

// csvVersion is the version in a CSV name such as foo-operator.v0.1.0.
func csvVersion(name string) semver.Version {
	for i := len(name) - 1; i > 0; i-- {
		if name[i-1:i+1] == ".v" {
			if v, err := semver.Parse(name[i+1:]); err == nil {
				return v
			}
		}
	}
	return semver.Version{}
}

func writeYAMLDocs(path string, docs ...any) error {
	var out bytes.Buffer
	for i, d := range docs {
		raw, err := yaml.Marshal(d)
		if err != nil {
			return err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(raw)
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

func exitError(err error) error {
	if ee, ok := err.(*exec.ExitError); ok {
		return fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	return err
}

func runCatalog(args []string) error {
	fs := flag.NewFlagSet("catalog", flag.ExitOnError)
	o := catalogOptions{}
	fs.StringVar(&o.opm, "opm", "bin/opm", "the opm binary")
	fs.StringVar(&o.bundleDir, "bundle-dir", defaultBundleDir, "the bundle to add")
	fs.StringVar(&o.catalogDir, "catalog-dir", "catalog/foo-operator", "the package's directory in the file-based catalog")
	fs.StringVar(&o.bundleImage, "bundle-image", "", "the bundle image (BUNDLE_IMG); empty installs from the catalog's inline objects")
	fs.StringVar(&o.channels, "channels", "stable", "comma-separated channels to add the bundle to")
	fs.StringVar(&o.defaultChannel, "default-channel", "stable", "the package's default channel")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := addToCatalog(o); err != nil {
		return err
	}
	fmt.Printf("Added %s to %s (channels %s)\n", o.bundleDir, o.catalogDir, o.channels)
	return nil
}
