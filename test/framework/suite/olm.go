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

// Bundle is a bundle of a catalog: rendered from its directory, and named by its image when
// Image is set (OLM then unpacks the image; without one it installs from the catalog's
// inline objects, which a simulated node needs).
type Bundle struct {
	Dir, Image string
}

// RenderCatalog writes into dir a file-based catalog of the package with opm: the committed
// package blob, each bundle by CSV name, and the channels candidate and stable, each bundle
// replacing the one before in CSV name order. It returns dir.
func RenderCatalog(dir string, bundles map[string]Bundle) string {
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
	for _, channel := range []string{"candidate", "stable"} {
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
		rendered := Run(root, nil, opm, "render", bundles[csv].Dir, "--output=yaml")
		// opm renders a directory with an empty image, as make catalog does before naming it.
		if image := bundles[csv].Image; image != "" {
			rendered = strings.Replace(rendered, "\nimage: \"\"\n", "\nimage: "+image+"\n", 1)
			gomega.Expect(rendered).To(gomega.ContainSubstring("\nimage: " + image + "\n"))
		}
		gomega.Expect(os.WriteFile(filepath.Join(pkgDir, csv+".yaml"), []byte(rendered), 0o644)).To(gomega.Succeed())
	}
	Run(root, nil, opm, "validate", dir)
	return dir
}

// ExpectCSVSucceeded waits until OLM reports the CSV name in ns Succeeded.
func ExpectCSVSucceeded(c client.Client, ns, name string) {
	ginkgo.GinkgoHelper()
	gomega.Eventually(func(g gomega.Gomega) operatorsv1alpha1.ClusterServiceVersionPhase {
		csv := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, csv)).To(gomega.Succeed())
		return csv.Status.Phase
	}).Should(gomega.Equal(operatorsv1alpha1.CSVPhaseSucceeded))
}

// ReportOLMStateOnFailure adds what OLM says about the installs in ns (CSVs, InstallPlans,
// Subscriptions) to the report of a failed spec.
func ReportOLMStateOnFailure(c client.Client, ns string) {
	if !ginkgo.CurrentSpecReport().Failed() {
		return
	}
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
