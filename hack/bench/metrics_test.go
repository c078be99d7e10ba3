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
	"fmt"
	"maps"
	"math"
	"testing"
	"time"
)

// TestQuantile checks histogram_quantile's arithmetic: the bucket the rank falls in and
// linear interpolation within it, from 0 in the first bucket, and the highest finite bound
// when the rank falls in +Inf.
func TestQuantile(t *testing.T) {
	inf := math.Inf(1)
	h := []bucket{{0.1, 10}, {0.5, 30}, {1, 40}, {inf, 40}}
	for _, c := range []struct {
		q, want float64
	}{
		{0.5, 0.3},   // rank 20: 10 into the 20 of (0.1, 0.5]
		{0.99, 0.98}, // rank 39.6: 9.6 into the 10 of (0.5, 1]
		{0.25, 0.1},  // rank 10: all of (0, 0.1]
		{0.1, 0.04},  // rank 4: 4 of the 10 in (0, 0.1]
	} {
		if got := quantile(c.q, h); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("q %v: got %v, want %v", c.q, got, c.want)
		}
	}
	if got := quantile(0.9, []bucket{{0.1, 10}, {inf, 20}}); got != 0.1 {
		t.Errorf("rank in +Inf: got %v, want the highest finite bound 0.1", got)
	}
	if got := quantile(0.5, []bucket{{0.1, 0}, {inf, 0}}); !math.IsNaN(got) {
		t.Errorf("no observations: got %v, want NaN", got)
	}
}

// TestQuantileBeyondBounds checks that a quantile whose rank falls past the last finite
// bound says it is at least that bound, and only then.
func TestQuantileBeyondBounds(t *testing.T) {
	inf := math.Inf(1)
	h := []bucket{{1, 2}, {10, 5}, {inf, 20}}
	for _, c := range []struct {
		q    float64
		want string
	}{
		{0.5, "10s or more"}, // rank 10, past the 5 within 10 s
		{0.25, "10s"},        // rank 5: all of (1 s, 10 s]
		{0.2, "7s"},          // rank 4: 2 of the 3 in (1 s, 10 s]
	} {
		if got := newQuantile(c.q, h).String(); got != c.want {
			t.Errorf("q %v: got %q, want %q", c.q, got, c.want)
		}
	}
	if beyondBounds(0.5, []bucket{{1, 0}, {inf, 0}}) {
		t.Error("no observations: got beyond the bounds")
	}
}

const apiserverScrape = `# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="POST",le="0.1"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="POST",le="1"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="POST",le="+Inf"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="",resource="pods",verb="POST",le="0.1"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="",resource="pods",verb="POST",le="1"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="",resource="pods",verb="POST",le="+Inf"} %d
apiserver_request_duration_seconds_bucket{component="",group="",resource="",subresource="/debug/pprof/profile",verb="GET",le="0.1"} 0
apiserver_request_duration_seconds_bucket{component="",group="",resource="",subresource="/debug/pprof/profile",verb="GET",le="1"} 0
apiserver_request_duration_seconds_bucket{component="",group="",resource="",subresource="/debug/pprof/profile",verb="GET",le="+Inf"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="WATCH",le="0.1"} 0
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="WATCH",le="1"} 0
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="WATCH",le="+Inf"} %d
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="GET",le="0.1"} 7
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="GET",le="1"} 7
apiserver_request_duration_seconds_bucket{component="apiserver",group="apps",resource="deployments",verb="GET",le="+Inf"} 7
apiserver_request_duration_seconds_count{component="apiserver",group="apps",resource="deployments",verb="POST"} 1e+06
# HELP apiserver_longrunning_requests [STABLE] Gauge of all active long-running apiserver requests.
# TYPE apiserver_longrunning_requests gauge
apiserver_longrunning_requests{component="apiserver",group="apps",resource="deployments",scope="cluster",verb="WATCH",version="v1"} 3
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="resource",verb="WATCH",version="v1"} 2
apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="namespace",subresource="exec",verb="CONNECT",version="v1"} 1
`

