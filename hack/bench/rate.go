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
	"slices"
	"strconv"
	"strings"
	"time"
)

// limits are a client's rate limits: requests per second and burst; a negative qps is none.
type limits struct {
	qps   float64
	burst int
}

// clientGoDefaults are client-go's limits for a rest.Config that sets none: what
// sample-controller runs with (it has no flag to change them).
var clientGoDefaults = limits{qps: 5, burst: 10}

func (l limits) String() string {
	if l.qps < 0 {
		return "unthrottled"
	}
	return fmt.Sprintf("%g/%d", l.qps, l.burst)
}

// limited reports whether l limits anything.
func (l limits) limited() bool { return l.qps > 0 }

// sameAs reports whether l and o limit alike: equal, or neither limiting (the burst of no
// limit means nothing).
func (l limits) sameAs(o limits) bool { return l == o || !l.limited() && !o.limited() }

// parseLimits parses "Q/B": qps Q, burst B.
func parseLimits(s string) (limits, error) {
	q, b, ok := strings.Cut(s, "/")
	qps, errQ := strconv.ParseFloat(q, 64)
	burst, errB := strconv.Atoi(b)
	if !ok || errQ != nil || errB != nil || qps <= 0 || burst <= 0 {
		return limits{}, fmt.Errorf("%q: want qps/burst, both positive", s)
	}
	return limits{qps: qps, burst: burst}, nil
}

// rateWindows are the lengths of the sliding windows in which requests are counted against
// the client limits: a token bucket of qps Q and burst B lets through at most B + Q·w
// requests in any window of w, so one second tests the burst and ten seconds the rate.
var rateWindows = []time.Duration{time.Second, 10 * time.Second}

// arrivalSkew is how much closer together than their client sent them the requests of one
// window may reach kube-apiserver: the audit log's times are when the server received each
// request, not when the client's bucket let it go, and on a machine whose CPUs the cluster
// keeps busy some requests wait longer than others to be read. In a development run the bare
// client, whose one bucket is client-go's own, was counted 602 requests within 10 s against
// the 601 its bucket lets through (docs/benchmark-history.md); a second bucket, which this
// check exists to catch, adds a whole burst and rate.
const arrivalSkew = 100 * time.Millisecond

// bound is the most requests that buckets token buckets of l let through in any window of
// length w, as the server sees them: each at most B + Q·(w + arrivalSkew), and one more for
// the token that arrives on the window's edge.
func (l limits) bound(buckets int, w time.Duration) int {
	return buckets * (l.burst + int(l.qps*(w+arrivalSkew).Seconds()) + 1)
}

// peakIn is the most of times (sorted) that fall within any window [t, t+w], t any of
// them, and the t of the first such window: a sliding window, which fixed one-second
// buckets would cut in two.
func peakIn(times []time.Time, w time.Duration) (int, time.Time) {
	peak, end := 0, 0
	var at time.Time
	for start := range times {
		for end < len(times) && times[end].Sub(times[start]) <= w {
			end++
		}
		if end-start > peak {
			peak, at = end-start, times[start]
		}
	}
	return peak, at
}

// span is when one process of a contender ran.
type span struct{ from, to time.Time }

// peaks is the most requests received in any window of each of rateWindows, within any one
// process of a contender's (received, sorted), and when that window began: a window across
// a restart would hold the requests of two processes, each with its own buckets.
func peaks(received []time.Time, lives []span) ([]int, []time.Time) {
	most := make([]int, len(rateWindows))
	at := make([]time.Time, len(rateWindows))
	for _, life := range lives {
		from, _ := slices.BinarySearchFunc(received, life.from, time.Time.Compare)
		to, _ := slices.BinarySearchFunc(received, life.to, time.Time.Compare)
		for i, w := range rateWindows {
			if peak, start := peakIn(received[from:to], w); peak > most[i] {
				most[i], at[i] = peak, start
			}
		}
	}
	return most, at
}

// exceeded describes each window of rateWindows in which peak requests passed the bound of
// buckets token buckets of l; none when l limits nothing.
func exceeded(l limits, buckets int, peak []int) []string {
	if !l.limited() {
		return nil
	}
	var out []string
	for i, w := range rateWindows {
		if bound := l.bound(buckets, w); peak[i] > bound {
			out = append(out, fmt.Sprintf("%d requests within %v, over the bound of %d", peak[i], w, bound))
		}
	}
	return out
}
