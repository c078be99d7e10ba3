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
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// encodings counts how often zap encodes it: a stand-in for a reconcile's Foo.
type encodings struct{ n atomic.Int32 }

func (e *encodings) MarshalLogObject(enc zapcore.ObjectEncoder) error { //nolint:unparam // zapcore.ObjectMarshaler's signature
	e.n.Add(1)
	enc.AddString("namespace", "shop")
	enc.AddString("name", "web")
	return nil
}

// TestLoggerEncodesFieldsWhenItWrites: the operator's logger encodes the key-value pairs of
// WithValues, at every level of it, only when it writes a line, and then once; the line
// carries each pair once. zap's default logger, as a control, encodes them at once.
func TestLoggerEncodesFieldsWhenItWrites(t *testing.T) {
	var out bytes.Buffer
	foo := &encodings{}
	l := newLogger(&zap.Options{DestWriter: &out}).WithValues("controller", "foo").
		WithValues("Foo", foo).WithValues("reconcileID", "r1")
	l.V(1).Info("below the shipped level")
	if n := foo.n.Load(); n != 0 || out.Len() != 0 {
		t.Fatalf("before any line: encoded %d times, wrote %q; want neither", n, out.String())
	}
	l.Info("Created Deployment", "replicas", 3)
	l.Info("Scaled Deployment")
	if n := foo.n.Load(); n != 1 {
		t.Errorf("after two lines: encoded %d times, want once", n)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", out.String())
	}
	for i, msg := range []string{"Created Deployment", "Scaled Deployment"} {
		var got map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v: %q", i, err, lines[i])
		}
		foo, _ := got["Foo"].(map[string]any)
		if got["msg"] != msg || got["controller"] != "foo" || got["reconcileID"] != "r1" || foo["name"] != "web" || foo["namespace"] != "shop" {
			t.Errorf("line %d = %q, want %s with controller, Foo and reconcileID", i, lines[i], msg)
		}
		for _, key := range []string{"controller", "Foo", "reconcileID"} {
			if n := strings.Count(lines[i], `"`+key+`":`); n != 1 {
				t.Errorf("line %d has %s %d times: %q", i, key, n, lines[i])
			}
		}
	}

	eager := &encodings{}
	zap.New(zap.UseFlagOptions(&zap.Options{DestWriter: io.Discard})).WithValues("Foo", eager)
	if n := eager.n.Load(); n != 1 {
		t.Errorf("zap's default logger encoded a pair %d times at WithValues, want once: the control no longer tells eager from lazy", n)
	}
}

// lockedBuffer is a bytes.Buffer that workers write to at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// TestLoggerSharedAcrossWorkers: workers share their controller's logger, which no line has
// been written to yet (as at --zap-log-level=error): checking levels on it while another
// worker writes its first line must not race (go test -race; zap before 1.28 did), and every
// line written carries its worker's pairs and the shared ones.
func TestLoggerSharedAcrossWorkers(t *testing.T) {
	out := &lockedBuffer{}
	shared := newLogger(&zap.Options{DestWriter: out, Level: zapcore.ErrorLevel}).
		WithValues("controller", "foo").WithValues("controllerKind", "Foo")
	const workers, passes, errorEvery = 8, 200, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range passes {
				l := shared.WithValues("worker", w, "reconcileID", i)
				l.V(1).Info("below the level")
				if i%errorEvery == w {
					l.Error(errors.New("conflict"), "Reconciler error")
				}
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSpace(out.buf.String()), "\n")
	if want := workers * passes / errorEvery; len(lines) != want {
		t.Fatalf("%d lines written, want %d", len(lines), want)
	}
	for _, line := range lines {
		var got struct {
			Controller, ControllerKind, Msg string
			Worker, ReconcileID             *int
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("not JSON: %v: %q", err, line)
		}
		if got.Msg != "Reconciler error" || got.Controller != "foo" || got.ControllerKind != "Foo" || got.Worker == nil || got.ReconcileID == nil || *got.ReconcileID%errorEvery != *got.Worker {
			t.Errorf("line %q lacks the shared pairs or its worker's", line)
		}
	}
}

// BenchmarkReconcileLogger measures what a reconcile's logger costs the operator:
// controller-runtime's logger for a request (the Foo, then its namespace and name, then a
// reconcile ID) and a check of a line below the shipped level, with the key-value pairs
// encoded lazily (the operator's logger) and at once (zap's default), for a reconcile that
// writes no line and one that writes one.
func BenchmarkReconcileLogger(b *testing.B) {
	for _, c := range []struct {
		name string
		log  logr.Logger
	}{
		{"lazy", newLogger(&zap.Options{DestWriter: io.Discard})},
		{"eager", zap.New(zap.UseFlagOptions(&zap.Options{DestWriter: io.Discard}))},
	} {
		base := c.log.WithValues("controller", "foo", "controllerGroup", "samplecontroller.example.com", "controllerKind", "Foo")
		for _, written := range []bool{false, true} {
			b.Run(c.name+map[bool]string{false: "/no line", true: "/one line"}[written], func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					l := base.WithValues("Foo", klog.KRef("shop", "web")).WithValues("namespace", "shop", "name", "web").
						WithValues("reconcileID", "0f7c1b9e-5d1c-4a5e-9a3c-2b1f7d3e8a10")
					l.V(1).Info("Deployment is rolling out")
					if written {
						l.Info("Scaled Deployment", "from", 1, "to", 2)
					}
				}
			})
		}
	}
}
