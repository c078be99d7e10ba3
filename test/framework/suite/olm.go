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

package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/framework"
)

// Package is the operator's OLM package.
const Package = "foo-operator"

// Channel is the channel users subscribe to.
const Channel = "stable"

// GenerateBundle generates the bundle of version from config/manifests into dir, as make
// bundle does, and validates it.
func GenerateBundle(version, dir string) {
	ginkgo.GinkgoHelper()
	root := framework.Root()
	gomega.Expect(os.MkdirAll(dir, 0o755)).To(gomega.Succeed())
	manifests := Run(root, nil, filepath.Join(root, "bin", "kustomize"), "build", filepath.Join(root, "config", "manifests"))
	// In dir: operator-sdk also writes bundle.Dockerfile to the working directory.
	Run(dir, strings.NewReader(manifests), filepath.Join(root, "bin", "operator-sdk"), "generate", "bundle", "-q", "--overwrite",
		"--package", Package, "--version", version, "--channels=candidate,stable", "--default-channel=stable", "--output-dir", dir)
	Run(root, nil, filepath.Join(root, "bin", "operator-sdk"), "bundle", "validate", dir)
}

// RenderCatalog writes into dir a file-based catalog of the package with opm for a
// simulated node: the committed package blob, each bundle (CSV name: its directory) rendered
// from its directory, so without an image and with its objects inline, which OLM installs
// without unpacking (a simulated node runs no unpack Job), and the channels candidate and
// stable, each bundle replacing the one before in CSV name order. It returns dir.
func RenderCatalog(dir string, bundles map[string]string) string {
	ginkgo.GinkgoHelper()
	root := framework.Root()
	pkgDir := filepath.Join(dir, Package)
	gomega.Expect(os.MkdirAll(pkgDir, 0o755)).To(gomega.Succeed())
	opm := filepath.Join(root, "bin", "opm")
	pkg, err := os.ReadFile(filepath.Join(root, "catalog", Package, "package.yaml"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(os.WriteFile(filepath.Join(pkgDir, "package.yaml"), pkg, 0o644)).To(gomega.Succeed())

	names := slices.Sorted(maps.Keys(bundles))
	var channels strings.Builder
	for _, channel := range []string{"candidate", Channel} {
		fmt.Fprintf(&channels, "---\nschema: olm.channel\npackage: %s\nname: %s\nentries:\n", Package, channel)
		for i, csv := range names {
			fmt.Fprintf(&channels, "- name: %s\n", csv)
			if i > 0 {
				fmt.Fprintf(&channels, "  replaces: %s\n", names[i-1])
			}
		}
	}
	gomega.Expect(os.WriteFile(filepath.Join(pkgDir, "channels.yaml"), []byte(channels.String()), 0o644)).To(gomega.Succeed())
	for _, csv := range names {
		rendered := Run(root, nil, opm, "render", bundles[csv], "--output=yaml")
		gomega.Expect(os.WriteFile(filepath.Join(pkgDir, csv+".yaml"), []byte(rendered), 0o644)).To(gomega.Succeed())
	}
	Run(root, nil, opm, "validate", dir)
	return dir
}

// Release is a bundle of a catalog rendered from a template: its CSV name, and its image,
// built from Context (a directory holding bundle/, as the repository's root does).
type Release struct {
	CSV, Image, Context string
}

// RenderCatalogTemplate writes into dir the package's catalog as make catalog does: the
// committed package blob, and an opm basic template rendered by hack/catalog.sh (each bundle
// read from its image, stored as olm.csv.metadata). In the template each release replaces
// the one before it in both channels and skips every earlier one (skipRange), and each
// deprecation is an olm.deprecations entry for a bundle (CSV name: message). It returns dir.
func RenderCatalogTemplate(dir string, releases []Release, deprecations map[string]string) string {
	ginkgo.GinkgoHelper()
	root := framework.Root()
	pkgDir := filepath.Join(dir, Package)
	gomega.Expect(os.MkdirAll(pkgDir, 0o755)).To(gomega.Succeed())
	pkg, err := os.ReadFile(filepath.Join(root, "catalog", Package, "package.yaml"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(os.WriteFile(filepath.Join(pkgDir, "package.yaml"), pkg, 0o644)).To(gomega.Succeed())

	// The entries of an opm basic template (olm.template.basic) this writes.
	type channelEntry struct {
		Name      string `json:"name"`
		Replaces  string `json:"replaces,omitempty"`
		SkipRange string `json:"skipRange,omitempty"`
	}
	type reference struct {
		Schema string `json:"schema"`
		Name   string `json:"name"`
	}
	type deprecation struct {
		Reference reference `json:"reference"`
		Message   string    `json:"message"`
	}
	type entry struct {
		Schema  string `json:"schema"`
		Package string `json:"package,omitempty"`
		Name    string `json:"name,omitempty"`
		Image   string `json:"image,omitempty"`
		Entries any    `json:"entries,omitempty"`
	}
	templateFile := filepath.Join(ginkgo.GinkgoT().TempDir(), "template.json")
	args := make([]string, 0, 2+len(releases))
	args = append(args, templateFile, filepath.Join(pkgDir, Package+".yaml"))
	channelEntries := make([]channelEntry, 0, len(releases))
	bundles := make([]entry, 0, len(releases))
	for i, r := range releases {
		e := channelEntry{Name: r.CSV}
		if i > 0 {
			e.Replaces = releases[i-1].CSV
			e.SkipRange = ">=" + version(releases[0].CSV) + " <" + version(r.CSV)
		}
		channelEntries = append(channelEntries, e)
		bundles = append(bundles, entry{Schema: "olm.bundle", Image: r.Image})
		args = append(args, r.Image+"="+r.Context)
	}
	entries := []entry{
		{Schema: "olm.channel", Package: Package, Name: "candidate", Entries: channelEntries},
		{Schema: "olm.channel", Package: Package, Name: Channel, Entries: channelEntries},
	}
	entries = append(entries, bundles...)
	if len(deprecations) > 0 {
		deprecated := make([]deprecation, 0, len(deprecations))
		for _, csv := range slices.Sorted(maps.Keys(deprecations)) {
			deprecated = append(deprecated, deprecation{Reference: reference{Schema: "olm.bundle", Name: csv}, Message: deprecations[csv]})
		}
		entries = append(entries, entry{Schema: "olm.deprecations", Package: Package, Entries: deprecated})
	}
	template, err := json.Marshal(struct {
		Schema  string  `json:"schema"`
		Entries []entry `json:"entries"`
	}{"olm.template.basic", entries})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(os.WriteFile(templateFile, template, 0o644)).To(gomega.Succeed())
	Run(root, nil, "hack/catalog.sh", args...)
	Run(root, nil, filepath.Join(root, "bin", "opm"), "validate", dir)
	return dir
}

// version is the version of a CSV of the package, by its name.
func version(csv string) string { return strings.TrimPrefix(csv, Package+".v") }

// ExpectCSVSucceeded waits until OLM reports the CSV name in ns Succeeded.
func ExpectCSVSucceeded(c client.Client, ns, name string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) operatorsv1alpha1.ClusterServiceVersionPhase {
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, csv)).To(gomega.Succeed())
		return csv.Status.Phase
	}).Should(gomega.Equal(operatorsv1alpha1.CSVPhaseSucceeded))
}

