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

func TestParseRepeats(t *testing.T) {
	rc, err := parseRepeats(" 100=3, 2000=2 ", 1)
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]int{100: 3, 2000: 2, 10000: 1} {
		if got := rc.at(n); got != want {
			t.Errorf("at(%d) = %d, want %d", n, got, want)
		}
	}
	if got := rc.most(); got != 3 {
		t.Errorf("most() = %d, want 3", got)
	}
	if rc, err := parseRepeats("100=1", 3); err != nil || rc.at(100) != 1 || rc.at(20) != 3 || rc.most() != 3 {
		t.Errorf("fewer runs at 100 than -repeats: got %v, %v", rc, err)
	}
	if rc, err := parseRepeats("", 2); err != nil || rc.at(100) != 2 || rc.most() != 2 {
		t.Errorf("no list: got %v, %v", rc, err)
	}
	for _, bad := range []string{"100", "100=0", "0=3", "a=1", "100=b", "100=3=4"} {
		if _, err := parseRepeats(bad, 1); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	if _, err := parseRepeats("", 0); err == nil {
		t.Error("-repeats 0: want an error")
	}
}

func TestLastReturned(t *testing.T) {
	began := time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)
	returned := []time.Time{began.Add(3 * time.Second), began.Add(9 * time.Second), began.Add(5 * time.Second)}
	if got := lastReturned(returned, began); got != 9*time.Second {
		t.Errorf("lastReturned = %v, want 9s", got)
	}
	if got := lastReturned(nil, began); got != 0 {
		t.Errorf("lastReturned of no requests = %v, want 0", got)
	}
}