func scrape(t *testing.T, body string, names ...string) []sample {
	t.Helper()
	s, err := parseSamples(body, names...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAPIServerLatencies checks that the p99 by verb comes from the difference of two
// scrapes, sums the resources of a verb, leaves out the requests that are not for a
// resource and the long-running verbs, and the verbs without requests between the scrapes.
func TestAPIServerLatencies(t *testing.T) {
	names := []string{requestDuration + "_bucket", longRunning}
	// Before: 10 POSTs of Deployments and 10 of pods, all under 0.1 s.
	before := scrape(t, fmt.Sprintf(apiserverScrape, 10, 10, 10, 10, 10, 10, 1, 1), names...)
	// Then 50 more of each: of the 100, 90 under 0.1 s and 10 in (0.1, 1].
	after := scrape(t, fmt.Sprintf(apiserverScrape, 55, 60, 60, 55, 60, 60, 5, 9), names...)
	got := apiserverLatencies(before, after)
	if len(got) != 1 || got[0].verb != "POST" || got[0].requests != 100 {
		t.Fatalf("got %+v, want POST alone, of 100 requests", got)
	}
	// Rank 99: 9 into the 10 of (0.1, 1] → 0.1 + 0.9 × 0.9 = 0.91 s.
	if want := 910 * time.Millisecond; got[0].p99 != want {
		t.Errorf("POST p99: got %v, want %v", got[0].p99, want)
	}
	if w := openWatches(after); w != 5 {
		t.Errorf("open watches: got %d, want 5 (WATCH only, every scope)", w)
	}
}

// TestQueueBetween checks the operator's workqueue figures: controller foo's series only.
func TestQueueBetween(t *testing.T) {
	body := func(n int) string {
		return fmt.Sprintf(`workqueue_queue_duration_seconds_bucket{controller="foo",name="foo",le="0.001"} %d
workqueue_queue_duration_seconds_bucket{controller="foo",name="foo",le="0.01"} %d
workqueue_queue_duration_seconds_bucket{controller="foo",name="foo",le="+Inf"} %d
workqueue_queue_duration_seconds_bucket{controller="other",name="other",le="0.001"} 0
workqueue_queue_duration_seconds_bucket{controller="other",name="other",le="0.01"} 0
workqueue_queue_duration_seconds_bucket{controller="other",name="other",le="+Inf"} 1000
workqueue_work_duration_seconds_bucket{controller="foo",name="foo",le="0.001"} 0
workqueue_work_duration_seconds_bucket{controller="foo",name="foo",le="0.01"} %d
workqueue_work_duration_seconds_bucket{controller="foo",name="foo",le="+Inf"} %d
controller_runtime_max_concurrent_reconciles{controller="foo"} 2
workqueue_depth{controller="foo",name="foo",priority=""} 7
`, n, 2*n, 2*n, 2*n, 2*n)
	}
	names := []string{queueDuration + "_bucket", workDuration + "_bucket", maxWorkers, queueDepth}
	f := queueBetween(scrape(t, body(0), names...), scrape(t, body(100), names...), fooController)
	// Waits: 100 under 1 ms, 100 in (1 ms, 10 ms]; work: all 200 in (1 ms, 10 ms].
	if f.waitP50 != (quantileOf{at: time.Millisecond}) || f.waitP99 != (quantileOf{at: 9820 * time.Microsecond}) || f.workP50 != (quantileOf{at: 5500 * time.Microsecond}) || f.worked != 200 {
		t.Errorf("got %+v", f)
	}
	if w, ok := gauge(scrape(t, body(0), names...), maxWorkers); !ok || w != 2 {
		t.Errorf("workers: got %v, %v", w, ok)
	}
}

// TestParseSamples checks labels with escapes and commas, values in Go's and Prometheus's
// notations, and that other metrics are skipped.
func TestParseSamples(t *testing.T) {
	s := scrape(t, `m{a="x,y",b="say \"hi\"\n",c="back\\slash"} 1.5e+03
m 2
m_other{a="b"} 3
mm 4
m{a="z"} +Inf 1700000000000
`, "m")
	if len(s) != 3 {
		t.Fatalf("got %d samples, want 3: %+v", len(s), s)
	}
	if l := s[0].labels; l["a"] != "x,y" || l["b"] != "say \"hi\"\n" || l["c"] != `back\slash` || s[0].value != 1500 {
		t.Errorf("first: got %+v", s[0])
	}
	if s[1].value != 2 || len(s[1].labels) != 0 || !math.IsInf(s[2].value, 1) {
		t.Errorf("got %+v", s)
	}
	if _, err := parseSamples(`m{a="x} 1`, "m"); err == nil {
		t.Error("an unterminated label value: want an error")
	}
}

// TestPercentile checks the nearest rank: the smallest value that at least q of the values
// do not exceed.
func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // unsorted
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0.001, time.Millisecond}} {
		if got := percentile(ds, c.q); got != c.want {
			t.Errorf("p%v: got %v, want %v", 100*c.q, got, c.want)
		}
	}
	if got := percentile([]time.Duration{3 * time.Second}, 0.99); got != 3*time.Second {
		t.Errorf("one value: got %v", got)
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("none: got %v", got)
	}
	if ds[0] != 100*time.Millisecond {
		t.Error("percentile sorted its argument")
	}
}

