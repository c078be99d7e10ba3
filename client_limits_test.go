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
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// Every client built from the config waits on one bucket, and the event recorder's share of
// it gets a token only once the others' callers stop waiting and the bucket is full again:
// the events of a burst of writes are sent after the writes. No limit leaves client-go's
// defaults alone.
func TestShareClientLimits(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()

	unlimited := &rest.Config{}
	g.Expect(shareClientLimits(unlimited, -1, 30)).To(BeNil())
	g.Expect(unlimited.RateLimiter).To(BeNil())
	g.Expect(unlimited.QPS).To(BeNumerically("<", 0))

	// 5 tokens a second, so that a token comes every 200 ms.
	cfg := &rest.Config{}
	b := shareClientLimits(cfg, 5, 1)
	g.Expect(cfg.RateLimiter).NotTo(BeNil())
	g.Expect(b).NotTo(BeNil())
	g.Expect(contend(t, cfg.RateLimiter, yielding{*b})).To(Equal(append(slices.Repeat([]string{"write"}, 6), "event")))

	// An event leaves the bucket's burst to the writes: it waits until the bucket is full
	// again (1 token a second, so 1 s for the token a write took).
	burst := &rest.Config{}
	b = shareClientLimits(burst, 1, 3)
	eventLimiter := yielding{*b}
	g.Expect(burst.RateLimiter.Wait(ctx)).To(Succeed())
	early, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	g.Expect(eventLimiter.Wait(early)).To(MatchError(context.DeadlineExceeded), "2 of 3 tokens left")
	g.Expect(eventLimiter.Wait(ctx)).To(Succeed())
	g.Expect(b.tokens()).To(BeNumerically("<", 3))

	// An event that waits for a token gives up when its context ends.
	slow := &rest.Config{}
	eventLimiter = yielding{*shareClientLimits(slow, 1, 1)}
	g.Expect(slow.RateLimiter.Wait(ctx)).To(Succeed(), "the burst's token: the next comes in 1 s")
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	g.Expect(eventLimiter.Wait(short)).To(MatchError(context.DeadlineExceeded))
}

// contend has two writers take 3 tokens each from bucket in turn, as the reconciler's workers
// would, once the bucket is empty, and an event wait on eventLimiter once the first write was
// sent; it returns the order in which they got their tokens.
func contend(t *testing.T, bucket, eventLimiter flowcontrol.RateLimiter) []string {
	g := NewWithT(t)
	ctx := t.Context()
	g.Expect(bucket.Wait(ctx)).To(Succeed(), "a token: the bucket is empty now")
	var mu sync.Mutex
	var order []string
	took := func(lane string) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, lane)
	}
	var writes sync.WaitGroup
	for range 2 {
		writes.Go(func() {
			for range 3 {
				if bucket.Wait(ctx) == nil {
					took("write")
				}
			}
		})
	}
	// Once one has sent, the other waits for the next token, and the one that sent for the
	// token after it.
	g.Eventually(func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(order)
	}).Should(BeNumerically(">=", 1))
	event := make(chan error, 1)
	go func() {
		err := eventLimiter.Wait(ctx)
		took("event")
		event <- err
	}()
	g.Eventually(event).WithTimeout(10 * time.Second).Should(Receive(BeNil()))
	writes.Wait()
	mu.Lock()
	defer mu.Unlock()
	return order
}

// With or without a client limit, an event waits while Foos wait for a worker, counted as
// waiting for its turn, and goes once none does: the writes that converge Foos go first.
// Under a limit it also waits for the bucket to be full.
func TestEventsWaitForIdleWorkers(t *testing.T) {
	for name, qps := range map[string]float64{"no client limit": -1, "a client limit": 1} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			var idle atomic.Bool
			inner := &slowSink{release: make(chan struct{}, 1)}
			limit := shareClientLimits(&rest.Config{}, qps, 10)
			sink := &inTurn{EventSink: inner, idle: idle.Load, limit: limit}
			sent := make(chan error, 1)
			go func() {
				_, err := sink.Create(t.Context(), &eventsv1.Event{})
				sent <- err
			}()
			inner.release <- struct{}{}
			g.Consistently(sent).WithTimeout(3*yieldingPoll).ShouldNot(Receive(), "Foos wait")
			g.Expect(sink.waiting.Load()).To(BeEquivalentTo(1))
			if limit != nil {
				// A write's token: the next comes in 1 s.
				g.Expect(limit.TryAccept()).To(BeTrue())
			}
			idle.Store(true)
			if limit != nil {
				g.Consistently(sent).WithTimeout(3*yieldingPoll).ShouldNot(Receive(), "the bucket is not full")
			}
			g.Eventually(sent).WithTimeout(2*time.Second).Should(Receive(BeNil()), "no Foo waits, the bucket is full")
		})
	}
}

