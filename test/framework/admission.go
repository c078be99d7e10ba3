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

package framework

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// InvalidFoo is a Foo the API server must refuse at admission, and what its answer must
// say: the field, and what to fix.
type InvalidFoo struct {
	Description string
	// Name is its metadata.name.
	Name string
	// Spec is its spec: a map, a value of another type, or nil for none.
	Spec any
	// Field and Message are in the API server's answer.
	Field, Message string
}

// Object is the Foo in namespace.
func (f InvalidFoo) Object(namespace string) *unstructured.Unstructured {
	return FooObject(namespace, f.Name, f.Spec)
}

// FooObject is a Foo as unstructured content, so that its spec may hold values of the wrong
// type; a nil spec leaves it out.
func FooObject(namespace, name string, spec any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.example.com/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"name": name, "namespace": namespace},
	}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// FooSpec is a valid spec (sample-controller's example) with overrides: a nil value removes
// its field.
func FooSpec(overrides map[string]any) map[string]any {
	spec := map[string]any{"deploymentName": "web", "replicas": int64(1)}
	for k, v := range overrides {
		if v == nil {
			delete(spec, k)
		} else {
			spec[k] = v
		}
	}
	return spec
}

// InvalidFoos are the hostile inputs the envtest suite (controllers) and the chaos suite
// send, as kubectl sends them: with strict field validation.
func InvalidFoos() []InvalidFoo {
	// field is an invalid Foo whose spec sets field to value.
	field := func(description, field string, value any, message string) InvalidFoo {
		return InvalidFoo{description, "a", FooSpec(map[string]any{field: value}), "spec." + field, message}
	}
	name := func(description string, value any, message string) InvalidFoo {
		return field(description, "deploymentName", value, message)
	}
	replicas := func(description string, value any, message string) InvalidFoo {
		return field(description, "replicas", value, message)
	}
	image := func(description string, value any, message string) InvalidFoo {
		return field(description, "image", value, message)
	}
	const badName = "deploymentName must be a valid Deployment name"
	const badImage = "image must be empty (the operator's default image) or a container image reference"
	return []InvalidFoo{
		{"no spec", "a", nil, "spec", "Required value"},
		name("no deploymentName", nil, "Required value"),
		name("empty deploymentName", "", "at least 1 chars long"),
		name("uppercase deploymentName", "Web", badName),
		name("underscore in deploymentName", "my_web", badName),
		name("deploymentName starting with a dash", "-web", badName),
		name("deploymentName ending with a dot", "web.", badName),
		name("deploymentName starting with a dot", ".web", badName),
		name("deploymentName in unicode", "wëb-ünïcödé", badName),
		name("deploymentName with a slash", "team/web", badName),
		name("deploymentName with a space", "my web", badName),
		name("deploymentName too long for a name", strings.Repeat("w", 254), "Too long"),
		name("deploymentName too long for its ReplicaSets' names (243)", strings.Repeat("w", 243), "deploymentName must be at most 242 characters"),
		name("deploymentName of the wrong type", int64(5), "must be of type string"),
		replicas("negative replicas", int64(-1), "greater than or equal to 0"),
		replicas("too many replicas", int64(101), "less than or equal to 100"),
		replicas("replicas of 2^31, past int32", int64(1)<<31, "less than or equal to 100"),
		replicas("replicas as a string", "three", "must be of type integer"),
		replicas("fractional replicas", 1.5, "must be of type integer"),
		image("image with a space", "nginx latest", badImage),
		image("image with an uppercase repository", "NGINX:1.28", badImage),
		image("image with an empty tag", "nginx:", badImage),
		image("image with a short digest", "nginx@sha256:abc", badImage),
		image("image with a URL scheme", "https://registry.example.com/nginx:1.28", badImage),
		image("image with a tag of 129 characters", "nginx:"+strings.Repeat("t", 129), badImage),
		image("image of the wrong type", int64(1), "must be of type string"),
		image("image too long", "nginx:"+strings.Repeat("1", 600), "Too long"),
		{"Foo name too long for a label value", strings.Repeat("f", 64), FooSpec(nil), "metadata.name must be at most 63 characters", "label value"},
		{"Foo name in uppercase", "Web", FooSpec(nil), "metadata.name", "a lowercase RFC 1123 subdomain"},
		field("a misspelt field (strict validation, as kubectl)", "replica", int64(3), "unknown field"),
		{"spec of the wrong type", "a", "web", "spec", "must be of type object"},
	}
}
