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
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// TestLoggerWritesTheFieldsItWasGiven: the lazily encoded key-value pairs of every level of
// WithValues are in the line a logger writes, once each, and a logger given pairs but never
// written to writes nothing.
func TestLoggerWritesTheFieldsItWasGiven(t *testing.T) {
	var out bytes.Buffer
	base := newLogger(&zap.Options{DestWriter: &out}).WithValues("controller", "foo")
	quiet := base.WithValues("Foo", klog.KRef("shop", "web"), "reconcileID", "r1")
	quiet.V(1).Info("not at the shipped level")
	if out.Len() != 0 {
		t.Fatalf("a logger that wrote no line at its level wrote %q", out.String())
	}

	base.WithValues("Foo", klog.KRef("shop", "api")).WithValues("reconcileID", "r2").Info("Created Deployment", "replicas", 3)
	quiet.Info("Scaled Deployment")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out.String())
	}
	for i, want := range []map[string]any{
		{"msg": "Created Deployment", "controller": "foo", "Foo": map[string]any{"name": "api", "namespace": "shop"}, "reconcileID": "r2", "replicas": 3.0},
		{"msg": "Scaled Deployment", "controller": "foo", "Foo": map[string]any{"name": "web", "namespace": "shop"}, "reconcileID": "r1"},
	} {
		var got map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v: %q", i, err, lines[i])
		}
		for k, v := range want {
			g, _ := json.Marshal(got[k])
			w, _ := json.Marshal(v)
			if !bytes.Equal(g, w) {
				t.Errorf("line %d: %s = %s, want %s (line %q)", i, k, g, w, lines[i])
			}
		}
		if n := strings.Count(lines[i], `"controller"`); n != 1 {
			t.Errorf("line %d has the controller field %d times: %q", i, n, lines[i])
		}
	}
}

// BenchmarkReconcileLogger measures what a reconcile's logger costs the operator when the
// reconcile writes no line: controller-runtime's logger for a request (the Foo, its
// namespace and name, a reconcile ID) and a check of a line below the shipped level, with
// the key-value pairs encoded lazily (the operator's logger) and at once (zap's default).
func BenchmarkReconcileLogger(b *testing.B) {
	for _, c := range []struct {
		name string
		log  logr.Logger
	}{
		{"lazy", newLogger(&zap.Options{DestWriter: io.Discard})},
		{"eager", zap.New(zap.UseFlagOptions(&zap.Options{DestWriter: io.Discard}))},
	} {
		base := c.log.WithValues("controller", "foo", "controllerGroup", "samplecontroller.example.com", "controllerKind", "Foo")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l := base.WithValues("Foo", klog.KRef("shop", "web"), "namespace", "shop", "name", "web").WithValues("reconcileID", "0f7c1b9e-5d1c-4a5e-9a3c-2b1f7d3e8a10")
				l.V(1).Info("Deployment is rolling out")
			}
		})
	}
}
