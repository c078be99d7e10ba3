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
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// The committed bundle, and what it is generated from.
const (
	repoRoot    = "../.."
	committed   = repoRoot + "/bundle"
	manifestDir = repoRoot + "/config/manifests"
)

func testOptions(out string) bundleOptions {
	return bundleOptions{
		manifestsDir: manifestDir, outDir: out, dockerfile: filepath.Join(out, "bundle.Dockerfile"),
		packageName: "foo-operator", version: "0.1.0", channels: "candidate,stable", defaultChannel: "stable",
		createdAt: "2026-11-22T00:00:00Z",
	}
}

func loadCommitted(t *testing.T) *manifests.Bundle {
	t.Helper()
	b, err := manifests.GetBundleFromDir(committed)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return b
}

func TestGenerateBundleIsDeterministic(t *testing.T) {
	g := NewWithT(t)
	set, err := loadManifests(manifestDir)
	g.Expect(err).NotTo(HaveOccurred())
	first, err := renderBundle(set, testOptions("bundle"))
	g.Expect(err).NotTo(HaveOccurred())
	second, err := renderBundle(set, testOptions("bundle"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(second).To(Equal(first))

	// Generating into an empty directory twice leaves identical trees.
	dir := t.TempDir()
	g.Expect(generateBundle(testOptions(dir))).To(Succeed())
	before := readTree(t, dir)
	g.Expect(generateBundle(testOptions(dir))).To(Succeed())
	g.Expect(readTree(t, dir)).To(Equal(before))
	g.Expect(before).To(HaveKey("manifests/foo-operator.clusterserviceversion.yaml"))
	g.Expect(before).To(HaveKey("metadata/annotations.yaml"))
	g.Expect(before).To(HaveKey("tests/scorecard/config.yaml"))
}

func readTree(t *testing.T, dir string) map[string]string {
	files := map[string]string{}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		raw, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(raw)
		return err
	})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return files
}

func TestBundleCRDMatchesConfig(t *testing.T) {
	g := NewWithT(t)
	set, err := loadManifests(repoRoot + "/config/manifests")
	g.Expect(err).NotTo(HaveOccurred())
	b := loadCommitted(t)
	g.Expect(b.V1CRDs).To(HaveLen(len(set.crds)))
	for i, crd := range set.crds {
		g.Expect(b.V1CRDs[i].Spec).To(Equal(crd.Spec), "bundle CRD %s differs from config/crd: run make bundle", crd.Name)
	}
}

func TestCSVInstallStrategyMatchesConfig(t *testing.T) {
	g := NewWithT(t)
	set, err := loadManifests(manifestDir)
	g.Expect(err).NotTo(HaveOccurred())
	strategy := loadCommitted(t).CSV.Spec.InstallStrategy.StrategySpec

	g.Expect(strategy.DeploymentSpecs).To(HaveLen(1))
	g.Expect(set.deployments).To(HaveLen(1))
	g.Expect(strategy.DeploymentSpecs[0].Name).To(Equal(set.deployments[0].Name))
	g.Expect(strategy.DeploymentSpecs[0].Spec).To(Equal(set.deployments[0].Spec), "run make bundle")

	sa := set.deployments[0].Spec.Template.Spec.ServiceAccountName
	// Only what must be cluster-wide is: the metrics endpoint's TokenReviews and
	// SubjectAccessReviews. The reconciler's rules are per target namespace.
	g.Expect(strategy.ClusterPermissions).To(ConsistOf(
		operatorsv1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: set.clusterRoles["foo-operator-metrics-auth-role"].Rules},
	))
	g.Expect(strategy.Permissions).To(ConsistOf(
		operatorsv1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: set.clusterRoles["foo-operator-manager-role"].Rules},
		operatorsv1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: set.roles["foo-operator-leader-election-role"].Rules},
	))
}

