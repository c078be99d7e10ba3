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
	"testing"
	"time"
)

func TestMachineChecks(t *testing.T) {
	runs := []result{
		{machine: [2]time.Duration{600 * time.Millisecond, 1100 * time.Millisecond}},
		{machine: [2]time.Duration{1100 * time.Millisecond, 570 * time.Millisecond}},
	}
	if fastest, slowest := machineChecks(runs); fastest != 570*time.Millisecond || slowest != 1100*time.Millisecond {
		t.Errorf("machineChecks = %v, %v; want 570ms, 1.1s", fastest, slowest)
	}
}
