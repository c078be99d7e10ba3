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
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// bundleDir is the committed bundle, which the scorecard pod sees at /bundle.
const bundleDir = "../../bundle"

func TestSampleFooIsTheBundlesExample(t *testing.T) {
	g := NewWithT(t)
	foo, err := sampleFoo(bundleDir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(foo.Name).To(Equal("example-foo"))
	g.Expect(foo.Spec.DeploymentName).To(Equal("example-foo"))
	g.Expect(foo.Spec.Replicas).To(Equal(ptr.To[int32](1)))
}

func TestSampleFooNeedsABundle(t *testing.T) {
	_, err := sampleFoo(t.TempDir())
	NewWithT(t).Expect(err).To(HaveOccurred())
}

func TestFooFromExamples(t *testing.T) {
	deployment := `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}`
	foo := `{"apiVersion": "samplecontroller.example.com/v1alpha1", "kind": "Foo", "metadata": {"name": "f"}}`
	otherVersion := `{"apiVersion": "samplecontroller.example.com/v1", "kind": "Foo", "metadata": {"name": "v1"}}`
	for examples, want := range map[string]string{
		"[" + deployment + "," + otherVersion + "," + foo + "]": "f",
		"[" + deployment + "]": "",
		"[]":                   "",
		"":                     "",
		"[{":                   "",
	} {
		g := NewWithT(t)
		got, err := fooFromExamples(examples)
		if want == "" {
			g.Expect(err).To(HaveOccurred(), examples)
			continue
		}
		g.Expect(err).NotTo(HaveOccurred(), examples)
		g.Expect(got.Name).To(Equal(want))
	}
}

func TestUniqueFooSuffixesNameAndDeploymentName(t *testing.T) {
	g := NewWithT(t)
	sample, err := sampleFoo(bundleDir)
	g.Expect(err).NotTo(HaveOccurred())
	sample.Spec.Image = "registry.example.com/nginx:1.28.0"

	a, b := uniqueFoo(sample, "ns"), uniqueFoo(sample, "ns")
	g.Expect(a.Name).NotTo(Equal(b.Name))
	g.Expect(a.Spec.DeploymentName).NotTo(Equal(b.Spec.DeploymentName))
	g.Expect(a.Name).To(MatchRegexp(`^example-foo-[a-z0-9]{5}$`))
	g.Expect(a.Spec.DeploymentName).To(Equal(a.Name), "one suffix for both, so they are found together")
	g.Expect(a.Namespace).To(Equal("ns"))
	g.Expect(a.Spec.Replicas).To(Equal(sample.Spec.Replicas))
	g.Expect(a.Spec.Image).To(Equal(sample.Spec.Image))
	g.Expect(a.TypeMeta).To(Equal(sample.TypeMeta))
	g.Expect(sample.Name).To(Equal("example-foo"), "the sample is not changed")
}

func TestWithSuffixKeepsNamesValid(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, c := range []struct{ name, want string }{
		{"example-foo", "example-foo-x1y2z"},
		{a(57), a(57) + "-x1y2z"},
		{a(100), a(57) + "-x1y2z"},
		{a(56) + "-b", a(56) + "-x1y2z"},
		{a(55) + ".-b", a(55) + "-x1y2z"},
	} {
		g := NewWithT(t)
		got := withSuffix(c.name, "x1y2z", maxFooName)
		g.Expect(got).To(Equal(c.want))
		g.Expect(validation.IsDNS1123Label(got)).To(BeEmpty())
	}
	g := NewWithT(t)
	long := uniqueFoo(&samplev1alpha1.Foo{Spec: samplev1alpha1.FooSpec{DeploymentName: a(300)}}, "ns")
	g.Expect(long.Spec.DeploymentName).To(HaveLen(maxDeploymentName))
	g.Expect(validation.IsDNS1123Subdomain(long.Spec.DeploymentName)).To(BeEmpty())
}

func TestNamespaceOf(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "namespace")
	g.Expect(os.WriteFile(file, []byte("scorecard-ns\n"), 0o600)).To(Succeed())

	g.Expect(namespaceOf("flag-ns", file)).To(Equal("flag-ns"))
	g.Expect(namespaceOf("", file)).To(Equal("scorecard-ns"))
	_, err := namespaceOf("", filepath.Join(dir, "missing"))
	g.Expect(err).To(MatchError(ContainSubstring("no --namespace")))
	g.Expect(os.WriteFile(file, nil, 0o600)).To(Succeed())
	_, err = namespaceOf("", file)
	g.Expect(err).To(MatchError(ContainSubstring("is empty")))
}