func TestCSVIsComplete(t *testing.T) {
	g := NewWithT(t)
	csv := loadCommitted(t).CSV
	g.Expect(csv.Name).To(Equal("foo-operator.v0.1.0"))
	g.Expect(csv.Spec.DisplayName).NotTo(BeEmpty())
	g.Expect(csv.Spec.Description).To(ContainSubstring("## Prerequisites"))
	g.Expect(csv.Spec.Icon).To(HaveLen(1))
	g.Expect(csv.Spec.Icon[0].MediaType).To(Equal("image/svg+xml"))
	g.Expect(csv.Spec.Keywords).NotTo(BeEmpty())
	g.Expect(csv.Spec.Maintainers).NotTo(BeEmpty())
	g.Expect(csv.Spec.Links).NotTo(BeEmpty())
	g.Expect(csv.Spec.Provider.Name).NotTo(BeEmpty())
	g.Expect(csv.Spec.Maturity).NotTo(BeEmpty())
	g.Expect(csv.Spec.MinKubeVersion).NotTo(BeEmpty())
	for _, key := range []string{"capabilities", "categories", "containerImage", "createdAt", "repository", "support", "alm-examples", "description"} {
		g.Expect(csv.Annotations).To(HaveKey(key))
	}
	g.Expect(csv.Annotations["capabilities"]).To(Equal("Seamless Upgrades"))
	var modes []operatorsv1alpha1.InstallModeType
	for _, m := range csv.Spec.InstallModes {
		g.Expect(m.Supported).To(BeTrue(), string(m.Type))
		modes = append(modes, m.Type)
	}
	g.Expect(modes).To(ConsistOf(operatorsv1alpha1.InstallModeTypeOwnNamespace, operatorsv1alpha1.InstallModeTypeSingleNamespace,
		operatorsv1alpha1.InstallModeTypeMultiNamespace, operatorsv1alpha1.InstallModeTypeAllNamespaces))
	g.Expect(csv.Spec.RelatedImages).To(ConsistOf(
		operatorsv1alpha1.RelatedImage{Name: "foo-operator", Image: csv.Annotations["containerImage"]},
		operatorsv1alpha1.RelatedImage{Name: "nginx", Image: "docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine"},
	))

	// The operator watches exactly OLM's target namespaces.
	env := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0].Env
	g.Expect(env).To(ContainElement(HaveField("ValueFrom.FieldRef.FieldPath", "metadata.annotations['olm.targetNamespaces']")))

	var examples []unstructured.Unstructured
	g.Expect(yaml.Unmarshal([]byte(csv.Annotations["alm-examples"]), &examples)).To(Succeed())
	g.Expect(examples).NotTo(BeEmpty())
}

func TestUpgradeFieldsAreSettable(t *testing.T) {
	g := NewWithT(t)
	set, err := loadManifests(manifestDir)
	g.Expect(err).NotTo(HaveOccurred())
	o := testOptions("bundle")
	o.version, o.replaces, o.skips, o.skipRange = "0.2.0", "foo-operator.v0.1.0", "foo-operator.v0.1.1, foo-operator.v0.1.2", ">=0.1.0 <0.2.0"
	csv, err := buildCSV(set, o)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(csv.Name).To(Equal("foo-operator.v0.2.0"))
	g.Expect(csv.Spec.Version.String()).To(Equal("0.2.0"))
	g.Expect(csv.Spec.Replaces).To(Equal("foo-operator.v0.1.0"))
	g.Expect(csv.Spec.Skips).To(Equal([]string{"foo-operator.v0.1.1", "foo-operator.v0.1.2"}))
	g.Expect(csv.Annotations).To(HaveKeyWithValue("olm.skipRange", ">=0.1.0 <0.2.0"))

	o.version = "v0.2"
	_, err = buildCSV(set, o)
	g.Expect(err).To(MatchError(ContainSubstring("not a semantic version")))
}

func TestAnnotationsMatchDockerfileLabels(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(committed + "/metadata/annotations.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	var file struct {
		Annotations map[string]string `json:"annotations"`
	}
	g.Expect(yaml.UnmarshalStrict(raw, &file)).To(Succeed())

	dockerfile, err := os.ReadFile(repoRoot + "/bundle.Dockerfile")
	g.Expect(err).NotTo(HaveOccurred())
	labels := map[string]string{}
	scanner := bufio.NewScanner(bytes.NewReader(dockerfile))
	for scanner.Scan() {
		if label, ok := strings.CutPrefix(scanner.Text(), "LABEL "); ok {
			k, v, _ := strings.Cut(label, "=")
			labels[k] = v
		}
	}
	g.Expect(labels).To(Equal(file.Annotations))
	g.Expect(labels).To(HaveKeyWithValue("operators.operatorframework.io.bundle.channels.v1", "candidate,stable"))
	g.Expect(labels).To(HaveKeyWithValue("operators.operatorframework.io.bundle.channel.default.v1", "stable"))
}

func TestCommittedBundleValidates(t *testing.T) {
	g := NewWithT(t)
	findings, err := validateBundle(committed, "1.35", bundleValidators)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(findings).To(BeEmpty())
}

func TestValidatorsReportProblems(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	o := testOptions(dir)
	g.Expect(generateBundle(o)).To(Succeed())
	csvPath := filepath.Join(dir, "manifests", "foo-operator.clusterserviceversion.yaml")
	raw, err := os.ReadFile(csvPath)
	g.Expect(err).NotTo(HaveOccurred())
	raw = bytes.Replace(raw, []byte("categories: Application Runtime,Developer Tools"), []byte("categories: Web Stuff"), 1)
	g.Expect(os.WriteFile(csvPath, raw, 0o644)).To(Succeed())

	findings, err := validateBundle(dir, "1.35", bundleValidators)
	g.Expect(err).NotTo(HaveOccurred())
	var validators []string
	for _, f := range findings {
		validators = append(validators, f.validator)
	}
	g.Expect(validators).To(ContainElement("categories"))

	var out bytes.Buffer
	printFindings(&out, bundleValidators, findings)
	g.Expect(out.String()).To(ContainSubstring(`"Web Stuff" is not in the set of standard categories`))
	g.Expect(out.String()).To(MatchRegexp(`8 validators, \d+ errors, \d+ warnings`))
}

