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
	"strings"

	"github.com/operator-framework/api/pkg/manifests"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// namespaceFile holds the namespace of the pod the test runs in.
const namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Limits of the names the test makes: a Foo's name is a label value on its pods, and
// spec.deploymentName is limited by the CRD.
const (
	maxFooName        = 63
	maxDeploymentName = 242
)

// sampleFoo is the first Foo of the alm-examples of the bundle's CSV in dir.
func sampleFoo(dir string) (*samplev1alpha1.Foo, error) {
	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read bundle %s: %w", dir, err)
	}
	if bundle.CSV == nil {
		return nil, fmt.Errorf("bundle %s has no ClusterServiceVersion", dir)
	}
	foo, err := fooFromExamples(bundle.CSV.Annotations["alm-examples"])
	if err != nil {
		return nil, fmt.Errorf("CSV %s: %w", bundle.CSV.Name, err)
	}
	return foo, nil
}

// fooFromExamples is the first Foo of an alm-examples annotation.
func fooFromExamples(examples string) (*samplev1alpha1.Foo, error) {
	var foos []samplev1alpha1.Foo
	if err := json.Unmarshal([]byte(examples), &foos); err != nil {
		return nil, fmt.Errorf("read alm-examples: %w", err)
	}
	for i := range foos {
		if foos[i].APIVersion == samplev1alpha1.GroupVersion.String() && foos[i].Kind == "Foo" {
			return &foos[i], nil
		}
	}
	return nil, fmt.Errorf("alm-examples holds no %s Foo", samplev1alpha1.GroupVersion)
}

// uniqueFoo is a copy of sample to create in namespace, its name and spec.deploymentName
// suffixed with the same random string, so that runs never collide.
func uniqueFoo(sample *samplev1alpha1.Foo, namespace string) *samplev1alpha1.Foo {
	suffix := utilrand.String(5)
	return &samplev1alpha1.Foo{
		TypeMeta: sample.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:        withSuffix(sample.Name, suffix, maxFooName),
			Namespace:   namespace,
			Labels:      sample.Labels,
			Annotations: sample.Annotations,
		},
		Spec: samplev1alpha1.FooSpec{
			DeploymentName: withSuffix(sample.Spec.DeploymentName, suffix, maxDeploymentName),
			Replicas:       sample.Spec.Replicas,
			Image:          sample.Spec.Image,
		},
	}
}

// withSuffix is name-suffix, name shortened so that the whole is at most limit long.
func withSuffix(name, suffix string, limit int) string {
	name = name[:min(len(name), limit-len(suffix)-1)]
	return strings.TrimRight(name, "-.") + "-" + suffix
}

// namespaceOf is the namespace to test in: flagValue, or else the pod's own, read from file.
func namespaceOf(flagValue, file string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("no --namespace and no namespace of the pod: %w", err)
	}
	namespace := strings.TrimSpace(string(b))
	if namespace == "" {
		return "", fmt.Errorf("no --namespace and %s is empty", file)
	}
	return namespace, nil
}
