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
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/flowcontrol"
	ctrl "sigs.k8s.io/controller-runtime"
)

// shareClientLimits gives every client built from cfg one token bucket of qps requests per
// second and bursts of burst: the manager's cache and client, its API reader, the
// Deployments client, the event recorders, the leader election lock and the metrics
// endpoint's authentication each copy cfg, and client-go would give each copy a bucket of
// its own from QPS and Burst, so together they could send several times the limit. With
// one bucket, --kube-api-qps and --kube-api-burst bound all of its requests. A
// negative qps sets no limit, as client-go has it.
//
// It returns the bucket, for the reconciler's events (yielding) and its reports in
// progress, which it writes only while the bucket is full but for a token (spare,
// FooReconciler.SpareTokens). nil when there is no limit.
func shareClientLimits(cfg *rest.Config, qps float64, burst int) *bucket {
	cfg.QPS, cfg.Burst = float32(qps), burst
	if qps <= 0 {
		return nil
	}
	b := newBucket(qps, burst)
	cfg.RateLimiter = b
	return &b
}

// validateClientLimits refuses the --kube-api-qps and --kube-api-burst that bound nothing as
// documented: a qps of 0 (client-go would give every client its own default limit of 5 per
// second) and, under a limit, a burst below 1 (no request would ever be let through).
func validateClientLimits(qps float64, burst int) error {
	switch {
	case qps == 0:
		return errors.New("--kube-api-qps is 0: give the requests per second the operator may send, or a negative value for no client-side limit")
	case qps > 0 && burst < 1:
		return fmt.Errorf("--kube-api-burst is %d: under --kube-api-qps %v it must be at least 1, the request that a full bucket lets through", burst, qps)
	}
	return nil
}

// bucket is the token bucket that client-go's flowcontrol.NewTokenBucketRateLimiter makes
// (golang.org/x/time/rate's), with its tokens in view (client-go's hides them), and with
// the clock read under a lock of its own. rate.Limiter takes the time its callers pass, and
// Wait and Allow read it before taking the limiter's lock: a caller that read the clock
// before another but locks after it moves the limiter's last update back, and the next
// caller is given that stretch's tokens a second time. On a busy CPU, with the workers,
// the events and the Lease renewals waiting on one bucket, that can let through more than
// the limits allow (docs/benchmark-history.md).
type bucket struct {
	limiter *rate.Limiter
	mu      *sync.Mutex
	// now reads the clock; tests give their own.
	now func() time.Time
}

func newBucket(qps float64, burst int) bucket {
	return bucket{limiter: rate.NewLimiter(rate.Limit(qps), burst), mu: &sync.Mutex{}, now: time.Now}
}

func (b bucket) TryAccept() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limiter.AllowN(b.now(), 1)
}

// reserve reserves a token at the time it reads, which it returns.
func (b bucket) reserve() (time.Time, *rate.Reservation) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	return now, b.limiter.ReserveN(now, 1)
}

func (b bucket) Accept()      { _ = b.Wait(context.Background()) }
func (b bucket) Stop()        {}
func (b bucket) QPS() float32 { return float32(b.limiter.Limit()) }

// Wait waits for a token, as rate.Limiter.Wait does: it fails at once when ctx ends first
// or would end before the token comes, and gives the token back then.
func (b bucket) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now, r := b.reserve()
	delay := r.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	cancel := func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		r.CancelAt(b.now())
	}
	if deadline, ok := ctx.Deadline(); ok && deadline.Before(now.Add(delay)) {
		cancel()
		return errors.New("rate: Wait(n=1) would exceed context deadline")
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		cancel()
		return ctx.Err()
	}
}

// ahead is the bucket of the leader election's requests: each takes its token at once,
// into debt when the bucket is empty, so the requests queued in the bucket wait for it
// instead. Queued behind the workers' reservations, a Lease renewal would wait as many
// tokens as they hold (8 workers at 0.5 requests per second: 16 s), past the renew deadline
// (10 s), and the leader would give up its Lease and exit while it works. Counted in the
// bucket, the Lease's requests (one every 2 s) still fall within the limits.
type ahead struct{ bucket }

func (a ahead) Wait(context.Context) error {
	_, _ = a.reserve()
	return nil
}

func (a ahead) Accept() { _, _ = a.reserve() }

// tokens is how many tokens b holds now.
func (b bucket) tokens() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limiter.TokensAt(b.now())
}

// full reports whether b holds as many tokens as it can.
func (b bucket) full() bool { return b.tokens() >= float64(b.limiter.Burst()) }

// spare reports whether b holds all but one token of its burst, and at least half of it:
// no request has needed the bucket lately but for a trickle, as the operator's Lease
// renewals (one request every 2 s), which would keep a bucket from ever being full at
// half a token a second or less.
func (b bucket) spare() bool {
	burst := float64(b.limiter.Burst())
	return b.tokens() >= max(burst-1, burst/2)
}

