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
// second of the first request, the window's ends included.
func TestPeakInSlides(t *testing.T) {
	times := at(0, 100, 500, 1000, 1050, 2000)
	if got := peakIn(times, time.Second); got != 4 {
		t.Errorf("peak in 1 s: got %d, want 4", got)
	}
	if got := peakIn(times, 10*time.Second); got != 6 {
		t.Errorf("peak in 10 s: got %d, want 6", got)
	}
	if got := peakIn(nil, time.Second); got != 0 {
		t.Errorf("peak of none: got %d, want 0", got)
	}
}

// TestNearestInAllowsForTheLongestPause checks that each window's bound allows for the
// longest gap between receipts into it or within it, and that the window returned is the
// one nearest its bound.
func TestNearestInAllowsForTheLongestPause(t *testing.T) {
	l := limits{qps: 10, burst: 2}
	// Windows of 1 s, each with its count, its longest gap into it or within it, its bound
	// (2 + 10·(1 s + gap) + 1) and how far short of it: from 0 ms, 3 (900 ms, 22, 19); from
	// 100 ms, 2 (900 ms, 22, 20); from 1000 ms, 4 (900 ms, 22, 18); from 1400 ms, 3 (400 ms,
	// 17, 14); from 1410 ms, 2 (10 ms, 13, 11); from 1420 ms, 1 (10 ms, 13, 12). The nearest
	// is the one from 1410 ms.
	times := at(0, 100, 1000, 1400, 1410, 1420)
	got := nearestIn(times, time.Second, l, 1)
	want := window{at: times[4], count: 2, bound: 13, pause: 10 * time.Millisecond}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := nearestIn(nil, time.Second, l, 1); !got.none() {
		t.Errorf("no requests: got %+v, want no window", got)
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

// whole is one process that ran through every test's requests.
var whole = []span{{from: t0, to: t0.Add(time.Minute)}}

// TestBoundHoldsForClientGoBuckets checks the bound against client-go's own token bucket
// sending as fast as it may, received as sent: within it, and tight (the bucket reaches
// B + Q·w, short of the bound by the requests of the longest pause, 1/Q, and the edge's).
func TestBoundHoldsForClientGoBuckets(t *testing.T) {
	for _, l := range []limits{clientGoDefaults, {qps: 50, burst: 100}, {qps: 20, burst: 30}} {
		sent := sendAtLimit(l, t0, 30*time.Second)
		for i, win := range nearest(sent, whole, l, 1) {
			if least := win.bound - 3; win.over() || win.count < least {
				t.Errorf("%v, window %v: %v, want within the bound and at least %d", l, rateWindows[i], win, least)
			}
		}
	}
}

// afterPauses is when a server that pauses for pause every 2·pause, from t0 + 5 s, receives
// requests sent at sent: those sent while it pauses when the pause ends, all at once.
func afterPauses(sent []time.Time, pause time.Duration) []time.Time {
	received := make([]time.Time, len(sent))
	for i, at := range sent {
		if since := at.Sub(t0.Add(5 * time.Second)); since >= 0 && since%(2*pause) < pause {
			at = at.Add(pause - since%(2*pause))
		}
		received[i] = at
	}
	return received
}

// TestBoundHoldsForServerPauses checks that a bucket sending as fast as it may stays within
// the bound when the server pauses: every request sent while it pauses is received when
// the pause ends, all at once, as kube-apiserver on a busy CPU received them (pauses of up
// to 173 ms, every 370 ms on average: docs/benchmark-history.md).
func TestBoundHoldsForServerPauses(t *testing.T) {
	for _, l := range []limits{clientGoDefaults, {qps: 50, burst: 100}} {
		sent := sendAtLimit(l, t0, 30*time.Second)
		for _, pause := range []time.Duration{20 * time.Millisecond, 173 * time.Millisecond, time.Second, 4 * time.Second} {
			if ws := nearest(afterPauses(sent, pause), whole, l, 1); anyOver(ws) {
				t.Errorf("%v, pauses of %v: %v", l, pause, ws)
			}
		}
	}
}

// TestBucketsPerClientPassTheBound checks that two clients with a bucket each, as
// client-go gives clients that share a rest.Config's QPS and Burst but no RateLimiter,
// pass the bound of one bucket in every window, the server pausing or not, and stay within
// that of two; and that nothing is checked without limits.
func TestBucketsPerClientPassTheBound(t *testing.T) {
	l := clientGoDefaults
	sent := append(sendAtLimit(l, t0, 30*time.Second), sendAtLimit(l, t0, 30*time.Second)...)
	slices.SortFunc(sent, time.Time.Compare)
	for i, win := range nearest(sent, whole, l, 1) {
		if !win.over() {
			t.Errorf("two buckets against the bound of one, window %v: %v, want it passed", rateWindows[i], win)
		}
	}
	if ws := nearest(sent, whole, l, 2); anyOver(ws) {
		t.Errorf("two buckets against the bound of two: %v", ws)
	}
	for i, win := range nearest(afterPauses(sent, 173*time.Millisecond), whole, l, 1) {
		if !win.over() {
			t.Errorf("two buckets against the bound of one, the server pausing, window %v: %v, want it passed", rateWindows[i], win)
		}
	}
	if ws := nearest(sent, whole, limits{qps: -1, burst: 30}, 1); ws != nil {
		t.Errorf("unthrottled: %v, want no check", ws)
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
	if ws := nearest(all, lives, l, 1); anyOver(ws) {
		t.Errorf("each process within its bucket: %v", ws)
	}
	if ws := nearest(all, []span{{from: t0, to: restarted.Add(time.Second)}}, l, 1); !anyOver(ws) {
		t.Errorf("both processes as one: %v, want the bound passed", ws)
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

// TestWorstWindowsPreferAnyWindowToNone checks that a repeat without a window (no
// rate-limited request in it) does not stand as the nearest, at "0 of 0", for a repeat whose
// windows stayed within their bounds; of two windows, the nearer its bound stands.
func TestWorstWindowsPreferAnyWindowToNone(t *testing.T) {
	within := window{at: t0, count: 50, bound: 60}
	nearer := window{at: t0.Add(time.Second), count: 59, bound: 61}
	rs := []result{{nearest: []window{{}, within}}, {nearest: []window{within, nearer}}}
	if got := worstWindows(rs); got[0] != within || got[1] != nearer {
		t.Errorf("got %v, want [%v %v]", got, within, nearer)
	}
}
