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
	"testing"

	"github.com/example/foo-operator/test/framework"
)

// TestKwokPodWatch: only the start of kwok's watch of pods counts, as kube-apiserver's audit
// log records it (this one from a benchmark's cluster, shortened).
func TestKwokPodWatch(t *testing.T) {
	const kwok = `"userAgent":"kwok-controller/v0.8.0 (linux/amd64)"`
	for _, c := range []struct {
		event string
		want  bool
	}{
		{`{"stage":"ResponseStarted","verb":"watch",` + kwok + `,"objectRef":{"resource":"pods","apiVersion":"v1"}}`, true},
		{`{"stage":"ResponseComplete","verb":"watch",` + kwok + `,"objectRef":{"resource":"pods","apiVersion":"v1"}}`, false},
		{`{"stage":"ResponseStarted","verb":"watch",` + kwok + `,"objectRef":{"resource":"nodes","apiVersion":"v1"}}`, false},
		{`{"stage":"ResponseComplete","verb":"patch",` + kwok + `,"objectRef":{"resource":"pods","subresource":"status","apiVersion":"v1"}}`, false},
		{`{"stage":"ResponseStarted","verb":"watch","userAgent":"kube-scheduler/v1.35.4 (linux/amd64) kubernetes/8d3f3b1/scheduler","objectRef":{"resource":"pods","apiVersion":"v1"}}`, false},
		{`{"stage":"ResponseStarted","verb":"watch",` + kwok + `,"objectRef":{"resource":"pods","apiGroup":"metrics.k8s.io","apiVersion":"v1beta1"}}`, false},
	} {
		var e framework.AuditEvent
		if err := json.Unmarshal([]byte(c.event), &e); err != nil {
			t.Fatal(err)
		}
		if got := kwokPodWatch(e); got != c.want {
			t.Errorf("kwokPodWatch(%s) = %v, want %v", c.event, got, c.want)
		}
	}
}

// TestComponentOf: the cluster's components are told by their user agents, as kube-apiserver's
// audit log records them; the contenders and the benchmark are not among them.
func TestComponentOf(t *testing.T) {
	for agent, want := range map[string]string{
		"kube-controller-manager/v1.35.4 (linux/amd64) kubernetes/8d3f3b1/deployment-controller": "kube-controller-manager",
		"kube-scheduler/v1.35.4 (linux/amd64) kubernetes/8d3f3b1/scheduler":                      "kube-scheduler",
		"kwok-controller/v0.8.0 (linux/amd64)":                                                   "kwok",
		"manager/v0.0.0 (linux/amd64) kubernetes/$Format":                                        "",
		bareClientUserAgent: "",
		"":                  "",
	} {
		if got := componentOf(framework.AuditEvent{UserAgent: agent}); got != want {
			t.Errorf("componentOf(%q) = %q, want %q", agent, got, want)
		}
	}
}