// yielding is the rate limiter of the reconciler's events under a client limit: it lets a
// request through only once the bucket is full, so the event takes a token that no other
// request could have had (a full bucket loses the tokens it earns). It looks at most every
// yieldingPoll. The events' sink (inTurn) waits for that too before it sends, so that the
// wait here is short (unless a write takes a token between the two looks) and client-go does
// not log the events' wait for idle workers as client-side throttling.
type yielding struct{ bucket }

// yieldingPoll is the longest an event waits between looks at the bucket or at the
// operator's workqueue (inTurn), so that a slow bucket does not keep it waiting long after
// the other callers stopped.
const yieldingPoll = 50 * time.Millisecond

// TryAccept takes a token, if the bucket is full.
func (l yielding) TryAccept() bool { return l.full() && l.bucket.TryAccept() }

func (l yielding) Wait(ctx context.Context) error {
	return poll(ctx, l.TryAccept, l.fillTime)
}

func (l yielding) Accept() { _ = l.Wait(context.Background()) }

// fillTime is how often a caller waiting for a full bucket looks: as often as it earns a
// token, at most every yieldingPoll.
func (b bucket) fillTime() time.Duration {
	return min(yieldingPoll, time.Duration(float64(time.Second)/float64(b.QPS())))
}

// poll returns nil once ready reports true, looking again after every(), or ctx's error
// once ctx ended, without asking ready again (which may take a token).
func poll(ctx context.Context, ready func() bool, every func() time.Duration) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ready() {
			return nil
		}
		select {
		case <-time.After(every()):
		case <-ctx.Done():
		}
	}
}

// inTurn is the sink of the reconciler's events. It sends an event only once no Foo waits in
// the operator's workqueue for a worker (idle, FooReconciler.Idle) and, under a client limit
// (limit not nil), the bucket is full: in a mass change (thousands of Foos created, scaled or
// set back at once) the writes that converge Foos go first and the events follow, as many as
// maxWaitingEvents, the rest dropped (shedding); an event per Foo would add a write per Foo
// to an API server that the cluster's controllers are behind on, in time with the
// operator's own writes (docs/benchmark-history.md). It waits here, before the request,
// rather than in the request's rate limiter, where client-go would log the wait as
// client-side throttling.
//
// It sends one event at a time, so that the events held back while Foos waited go out one
// after another once none does, not hundreds at once (which kept the leader's Lease renewals
// waiting past their deadline on an API server with one CPU: docs/benchmark-history.md), and
// it counts those waiting for their turn.
type inTurn struct {
	events.EventSink
	// idle reports whether no Foo waits for a worker.
	idle func() bool
	// limit is the operator's shared client limit; nil when there is none.
	limit   *bucket
	mu      sync.Mutex
	waiting atomic.Int32
}

// eventTimeout bounds an event's request once its rate limiter let it through (the events
// client's http.Client.Timeout, which client-go also sends kube-apiserver as the request's
// timeout), and, from the sink, the request with its wait in the rate limiter (inTurn.send):
// a request that hangs, as on a connection gone dead before HTTP/2's health check
// closes it, holds the events behind it for at most that long each. client-go's broadcaster
// tries a failed request again 10 to 12.5 s later, 12 tries in all, but not one the API
// server refused.
const eventTimeout = 15 * time.Second

// maxWaitingEvents bounds the events that wait for their turn, as client-go bounds the
// events it queues (1000): each holds a goroutine of the recorder's and its request, about
// 8 KiB, so a burst of changes to thousands of Foos does not grow the operator's memory with
// them. The reconciler's recorder drops the events past it (shedding).
const maxWaitingEvents = 1000

func (s *inTurn) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.send(ctx, func(ctx context.Context) (*eventsv1.Event, error) { return s.EventSink.Create(ctx, e) })
}

func (s *inTurn) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	return s.send(ctx, func(ctx context.Context) (*eventsv1.Event, error) { return s.EventSink.Update(ctx, e) })
}

func (s *inTurn) Patch(ctx context.Context, old *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	return s.send(ctx, func(ctx context.Context) (*eventsv1.Event, error) { return s.EventSink.Patch(ctx, old, data) })
}

// send makes one request of the sink's, once the one before it returned and the operator is
// idle and its bucket, if any, full. Once ctx ended (the recorder stopped: shedding.Start) it
// drops the event, counted, and returns no error, which client-go's broadcaster takes as
// done, without logging or trying again; a request already under way is let finish, within
// eventTimeout, its wait in the rate limiter included (under a limit a write can take the
// token between ready and yielding's look, and client-go applies the client's timeout only
// after that wait), so that a stop waits for it at most that long.
func (s *inTurn) send(ctx context.Context, request func(context.Context) (*eventsv1.Event, error)) (*eventsv1.Event, error) {
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if poll(ctx, s.ready, s.every) != nil {
		eventsDropped.Inc()
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventTimeout)
	defer cancel()
	return request(ctx)
}

// ready reports whether no Foo waits and the bucket, if any, is full.
func (s *inTurn) ready() bool {
	return s.idle() && (s.limit == nil || s.limit.full())
}

// every is how often an event looks again: every yieldingPoll while Foos wait, then as often
// as the bucket earns a token.
func (s *inTurn) every() time.Duration {
	if s.limit == nil || !s.idle() {
		return yieldingPoll
	}
	return s.limit.fillTime()
}

