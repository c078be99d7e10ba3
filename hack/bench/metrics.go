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
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample is one line of Prometheus's text format: a metric's name, its labels and value.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseSamples parses the lines of the metrics named in names out of a scrape in
// Prometheus's text format; the rest (kube-apiserver's run to megabytes) it skips unread.
func parseSamples(body string, names ...string) ([]sample, error) {
	var out []sample
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		end := strings.IndexAny(line, "{ ")
		if end < 0 || !slices.Contains(names, line[:end]) {
			continue
		}
		s := sample{name: line[:end], labels: map[string]string{}}
		rest := line[end:]
		if rest[0] == '{' {
			var err error
			if rest, err = parseLabels(rest[1:], s.labels); err != nil {
				return nil, fmt.Errorf("metric %q: %w", line, err)
			}
		}
		value, _, _ := strings.Cut(strings.TrimSpace(rest), " ") // a timestamp may follow
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("metric %q: %w", line, err)
		}
		s.value = v
		out = append(out, s)
	}
	return out, nil
}

// parseLabels reads `name="value",...}` into labels and returns what follows the brace.
func parseLabels(s string, labels map[string]string) (string, error) {
	for {
		s = strings.TrimLeft(s, ", ")
		if strings.HasPrefix(s, "}") {
			return s[1:], nil
		}
		name, rest, ok := strings.Cut(s, `="`)
		if !ok {
			return "", fmt.Errorf("no label value in %q", s)
		}
		var value strings.Builder
		i := 0
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) { // \\, \" or \n
				i++
				if rest[i] == 'n' {
					value.WriteByte('\n')
					continue
				}
			}
			value.WriteByte(rest[i])
		}
		if i == len(rest) {
			return "", fmt.Errorf("unterminated label value in %q", s)
		}
		labels[name] = value.String()
		s = rest[i+1:]
	}
}

// bucket is one bucket of a Prometheus histogram: the observations at most le, cumulative.
type bucket struct {
	le    float64
	count float64
}

// histograms sums the buckets of histogram metric name (its _bucket lines) over the series
// keep accepts, by the value of label by ("" for one sum of all).
func histograms(samples []sample, name string, keep func(labels map[string]string) bool, by string) map[string][]bucket {
	sums := map[string]map[float64]float64{}
	for _, s := range samples {
		if s.name != name+"_bucket" || !keep(s.labels) {
			continue
		}
		le, err := strconv.ParseFloat(s.labels["le"], 64)
		if err != nil {
			continue
		}
		key := s.labels[by]
		if sums[key] == nil {
			sums[key] = map[float64]float64{}
		}
		sums[key][le] += s.value
	}
	out := map[string][]bucket{}
	for key, byLE := range sums {
		for _, le := range slices.Sorted(maps.Keys(byLE)) {
			out[key] = append(out[key], bucket{le: le, count: byLE[le]})
		}
	}
	return out
}

// since is the observations of after that came after before: the difference of two
// scrapes of one histogram, bucket by bucket.
func since(after, before []bucket) []bucket {
	out := slices.Clone(after)
	for i := range out {
		if j := slices.IndexFunc(before, func(b bucket) bool { return b.le == out[i].le }); j >= 0 {
			out[i].count -= before[j].count
		}
	}
	return out
}

// quantile is the q-quantile of a histogram's buckets (sorted, the last +Inf), as
// Prometheus's histogram_quantile computes it: the bucket the rank falls in, and linear
// interpolation within it (from 0 for the first); the highest finite bound when the rank
// falls in +Inf; NaN without observations.
func quantile(q float64, buckets []bucket) float64 {
	if len(buckets) < 2 || !math.IsInf(buckets[len(buckets)-1].le, 1) {
		return math.NaN()
	}
	total := buckets[len(buckets)-1].count
	if total == 0 {
		return math.NaN()
	}
	if beyondBounds(q, buckets) {
		return buckets[len(buckets)-2].le
	}
	rank := q * total
	b := slices.IndexFunc(buckets, func(b bucket) bool { return b.count >= rank })
	if b == 0 && buckets[0].le <= 0 {
		return buckets[0].le
	}
	start, below := 0.0, 0.0
	if b > 0 {
		start, below = buckets[b-1].le, buckets[b-1].count
	}
	return start + (buckets[b].le-start)*(rank-below)/(buckets[b].count-below)
}

// beyondBounds reports whether the rank of the q-quantile of a histogram's buckets falls in
// +Inf, where quantile gives the highest finite bound: the quantile is at least that.
func beyondBounds(q float64, buckets []bucket) bool {
	if len(buckets) < 2 {
		return false
	}
	total := buckets[len(buckets)-1].count
	return total > 0 && buckets[len(buckets)-2].count < q*total
}

// observations is the observations of a histogram: its +Inf bucket.
func observations(buckets []bucket) float64 {
	if len(buckets) == 0 {
		return 0
	}
	return buckets[len(buckets)-1].count
}

// percentile is the q-percentile (0 < q ≤ 1) of ds by the nearest rank: the smallest value
// that at least q of them do not exceed. Zero when there are none.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// verbLatency is the p99 of kube-apiserver's request latency for one verb.
type verbLatency struct {
	verb     string
	requests float64
	p99      time.Duration
}

// The kube-apiserver metrics the benchmark reads.
const (
	requestDuration = "apiserver_request_duration_seconds"
	longRunning     = "apiserver_longrunning_requests"
	// terminatedWatchers counts the watches kube-apiserver closed because their client did
	// not read the events sent to it fast enough, by group and resource.
	terminatedWatchers = "apiserver_terminated_watchers_total"
)

