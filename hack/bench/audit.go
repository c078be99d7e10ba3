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
