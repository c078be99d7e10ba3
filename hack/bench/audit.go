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
	"slices"
	"strings"
	"time"

	"github.com/example/foo-operator/test/framework"
)

// receivedTimes is when each request of l was received, sorted.
func receivedTimes(l framework.AuditLog) []time.Time {
	out := make([]time.Time, len(l))
	for i, e := range l {
		out[i] = e.Received.Time
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}

// kwokPodWatch reports whether e began a watch of pods by kwok's controller. client-go ends
// a watch after 5 to 10 minutes; more of them in a phase mean that kube-apiserver closed
// kwok's for falling behind. kwok 0.8.0 as released began every watch from every pod
// again, which kept it behind for as long as pods changed fast: the project builds it with
// its watches resuming (hack/tools/kwok/resume-watches.sed), and this shows they do.
func kwokPodWatch(e framework.AuditEvent) bool {
	return strings.HasPrefix(e.UserAgent, "kwok-controller/") && e.Verb == "watch" && e.Stage == "ResponseStarted" &&
		e.ObjectRef.APIGroup == "" && e.ObjectRef.Resource == "pods"
}

// components are the user agents' prefixes of the cluster's own components whose writes
// componentWrites counts, and what the report calls each.
var components = []struct{ prefix, name string }{
	{"kube-controller-manager/", "kube-controller-manager"},
	{"kube-scheduler/", "kube-scheduler"},
	{"kwok-controller/", "kwok"},
}

// componentOf is the name of the cluster's component that sent e, or "" for another client.
func componentOf(e framework.AuditEvent) string {
	for _, c := range components {
		if strings.HasPrefix(e.UserAgent, c.prefix) {
			return c.name
		}
	}
	return ""
}