// terminatedWatchersSince is how many watches kube-apiserver closed for falling behind
// between two scrapes, by resource ("pods", "apps/deployments"); none when it closed none.
func terminatedWatchersSince(before, after []sample) map[string]int {
	count := func(samples []sample, sign float64, into map[string]float64) {
		for _, s := range samples {
			if s.name == terminatedWatchers {
				into[strings.TrimPrefix(s.labels["group"]+"/"+s.labels["resource"], "/")] += sign * s.value
			}
		}
	}
	diff := map[string]float64{}
	count(after, 1, diff)
	count(before, -1, diff)
	out := map[string]int{}
	for resource, n := range diff {
		if n > 0 {
			out[resource] = int(n)
		}
	}
	return out
}

// apiserverLatencies is the p99 of the latency of the requests kube-apiserver served between
// two scrapes, by verb, from apiserver_request_duration_seconds: requests for resources
// only (not /metrics, /healthz, /debug/pprof: the benchmark's own profiles would be
// requests of seconds) and not the long-running WATCH and CONNECT, whose duration is the
// connection's. Verbs without requests are left out.
func apiserverLatencies(before, after []sample) []verbLatency {
	keep := func(l map[string]string) bool {
		return l["resource"] != "" && l["verb"] != "WATCH" && l["verb"] != "CONNECT"
	}
	was := histograms(before, requestDuration, keep, "verb")
	var out []verbLatency
	for verb, buckets := range histograms(after, requestDuration, keep, "verb") {
		d := since(buckets, was[verb])
		if n := observations(d); n > 0 {
			out = append(out, verbLatency{verb: verb, requests: n, p99: fromSeconds(quantile(0.99, d))})
		}
	}
	slices.SortFunc(out, func(a, b verbLatency) int { return cmp.Compare(a.verb, b.verb) })
	return out
}

// openWatches is the watches kube-apiserver served at a scrape: its long-running requests
// of verb WATCH, summed over every resource and scope.
func openWatches(samples []sample) int {
	total := 0.0
	for _, s := range samples {
		if s.name == longRunning && s.labels["verb"] == "WATCH" {
			total += s.value
		}
	}
	return int(total)
}

// The operator's controller-runtime metrics of its controller "foo" the benchmark reads.
const (
	queueDuration = "workqueue_queue_duration_seconds"
	workDuration  = "workqueue_work_duration_seconds"
	queueDepth    = "workqueue_depth"
	maxWorkers    = "controller_runtime_max_concurrent_reconciles"
)

// fooController keeps the series of the operator's controller "foo".
func fooController(l map[string]string) bool { return l["controller"] == "foo" }

// queueFigures are a workqueue between two scrapes: the p50 and p99 of the time an item
// waited in the queue and of the time its work took, how many items were worked on, and (the
// operator's, while it converged the Foos) the deepest the queue was when sampled.
type queueFigures struct {
	waitP50, waitP99, workP50, workP99 quantileOf
	worked                             float64
	maxDepth                           int
}

// quantileOf is a quantile of a histogram of durations: at, or at least at when its rank
// falls past the histogram's last finite bound (beyondBounds), which at then is.
type quantileOf struct {
	at      time.Duration
	atLeast bool
}

// newQuantile is the q-quantile of a histogram's buckets of seconds.
func newQuantile(q float64, buckets []bucket) quantileOf {
	return quantileOf{at: fromSeconds(quantile(q, buckets)), atLeast: beyondBounds(q, buckets)}
}

// String is at to two significant digits, and "or more" when it is a bound the quantile
// passed.
func (q quantileOf) String() string {
	if q.atLeast {
		return twoDigits(q.at).String() + " or more"
	}
	return twoDigits(q.at).String()
}

// queueBetween computes the figures of the workqueue whose series keep selects between
// two scrapes of its process's metrics.
func queueBetween(before, after []sample, keep func(map[string]string) bool) queueFigures {
	var f queueFigures
	for _, h := range []struct {
		name     string
		p50, p99 *quantileOf
	}{{queueDuration, &f.waitP50, &f.waitP99}, {workDuration, &f.workP50, &f.workP99}} {
		d := since(histograms(after, h.name, keep, "")[""], histograms(before, h.name, keep, "")[""])
		*h.p50, *h.p99 = newQuantile(0.5, d), newQuantile(0.99, d)
		if h.name == workDuration {
			f.worked = observations(d)
		}
	}
	return f
}

// controllerQueues are kube-controller-manager's workqueues the benchmark reads: those of its
// Deployment and ReplicaSet controllers, which roll out every contender's Deployments
// (client-go's workqueue metrics, by queue name).
var controllerQueues = []string{"deployment", "replicaset"}

// controllerQueuesBetween computes the figures of each of controllerQueues between two
// scrapes of kube-controller-manager's metrics.
func controllerQueuesBetween(before, after []sample) map[string]queueFigures {
	out := map[string]queueFigures{}
	for _, q := range controllerQueues {
		out[q] = queueBetween(before, after, func(l map[string]string) bool { return l["name"] == q })
	}
	return out
}

// gauge is the value of the operator's gauge name of controller "foo", and whether there
// is one.
func gauge(samples []sample, name string) (float64, bool) {
	i := slices.IndexFunc(samples, func(s sample) bool { return s.name == name && fooController(s.labels) })
	if i < 0 {
		return 0, false
	}
	return samples[i].value, true
}

// fromSeconds converts a metric's seconds to a duration; NaN (no observations) to zero.
func fromSeconds(v float64) time.Duration {
	if math.IsNaN(v) {
		return 0
	}
	return time.Duration(math.Round(v * float64(time.Second)))
}
