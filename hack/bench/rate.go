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
	"math"
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

// bound is the most requests that buckets token buckets of l let through in any window of
// length w, as kube-apiserver stamps them received: each bucket at most B + Q·(w + pause),
// and one more for the token on the window's edge. pause is the longest the server went
// without stamping one of them, into the window or within it: the audit log's times are
// when the server read each request, not when the bucket let it go, and a server that gets
// no CPU for a while reads what was sent meanwhile at once, closer together than sent
// (docs/benchmark-history.md: on a CPU the cluster keeps busy, half the gaps between a
// bucket's requests, sent 20 ms apart, were under 2 ms, between pauses of up to 173 ms). A
// second bucket, which this check exists to catch, adds a whole burst and rate.
func (l limits) bound(buckets int, w, pause time.Duration) int {
	// A token short of whole by float64's error counts: 50/s over 10.08 s is 504 tokens,
	// which float64 makes 503.99999.
	return buckets * (l.burst + int(math.Floor(l.qps*(w+pause).Seconds()+1e-9)) + 1)
}

// window is one window of a contender's requests as the server received them: when it
// began, how many it held, the longest pause between receipts into it or within it, and
// the bound of the contender's buckets there. The zero window is none.
type window struct {
	at           time.Time
	count, bound int
	pause        time.Duration
}

// peakIn is the most of times (sorted) that fall within any window [t, t+w], t any of
// them: a sliding window, which fixed one-second buckets would cut in two.
func peakIn(times []time.Time, w time.Duration) int {
	peak, end := 0, 0
	for start := range times {
		for end < len(times) && times[end].Sub(times[start]) <= w {
			end++
		}
		peak = max(peak, end-start)
	}
	return peak
}

// nearestIn slides a window of w over times (sorted, one process's receipts) and returns
// the window whose count comes nearest the bound of buckets buckets of l there, or passes
// it furthest; none when times are none.
func nearestIn(times []time.Time, w time.Duration, l limits, buckets int) window {
	gap := func(k int) time.Duration { return times[k+1].Sub(times[k]) }
	var (
		nearest window
		longest []int // gaps (k: between times[k] and times[k+1]) in the window, longest first
		end     int
	)
	for start := range times {
		for end < len(times) && times[end].Sub(times[start]) <= w {
			if end > 0 {
				for len(longest) > 0 && gap(longest[len(longest)-1]) <= gap(end-1) {
					longest = longest[:len(longest)-1]
				}
				longest = append(longest, end-1)
			}
			end++
		}
		for len(longest) > 0 && longest[0] < start-1 {
			longest = longest[1:]
		}
		if start > 0 && times[start].Equal(times[start-1]) {
			continue // the window that begins then began with the first received then
		}
		win := window{at: times[start], count: end - start}
		if len(longest) > 0 {
			win.pause = gap(longest[0])
		}
		win.bound = l.bound(buckets, w, win.pause)
		if win.nearer(nearest) {
			nearest = win
		}
	}
	return nearest
}

// span is when one process of a contender ran.
type span struct{ from, to time.Time }

// peaks is the most requests received in any window of each of rateWindows, within any one
// process of a contender's (received, sorted): a window across a restart would hold the
// requests of two processes, each with its own buckets.
func peaks(received []time.Time, lives []span) []int {
	most := make([]int, len(rateWindows))
	for _, life := range lives {
		for i, w := range rateWindows {
			most[i] = max(most[i], peakIn(within(received, life), w))
		}
	}
	return most
}

// nearest is, for each of rateWindows, the window of any one process of a contender's
// (received, sorted) that comes nearest the bound of buckets token buckets of l, or passes
// it furthest; none when l limits nothing.
func nearest(received []time.Time, lives []span, l limits, buckets int) []window {
	if !l.limited() {
		return nil
	}
	out := make([]window, len(rateWindows))
	for _, life := range lives {
		for i, w := range rateWindows {
			if win := nearestIn(within(received, life), w, l, buckets); win.nearer(out[i]) {
				out[i] = win
			}
		}
	}
	return out
}

// within is the part of received (sorted) in life.
func within(received []time.Time, life span) []time.Time {
	from, _ := slices.BinarySearchFunc(received, life.from, time.Time.Compare)
	to, _ := slices.BinarySearchFunc(received, life.to, time.Time.Compare)
	return received[from:to]
}

// over reports whether w's requests passed its bound.
func (w window) over() bool { return w.count > w.bound }

// none reports whether w is the zero window, no window at all.
func (w window) none() bool { return w.at.IsZero() }

// nearer reports whether w comes nearer its bound than o does to its own, or passes it
// further; any window is nearer than none.
func (w window) nearer(o window) bool {
	return !w.none() && (o.none() || w.count-w.bound > o.count-o.bound)
}

// String is w as the report gives it: its requests against its bound, and the pause the
// bound allowed for.
func (w window) String() string {
	return fmt.Sprintf("%d of %d (a pause of %v)", w.count, w.bound, w.pause.Round(time.Millisecond))
}

// anyOver reports whether any of ws passed its bound.
func anyOver(ws []window) bool { return slices.ContainsFunc(ws, window.over) }

// worstWindows is, for each of rateWindows, the window of any of rs that came nearest its
// bound or passed it furthest.
func worstWindows(rs []result) []window {
	worst := slices.Clone(rs[0].nearest)
	for _, r := range rs[1:] {
		for i, win := range r.nearest {
			if win.nearer(worst[i]) {
				worst[i] = win
			}
		}
	}
	return worst
}