func TestScorecardOfflinePasses(t *testing.T) {
	g := NewWithT(t)
	list, err := runScorecardOffline(committed, committed+"/tests/scorecard/config.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, test := range list.Items {
		g.Expect(test.Spec.Image).To(MatchRegexp(`^quay.io/operator-framework/scorecard-test:v\d+\.\d+\.\d+$`))
		g.Expect(test.Status.Results).To(HaveLen(1))
		r := test.Status.Results[0]
		g.Expect(r.State).To(Equal(scapiv1alpha3.PassState), "%s: %v", r.Name, r.Errors)
		names = append(names, r.Name)
	}
	g.Expect(names).To(ConsistOf("basic-check-spec", "olm-bundle-validation", "olm-crds-have-validation",
		"olm-crds-have-resources", "olm-spec-descriptors", "olm-status-descriptors"))
}

func TestScorecardChecksFail(t *testing.T) {
	b := loadCommitted(t)
	tests := []struct {
		name    string
		check   scorecardCheck
		mutate  func(b *manifests.Bundle, examples []unstructured.Unstructured) []unstructured.Unstructured
		wantErr string
	}{
		{"a sample without spec", checkSpecExists, func(_ *manifests.Bundle, ex []unstructured.Unstructured) []unstructured.Unstructured {
			delete(ex[0].Object, "spec")
			return ex
		}, "Foo example-foo has no spec"},
		{"a sample field without schema", checkCRDsHaveValidation, func(_ *manifests.Bundle, ex []unstructured.Unstructured) []unstructured.Unstructured {
			ex[0].Object["spec"].(map[string]any)["colour"] = "blue"
			return ex
		}, "spec.colour has no validation"},
		{"an owned CRD without resources", checkCRDsHaveResources, func(b *manifests.Bundle, ex []unstructured.Unstructured) []unstructured.Unstructured {
			b.CSV.Spec.CustomResourceDefinitions.Owned[0].Resources = nil
			return ex
		}, "lists no resources"},
		{"a spec field without descriptor", checkDescriptors("spec"), func(b *manifests.Bundle, ex []unstructured.Unstructured) []unstructured.Unstructured {
			b.CSV.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors = b.CSV.Spec.CustomResourceDefinitions.Owned[0].SpecDescriptors[1:]
			return ex
		}, "spec.deploymentName has no spec descriptor"},
		{"a status field without descriptor", checkDescriptors("status"), func(b *manifests.Bundle, ex []unstructured.Unstructured) []unstructured.Unstructured {
			b.CSV.Spec.CustomResourceDefinitions.Owned[0].StatusDescriptors = nil
			return ex
		}, "status.conditions has no status descriptor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			bundle := *b
			bundle.CSV = b.CSV.DeepCopy()
			var examples []unstructured.Unstructured
			g.Expect(yaml.Unmarshal([]byte(bundle.CSV.Annotations["alm-examples"]), &examples)).To(Succeed())
			r := tt.check(&bundle, tt.mutate(&bundle, examples))
			g.Expect(r.State).To(Equal(scapiv1alpha3.FailState))
			g.Expect(r.Errors).To(ContainElement(ContainSubstring(tt.wantErr)))
		})
	}
}

func TestCatalogEntries(t *testing.T) {
	g := NewWithT(t)
	entries := upsertEntry(nil, fbcEntry{Name: "foo-operator.v0.10.0", Replaces: "foo-operator.v0.2.0"})
	entries = upsertEntry(entries, fbcEntry{Name: "foo-operator.v0.1.0"})
	entries = upsertEntry(entries, fbcEntry{Name: "foo-operator.v0.2.0", Replaces: "foo-operator.v0.1.0"})
	// Re-adding a version replaces its entry.
	entries = upsertEntry(entries, fbcEntry{Name: "foo-operator.v0.2.0", Replaces: "foo-operator.v0.1.0", SkipRange: "<0.2.0"})
	g.Expect(entries).To(Equal([]fbcEntry{
		{Name: "foo-operator.v0.1.0"},
		{Name: "foo-operator.v0.2.0", Replaces: "foo-operator.v0.1.0", SkipRange: "<0.2.0"},
		{Name: "foo-operator.v0.10.0", Replaces: "foo-operator.v0.2.0"},
	}))
}

func TestCommittedCatalog(t *testing.T) {
	g := NewWithT(t)
	pkg, channels, err := readPackage(repoRoot + "/catalog/foo-operator")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pkg.Name).To(Equal("foo-operator"))
	g.Expect(pkg.DefaultChannel).To(Equal("stable"))
	g.Expect(sortedKeys(channels)).To(Equal([]string{"candidate", "stable"}))
	for _, ch := range channels {
		g.Expect(ch.Entries).To(ContainElement(HaveField("Name", "foo-operator.v0.1.0")))
	}
}