// The events' client lets its requests through only at a full bucket under a client limit,
// and with no limit at all otherwise (not client-go's default 5 per second), and gives each
// eventTimeout.
func TestEventsClient(t *testing.T) {
	g := NewWithT(t)
	cfg := &rest.Config{Host: "https://127.0.0.1:6443"}
	limit := shareClientLimits(cfg, 5, 10)
	for _, c := range []struct {
		limit   *bucket
		limiter any
	}{{limit, yielding{}}, {nil, flowcontrol.NewFakeAlwaysRateLimiter()}} {
		client, err := eventsClient(cfg, &http.Client{}, c.limit)
		g.Expect(err).NotTo(HaveOccurred())
		rc := client.RESTClient().(*rest.RESTClient)
		g.Expect(rc.GetRateLimiter()).To(BeAssignableToTypeOf(c.limiter))
		g.Expect(rc.Client.Timeout).To(Equal(eventTimeout))
	}
}

// Once maxWaitingEvents events wait for their turn, the reconciler's recorder drops the
// next and counts it; below, it records it.
func TestShedding(t *testing.T) {
	g := NewWithT(t)
	sink := &inTurn{}
	fake := events.NewFakeRecorder(1)
	recorder := shedding{EventRecorder: fake, sink: sink, stopped: t.Context()}
	foo := &samplev1alpha1.Foo{}
	dropped := testutil.ToFloat64(eventsDropped)

	recorder.Eventf(foo, nil, corev1.EventTypeNormal, "Tested", "Test", "sent %d", 1)
	g.Expect(fake.Events).To(Receive(Equal("Normal Tested sent 1")))
	sink.waiting.Store(maxWaitingEvents)
	recorder.Eventf(foo, nil, corev1.EventTypeNormal, "Tested", "Test", "sent %d", 2)
	g.Expect(fake.Events).NotTo(Receive())
	g.Expect(testutil.ToFloat64(eventsDropped)).To(Equal(dropped + 1))
}

// Once stopped, the recorder drops the events waiting for their turn and those recorded
// later, counted, sending none of them, and its Start returns once the request under way
// returned: the manager releases the Lease after that.
func TestEventsStop(t *testing.T) {
	g := NewWithT(t)
	var idle atomic.Bool
	recorder, inner, foo, dropped := newTestRecorder(t, idle.Load)

	// Idle: the first event is sent, its request under way; then a Foo waits.
	idle.Store(true)
	recorder.Eventf(foo, nil, corev1.EventTypeNormal, "Tested", "Test", "sent")
	g.Eventually(inner.now.Load).WithTimeout(time.Second).Should(BeEquivalentTo(1))
	idle.Store(false)
	// Each a reason of its own: client-go's recorder makes a series of events alike.
	for _, reason := range []string{"Waiting1", "Waiting2", "Waiting3"} {
		recorder.Eventf(foo, nil, corev1.EventTypeNormal, reason, "Test", "waiting")
	}
	g.Eventually(recorder.sink.waiting.Load).WithTimeout(time.Second).Should(BeEquivalentTo(4))

	ctx, stop := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- recorder.Start(ctx) }()
	stop()
	g.Consistently(stopped).WithTimeout(3*yieldingPoll).ShouldNot(Receive(), "a request under way")
	inner.release <- struct{}{}
	g.Eventually(stopped).WithTimeout(time.Second).Should(Receive(BeNil()))
	g.Eventually(recorder.sink.waiting.Load).WithTimeout(time.Second).Should(BeZero())
	g.Expect(testutil.ToFloat64(eventsDropped)).To(Equal(dropped+3), "the waiting events")

	idle.Store(true)
	recorder.Eventf(foo, nil, corev1.EventTypeNormal, "After", "Test", "after")
	g.Expect(testutil.ToFloat64(eventsDropped)).To(Equal(dropped+4), "an event recorded once stopped")
	g.Consistently(inner.now.Load).WithTimeout(3*yieldingPoll).Should(BeZero(), "no request once stopped")
	g.Expect(inner.most.Load()).To(BeEquivalentTo(1))
}