// crowded reports whether maxWaitingEvents events wait for their turn.
func (s *inTurn) crowded() bool {
	return s.waiting.Load() >= maxWaitingEvents
}

// eventsDropped counts the events the reconciler's recorder dropped (shedding).
var eventsDropped = prometheus.NewCounter(prometheus.CounterOpts{
	Name: "foo_operator_events_dropped_total",
	Help: "Events about Foos the operator dropped instead of sending, because 1000 of its events already waited for it to be idle (no Foo waiting for a worker and, under a client limit (--kube-api-qps), its bucket full), or because it stopped.",
})

// shedding drops the events its recorder would make wait once sink is crowded, as
// client-go's core/v1 broadcaster drops events past its queue of 1000: the operator's
// memory stays bounded, and no event ever waits in turn with a write (when events past
// 1000 waited in turn with the writes, 2,000 Foos at 50/100 converged in 99 s instead of
// 80: docs/benchmark-history.md). Events are best-effort in Kubernetes: kube-apiserver
// keeps them for an hour. It also cuts each note to what the API server takes (fitNote),
// and drops every event once stopped (Start).
type shedding struct {
	events.EventRecorder
	sink *inTurn
	// stopped ends the broadcaster's recording, and with it the sink's waits.
	stopped context.Context
	stop    context.CancelFunc
}

// Start stops the recorder once ctx ends, and returns once the event request under way, if
// any, returned: the events still waiting for their turn and those recorded later are
// dropped and counted. The manager runs it with the runnables that run while the replica
// leads (main's connect), and releases the leader's Lease only after they returned, so this
// replica writes no event once another may lead (test/chaos, the SIGTERM spec).
func (r *shedding) Start(ctx context.Context) error {
	<-ctx.Done()
	r.stop()
	r.sink.mu.Lock()
	defer r.sink.mu.Unlock()
	return nil
}

func (r *shedding) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if r.sink.crowded() || r.stopped.Err() != nil {
		eventsDropped.Inc()
		return
	}
	r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, "%s", fitNote(fmt.Sprintf(note, args...)))
}

// noteLimit is the longest note, in bytes, kube-apiserver takes in an events.k8s.io/v1
// Event; it refuses a longer one, and client-go's recorder neither cuts nor retries it.
const noteLimit = 1024

// fitNote is note cut to noteLimit bytes, at a character's start, and ended with "…" when
// cut: a Warning whose note quotes a long admission denial or names five field managers
// still reaches the user.
func fitNote(note string) string {
	if len(note) <= noteLimit {
		return note
	}
	const ellipsis = "…"
	cut := noteLimit - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + ellipsis
}

// eventRecorder is the reconciler's event recorder: client-go's, whose events go one at a
// time once idle reports that no Foo waits and, under a client limit (limit not nil), its
// bucket is full (inTurn, yielding), shedding past maxWaitingEvents waiting events, their
// notes cut to noteLimit. controller-runtime's recorder would send them with the manager's
// configuration, in turn with its other requests. The recorder sends each event from a
// goroutine of its own, until it is stopped (shedding.Start).
func eventRecorder(cfg *rest.Config, httpClient *http.Client, limit *bucket, idle func() bool) (*shedding, error) {
	c, err := eventsClient(cfg, httpClient, limit)
	if err != nil {
		return nil, err
	}
	return newShedding(&inTurn{EventSink: &events.EventSinkImpl{Interface: c}, idle: idle, limit: limit})
}

// newShedding is client-go's recorder of events to sink, which logs them, as
// controller-runtime's recorder does, dropping them as shedding says.
func newShedding(sink *inTurn) (*shedding, error) {
	ctx, stop := context.WithCancel(context.Background())
	b := events.NewBroadcaster(sink)
	if err := b.StartRecordingToSinkWithContext(ctx); err != nil {
		stop()
		return nil, err
	}
	// As controller-runtime's recorder logs them.
	log := ctrl.Log.WithName("events")
	if _, err := b.StartEventWatcher(func(o runtime.Object) {
		if e, ok := o.(*eventsv1.Event); ok {
			log.V(1).Info(e.Note, "type", e.Type, "object", e.Regarding, "action", e.Action, "reason", e.Reason)
		}
	}); err != nil {
		stop()
		return nil, err
	}
	return &shedding{EventRecorder: b.NewRecorder(scheme, "foo-operator"), sink: sink, stopped: ctx, stop: stop}, nil
}

// eventsClient is the events' client: cfg's and httpClient's, its requests let through by
// yielding under a client limit (limit not nil), by none otherwise, each bounded by
// eventTimeout.
func eventsClient(cfg *rest.Config, httpClient *http.Client, limit *bucket) (*eventsv1client.EventsV1Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.RateLimiter = flowcontrol.NewFakeAlwaysRateLimiter()
	if limit != nil {
		cfg.RateLimiter = yielding{*limit}
	}
	timed := *httpClient
	timed.Timeout = eventTimeout
	return eventsv1client.NewForConfigAndClient(cfg, &timed)
}
