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
	"testing"
	"time"

	"k8s.io/client-go/util/flowcontrol"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/example/foo-operator/test/framework"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func at(ms ...int) []time.Time {
	out := make([]time.Time, len(ms))
	for i, m := range ms {
		out[i] = t0.Add(time.Duration(m) * time.Millisecond)
	}
	return out
}

// TestPeakInSlides checks that the window slides over the requests: fixed one-second
// buckets would see 3 in the first second and 2 in the next, where four fall within one
// second of the second request, the window's ends included.
func TestPeakInSlides(t *testing.T) {
	times := at(0, 100, 500, 1000, 1050, 2000)
	if got, from := peakIn(times, time.Second); got != 4 || !from.Equal(times[0]) {
		t.Errorf("peak in 1 s: got %d from %v, want 4 from the first", got, from)
	}
	if got, _ := peakIn(times, 10*time.Second); got != 6 {
		t.Errorf("peak in 10 s: got %d, want 6", got)
	}
	if got, _ := peakIn(nil, time.Second); got != 0 {
		t.Errorf("peak of none: got %d, want 0", got)
	}
}

// sendAtLimit is when a client sends requests as fast as a client-go token bucket of l lets
// it, for d: the most its limits allow.
func sendAtLimit(l limits, from time.Time, d time.Duration) []time.Time {
	clock := clocktesting.NewFakePassiveClock(from)
	bucket := flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(float32(l.qps), l.burst, clock)
	var out []time.Time
	for now := from; now.Before(from.Add(d)); now = now.Add(time.Millisecond) {
		clock.SetTime(now)
		for bucket.TryAccept() {
			out = append(out, now)
		}
	}
	return out
}

// TestBoundHoldsForClientGoBuckets checks the bound against client-go's own token bucket
// sending as fast as it may: within it, and tight (the bucket reaches B + Q·w, short of the
// bound by the requests of arrivalSkew at most).
func TestBoundHoldsForClientGoBuckets(t *testing.T) {
	for _, l := range []limits{clientGoDefaults, {qps: 50, burst: 100}, {qps: 20, burst: 30}} {
		sent := sendAtLimit(l, t0, 30*time.Second)
		got, _ := peaks(sent, []span{{from: t0, to: t0.Add(time.Minute)}})
		for i, w := range rateWindows {
			bound := l.bound(1, w)
			least := bound - 2 - int(l.qps*arrivalSkew.Seconds())
			if got[i] > bound || got[i] < least {
				t.Errorf("%v, window %v: peak %d, want within the bound %d and at least %d", l, w, got[i], bound, least)
			}
		}
		if e := exceeded(l, 1, got); e != nil {
			t.Errorf("%v: exceeded %v", l, e)
		}
	}
}

// TestBoundHoldsForSkewedArrivals checks that a bucket sending as fast as it may stays
// within the bound when the server receives its requests up to arrivalSkew late: the
// requests sent before a moment arrive that much late, those after it on time, which packs
// the most of them into the windows around it.
func TestBoundHoldsForSkewedArrivals(t *testing.T) {
	for _, l := range []limits{clientGoDefaults, {qps: 50, burst: 100}} {
		sent := sendAtLimit(l, t0, 30*time.Second)
		for _, w := range rateWindows {
			packed := t0.Add(5*time.Second + w/2)
			received := make([]time.Time, len(sent))
			for i, at := range sent {
				if at.Before(packed) {
					at = at.Add(arrivalSkew)
				}
				received[i] = at
			}
			slices.SortFunc(received, time.Time.Compare)
			got, _ := peaks(received, []span{{from: t0, to: t0.Add(time.Minute)}})
			if e := exceeded(l, 1, got); e != nil {
				t.Errorf("%v, packed around %v: exceeded %v", l, w, e)
			}
		}
	}
}

// TestExceededCatchesBucketsPerClient checks that two clients with a bucket each, as
// client-go gives clients that share a rest.Config's QPS and Burst but no RateLimiter,
// pass the bound of one bucket, and stay within that of two.
func TestExceededCatchesBucketsPerClient(t *testing.T) {
	l := clientGoDefaults
	sent := append(sendAtLimit(l, t0, 30*time.Second), sendAtLimit(l, t0, 30*time.Second)...)
	slices.SortFunc(sent, time.Time.Compare)
	got, _ := peaks(sent, []span{{from: t0, to: t0.Add(time.Minute)}})
	if e := exceeded(l, 1, got); len(e) != len(rateWindows) {
		t.Errorf("two buckets against the bound of one: got %v, want every window exceeded (peaks %v)", e, got)
	}
	if e := exceeded(l, 2, got); e != nil {
		t.Errorf("two buckets against the bound of two: exceeded %v", e)
	}
	if e := exceeded(limits{qps: -1, burst: 30}, 1, got); e != nil {
		t.Errorf("unthrottled: exceeded %v, want no check", e)
	}
}

// TestPeaksKeepProcessesApart checks that a window does not span two processes: each
// starts with a full bucket of its own, so a restart may send a second burst at once.
func TestPeaksKeepProcessesApart(t *testing.T) {
	l := limits{qps: 1, burst: 30}
	first := sendAtLimit(l, t0, 500*time.Millisecond)
	restarted := t0.Add(600 * time.Millisecond)
	second := sendAtLimit(l, restarted, 500*time.Millisecond)
	all := append(first, second...)
	lives := []span{{from: t0, to: t0.Add(500 * time.Millisecond)}, {from: restarted, to: restarted.Add(500 * time.Millisecond)}}
	apart, _ := peaks(all, lives)
	if e := exceeded(l, 1, apart); e != nil {
		t.Errorf("each process within its bucket: exceeded %v", e)
	}
	together, _ := peaks(all, []span{{from: t0, to: restarted.Add(time.Second)}})
	if e := exceeded(l, 1, together); e == nil {
		t.Errorf("both processes as one: want the bound exceeded")
	}
}

func TestParseLimits(t *testing.T) {
	if l, err := parseLimits("50/100"); err != nil || l != (limits{qps: 50, burst: 100}) {
		t.Errorf("50/100: got %v, %v", l, err)
	}
	if !(limits{qps: -1, burst: 30}).sameAs(limits{qps: -1, burst: 50}) || clientGoDefaults.sameAs(limits{qps: 5, burst: 20}) {
		t.Error("sameAs: no limit is no limit whatever the burst; limits differ by their burst")
	}
	for _, bad := range []string{"50", "0/10", "5/0", "a/b", "-1/30"} {
		if _, err := parseLimits(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// TestRateLimitedLeavesOutWatches checks that the requests counted against the client
// limits are those client-go sends through its bucket: not its watches.
func TestRateLimitedLeavesOutWatches(t *testing.T) {
	for verb, want := range map[string]bool{"watch": false, "list": true, "get": true, "create": true, "patch": true, "update": true} {
		if got := rateLimited(framework.AuditEvent{Verb: verb}); got != want {
			t.Errorf("%s: got %v, want %v", verb, got, want)
		}
	}
}