// A recorder stopped while its events wait for idle workers, none under way, stops at once.
func TestEventsStopWhileWaiting(t *testing.T) {
	g := NewWithT(t)
	recorder, inner, foo, dropped := newTestRecorder(t, func() bool { return false })
	for _, reason := range []string{"Waiting1", "Waiting2"} {
		recorder.Eventf(foo, nil, corev1.EventTypeNormal, reason, "Test", "waiting")
	}
	g.Eventually(recorder.sink.waiting.Load).WithTimeout(time.Second).Should(BeEquivalentTo(2))

	ctx, stop := context.WithCancel(t.Context())
	stop()
	g.Expect(recorder.Start(ctx)).To(Succeed())
	g.Eventually(recorder.sink.waiting.Load).WithTimeout(time.Second).Should(BeZero())
	g.Expect(testutil.ToFloat64(eventsDropped)).To(Equal(dropped + 2))
	g.Expect(inner.most.Load()).To(BeZero(), "no request")
}

// newTestRecorder is a reconciler's recorder whose sink is idle when idle says, with a
// slowSink under it, a Foo to record events about, and the count of dropped events so far.
func newTestRecorder(t *testing.T, idle func() bool) (*shedding, *slowSink, *samplev1alpha1.Foo, float64) {
	t.Helper()
	inner := &slowSink{release: make(chan struct{})}
	recorder, err := newShedding(&inTurn{EventSink: inner, idle: idle})
	if err != nil {
		t.Fatal(err)
	}
	foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "foo"}}
	return recorder, inner, foo, testutil.ToFloat64(eventsDropped)
}

// An event's request, once its turn came, gets eventTimeout from then, whatever the
// caller's context: a stop lets it finish, and a request that hangs holds the events behind
// it no longer than that.
func TestEventsRequestBound(t *testing.T) {
	g := NewWithT(t)
	sink := &inTurn{idle: func() bool { return true }}
	ctx, stop := context.WithCancel(t.Context())
	var deadline time.Time
	var bounded bool
	before := time.Now()
	_, err := sink.send(ctx, func(ctx context.Context) (*eventsv1.Event, error) {
		stop()
		deadline, bounded = ctx.Deadline()
		return nil, ctx.Err()
	})
	after := time.Now()
	g.Expect(err).NotTo(HaveOccurred(), "the caller's stop does not end a request under way")
	g.Expect(bounded).To(BeTrue())
	g.Expect(deadline).To(BeTemporally(">=", before.Add(eventTimeout)))
	g.Expect(deadline).To(BeTemporally("<=", after.Add(eventTimeout)))
}

// The events' sink sends one event at a time, and counts those waiting for their turn.
func TestEventsInTurn(t *testing.T) {
	g := NewWithT(t)
	inner := &slowSink{release: make(chan struct{})}
	sink := &inTurn{EventSink: inner, idle: func() bool { return true }}
	sent := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := sink.Create(t.Context(), &eventsv1.Event{})
			sent <- err
		}()
	}
	g.Eventually(sink.waiting.Load).WithTimeout(time.Second).Should(BeEquivalentTo(3))
	for range 3 {
		inner.release <- struct{}{}
		g.Expect(<-sent).NotTo(HaveOccurred())
	}
	g.Expect(sink.waiting.Load()).To(BeZero())
	g.Expect(inner.most.Load()).To(BeEquivalentTo(1), "one request at a time")
}

// slowSink is an events.EventSink whose Create returns once release receives, and that
// records the most calls under way at once.
type slowSink struct {
	events.EventSink
	release   chan struct{}
	now, most atomic.Int32
}

func (s *slowSink) Create(_ context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	n := s.now.Add(1)
	defer s.now.Add(-1)
	for m := s.most.Load(); n > m && !s.most.CompareAndSwap(m, n); m = s.most.Load() {
	}
	<-s.release
	return e, nil
}