// TestFlagDefault checks reading a default from the usage Go's flag package prints, where
// the zero value prints none and a usage may span lines.
func TestFlagDefault(t *testing.T) {
	usage := `Usage of manager:
  -kube-api-burst int
    	Requests in a burst. (default 30)
  -kube-api-qps float
    	Requests per second,
    	at most; negative for none. (default -1)
  -leader-elect
    	Enable leader election.
  -zero int
    	No default printed.
`
	for name, want := range map[string]string{"kube-api-burst": "30", "kube-api-qps": "-1", "zero": "0", "leader-elect": "0"} {
		if got, err := flagDefault(usage, name); err != nil || got != want {
			t.Errorf("%s: got %q, %v, want %q", name, got, err, want)
		}
	}
	if _, err := flagDefault(usage, "kube-api"); err == nil {
		t.Error("a prefix of a flag: want an error")
	}
}

// TestTerminatedWatchersSince: the watches kube-apiserver closed between two scrapes, by
// resource, core resources without a group, and none where the counter did not move.
func TestTerminatedWatchersSince(t *testing.T) {
	before, err := parseSamples(`# TYPE apiserver_terminated_watchers_total counter
apiserver_terminated_watchers_total{group="",resource="pods"} 2
apiserver_terminated_watchers_total{group="apps",resource="deployments"} 1
`, terminatedWatchers)
	if err != nil {
		t.Fatal(err)
	}
	after, err := parseSamples(`apiserver_terminated_watchers_total{group="",resource="pods"} 85
apiserver_terminated_watchers_total{group="apps",resource="deployments"} 1
apiserver_terminated_watchers_total{group="samplecontroller.example.com",resource="foos"} 2
apiserver_longrunning_requests{group="",resource="pods",scope="cluster",subresource="",verb="WATCH"} 7
`, terminatedWatchers, longRunning)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"pods": 83, "samplecontroller.example.com/foos": 2}
	if got := terminatedWatchersSince(before, after); !maps.Equal(got, want) {
		t.Errorf("terminatedWatchersSince = %v, want %v", got, want)
	}
	if got := terminatedWatchersSince(after, after); len(got) != 0 {
		t.Errorf("terminatedWatchersSince of one scrape = %v, want none", got)
	}
}

// TestControllerQueuesBetween checks kube-controller-manager's workqueue figures: each of
// controllerQueues by its name, the other queues left out.
func TestControllerQueuesBetween(t *testing.T) {
	body := func(n int) string {
		return fmt.Sprintf(`workqueue_queue_duration_seconds_bucket{name="deployment",le="0.1"} 0
workqueue_queue_duration_seconds_bucket{name="deployment",le="1"} %d
workqueue_queue_duration_seconds_bucket{name="deployment",le="+Inf"} %d
workqueue_work_duration_seconds_bucket{name="deployment",le="0.1"} 0
workqueue_work_duration_seconds_bucket{name="deployment",le="1"} %d
workqueue_work_duration_seconds_bucket{name="deployment",le="+Inf"} %d
workqueue_work_duration_seconds_bucket{name="replicaset",le="0.1"} %d
workqueue_work_duration_seconds_bucket{name="replicaset",le="1"} %d
workqueue_work_duration_seconds_bucket{name="replicaset",le="+Inf"} %d
workqueue_work_duration_seconds_bucket{name="garbage_collector_graph_changes",le="0.1"} 0
workqueue_work_duration_seconds_bucket{name="garbage_collector_graph_changes",le="1"} 0
workqueue_work_duration_seconds_bucket{name="garbage_collector_graph_changes",le="+Inf"} %d
`, n, n, n, n, 3*n, 3*n, 3*n, 1000*n)
	}
	names := []string{queueDuration + "_bucket", workDuration + "_bucket"}
	qs := controllerQueuesBetween(scrape(t, body(10), names...), scrape(t, body(30), names...))
	if len(qs) != 2 {
		t.Fatalf("got queues %v, want deployment and replicaset", qs)
	}
	// deployment: 20 waits and syncs in (0.1 s, 1 s]; replicaset: 60 syncs under 0.1 s.
	if d := qs["deployment"]; d.worked != 20 || d.waitP50 != (quantileOf{at: 550 * time.Millisecond}) || d.workP99 != (quantileOf{at: 991 * time.Millisecond}) {
		t.Errorf("deployment: got %+v", d)
	}
	if rs := qs["replicaset"]; rs.worked != 60 || rs.waitP50 != (quantileOf{}) || rs.workP50 != (quantileOf{at: 50 * time.Millisecond}) {
		t.Errorf("replicaset: got %+v", rs)
	}
}
