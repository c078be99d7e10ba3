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
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
)

func TestParseArgs(t *testing.T) {
	g := NewWithT(t)
	name, opts, err := parseArgs([]string{"foo-serves"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(name).To(Equal(fooServesName))
	g.Expect(opts).To(Equal(options{bundleDir: "/bundle", stepTimeout: 90 * time.Second}))

	name, opts, err = parseArgs([]string{"--namespace", "ns", "foo-serves", "--step-timeout=5s", "--bundle", "b"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(name).To(Equal(fooServesName))
	g.Expect(opts).To(Equal(options{bundleDir: "b", namespace: "ns", stepTimeout: 5 * time.Second}))

	_, _, err = parseArgs([]string{"foo-serves", "other"})
	g.Expect(err).To(MatchError(ContainSubstring("one test name expected")))
	_, _, err = parseArgs([]string{"--step-timeout", "soon", "foo-serves"})
	g.Expect(err).To(HaveOccurred())
}

func TestUnknownTestFailsNamingTheKnownOne(t *testing.T) {
	g := NewWithT(t)
	for _, name := range []string{"", "basic-check-spec"} {
		status := runTest(context.Background(), name, options{})
		g.Expect(status.Results).To(HaveLen(1))
		g.Expect(status.Results[0].State).To(Equal(scapiv1alpha3.FailState))
		g.Expect(status.Results[0].Errors).To(ConsistOf(ContainSubstring(fooServesName)))
	}
}

func TestFooServesHasItsStepsInOrder(t *testing.T) {
	g := NewWithT(t)
	var names []string
	for _, s := range (&servesTest{}).test().steps {
		names = append(names, s.name)
	}
	g.Expect(names).To(Equal([]string{stepCreate, stepReady, stepServe, stepScale, stepDelete}))
}

// TestOutputOfAFailedStep checks the JSON the pod prints, as scorecard reads it, when a step
// of foo-serves fails.
func TestOutputOfAFailedStep(t *testing.T) {
	g := NewWithT(t)
	failing := test{
		name: fooServesName,
		steps: []step{
			{stepCreate, func(context.Context) error { return nil }},
			{stepReady, func(context.Context) error { return errors.New("Ready=False (RolloutInProgress)") }},
		},
		cleanup: func(context.Context) {},
	}
	var out bytes.Buffer
	g.Expect(printStatus(&out, statusOf(failing.run(context.Background(), time.Second, &testLog{})))).To(Succeed())

	var status scapiv1alpha3.TestStatus
	g.Expect(json.Unmarshal(out.Bytes(), &status)).To(Succeed())
	g.Expect(status.Results).To(HaveLen(1))
	result := status.Results[0]
	g.Expect(result.Name).To(Equal(fooServesName))
	g.Expect(result.State).To(Equal(scapiv1alpha3.FailState))
	g.Expect(result.Errors).To(ConsistOf(`step "wait for Ready" failed: Ready=False (RolloutInProgress)`))
	g.Expect(result.Log).To(ContainSubstring(`step "create the sample Foo": passed in`))
	g.Expect(result.CreationTimestamp.IsZero()).To(BeFalse())

	var raw map[string][]map[string]any
	g.Expect(json.Unmarshal(out.Bytes(), &raw)).To(Succeed())
	g.Expect(raw["results"][0]).To(HaveKeyWithValue("state", "fail"))
}