// reportOLMState adds what OLM says about the installs in ns (CSVs, InstallPlans,
// Subscriptions) to the report.
func reportOLMState(c client.Client, ns string) {
	var out []any
	csvs := &operatorsv1alpha1.ClusterServiceVersionList{}
	if c.List(context.Background(), csvs, client.InNamespace(ns)) == nil {
		for _, c := range csvs.Items {
			out = append(out, map[string]any{"csv": c.Name, "phase": c.Status.Phase, "reason": c.Status.Reason, "message": c.Status.Message})
		}
	}
	plans := &operatorsv1alpha1.InstallPlanList{}
	if c.List(context.Background(), plans, client.InNamespace(ns)) == nil {
		for _, p := range plans.Items {
			out = append(out, map[string]any{"installPlan": p.Name, "phase": p.Status.Phase, "conditions": p.Status.Conditions})
		}
	}
	subs := &operatorsv1alpha1.SubscriptionList{}
	if c.List(context.Background(), subs, client.InNamespace(ns)) == nil {
		for _, s := range subs.Items {
			out = append(out, map[string]any{"subscription": s.Name, "state": s.Status.State, "conditions": s.Status.Conditions})
		}
	}
	raw, _ := json.MarshalIndent(out, "", "  ")
	ginkgo.AddReportEntry("OLM state in "+ns, string(raw))
}