// TestBucketBoundUnderContention checks that many callers, waiting and trying at once,
// get no more tokens than the bucket's burst and rate allow over the time they ran: the
// bucket reads the clock in turn, so the limiter never sees time go back and credit a
// stretch twice.
func TestBucketBoundUnderContention(t *testing.T) {
	const qps, burst, callers = 200, 20, 64
	b := newBucket(qps, burst)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	var granted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range callers {
		wg.Go(func() {
			for ctx.Err() == nil {
				if i%2 == 0 && b.TryAccept() || i%2 == 1 && b.Wait(ctx) == nil {
					granted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if most := burst + int(qps*elapsed.Seconds()) + 1; granted.Load() > int64(most) {
		t.Errorf("%d tokens granted in %v, over the %d that %d/s and a burst of %d allow", granted.Load(), elapsed, most, qps, burst)
	}
}

// TestBucketReadsTheClockInTurn preempts a caller right after it reads the clock, lets a
// second caller come meanwhile, and checks that the bucket still gives no token before the
// burst and the rate allow. rate.Limiter takes the time it is given: had the second caller
// reserved first, at a later time, the first caller's reservation would move the limiter's
// last update back, and the next caller would be given that stretch's tokens again.
func TestBucketReadsTheClockInTurn(t *testing.T) {
	const qps, burst = 10, 1
	start := time.Now()
	// Three tokens are reserved at the start (two of them ahead of time); the first caller
	// is preempted after its reading, 50 ms in; the second reads 150 ms in, the last 160.
	readings := []time.Duration{0, 0, 0, 50 * time.Millisecond, 150 * time.Millisecond, 160 * time.Millisecond}
	const preempted = 3
	read, resume := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var next int
	b := newBucket(qps, burst)
	b.now = func() time.Time {
		mu.Lock()
		i := next
		next++
		mu.Unlock()
		if i == preempted {
			close(read)
			<-resume
		}
		return start.Add(readings[i])
	}
	var acts []time.Time
	reserve := func() {
		now, r := b.reserve()
		mu.Lock()
		defer mu.Unlock()
		acts = append(acts, now.Add(r.DelayFrom(now)))
	}
	for range preempted {
		reserve()
	}
	var wg sync.WaitGroup
	wg.Go(reserve)
	<-read
	wg.Go(reserve)
	time.Sleep(100 * time.Millisecond) // time for the second caller to reserve, were it let
	close(resume)
	wg.Wait()
	reserve()

	slices.SortFunc(acts, time.Time.Compare)
	for i, at := range acts {
		earliest := start.Add(time.Duration(i+1-burst) * time.Second / qps)
		if at.Before(earliest.Add(-time.Millisecond)) { // rate.Limiter counts tokens in float64
			t.Errorf("token %d of %d acts %v after the start, before the %v that %d/s and a burst of %d allow",
				i+1, len(acts), at.Sub(start), earliest.Sub(start), qps, burst)
		}
	}
}

// Values of --kube-api-qps and --kube-api-burst that would bound nothing as documented are
// refused at startup.
func TestValidateClientLimits(t *testing.T) {
	for _, tt := range []struct {
		qps     float64
		burst   int
		wantErr string
	}{
		{qps: -1, burst: 30},
		{qps: -1, burst: 0},
		{qps: 20, burst: 30},
		{qps: 0.5, burst: 1},
		{qps: 0, burst: 30, wantErr: "--kube-api-qps is 0"},
		{qps: 10, burst: 0, wantErr: "--kube-api-burst is 0: under --kube-api-qps 10 it must be at least 1"},
	} {
		err := validateClientLimits(tt.qps, tt.burst)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("qps %v, burst %d: %v", tt.qps, tt.burst, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("qps %v, burst %d: error %v, want one containing %q", tt.qps, tt.burst, err, tt.wantErr)
		}
	}
}

// At 0.5 requests a second with eight workers queued in the bucket, a Lease renewal that
// waited its turn would wait 18 s, past the 10 s renew deadline: the leader election's
// client takes its token at once, and the next worker waits for it instead.
//
// Before: the Lease client waited in the shared bucket, and client-go's leader election
// gave up the Lease when its renewal could not be sent within the deadline.
func TestLeaseRequestsGoAheadOfTheBucket(t *testing.T) {
	g := NewWithT(t)
	shared := &rest.Config{}
	b := *shareClientLimits(shared, 0.5, 1)
	start := time.Now()
	b.now = func() time.Time { return start }
	shared.RateLimiter = b
	for range 9 { // the token, and the next eight reserved by workers
		b.reserve()
	}
	renewal, cancel := context.WithTimeout(t.Context(), renewDeadline)
	defer cancel()
	g.Expect(b.Wait(renewal)).To(MatchError(ContainSubstring("would exceed context deadline")), "in the queue")

	lease := leaderElectionConfig(shared)
	g.Expect(lease.RateLimiter).To(BeAssignableToTypeOf(ahead{}))
	g.Expect(lease.Timeout).To(Equal(renewDeadline / 2))
	g.Expect(lease.RateLimiter.Wait(renewal)).To(Succeed(), "ahead of the queue")
	_, next := b.reserve()
	g.Expect(next.DelayFrom(start)).To(Equal(20*time.Second), "the renewal's token counted: eight workers' and the renewal's after the first")

	g.Expect(leaderElectionConfig(&rest.Config{}).RateLimiter).To(BeNil(), "no client limit")
}
