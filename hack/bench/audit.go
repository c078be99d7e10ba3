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

// kwokPodWatch reports whether e began a watch of pods by kwok's controller. kwok 0.8.0
// begins each watch at resourceVersion 0 (a new one each 5 to 10 minutes, as client-go
// times them out), so kube-apiserver first sends it every pod again; at 20,000 pods kwok
// reads them for seconds, and if pods change faster meanwhile than kube-apiserver's buffer
// for the watch holds, it closes the watch for falling behind. kwok watches again, from
// every pod again, as long as pods change that fast: it spends minutes of CPU on the same
// pods and plays pod-ready again on old copies of pods it already made ready.
func kwokPodWatch(e framework.AuditEvent) bool {
	return strings.HasPrefix(e.UserAgent, "kwok-controller/") && e.Verb == "watch" && e.Stage == "ResponseStarted" &&
		e.ObjectRef.APIGroup == "" && e.ObjectRef.Resource == "pods"
}
