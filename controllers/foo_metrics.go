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

package controllers

import (
	"context"
	"regexp"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// deploymentWrites counts the Deployment writes the operator made.
var deploymentWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "foo_operator_deployment_writes_total",
	Help: "Successful Deployment writes made by the operator, by operation (create, update, delete).",
}, []string{"operation"})

// fieldTakeovers counts the fields the operator took back from other writers.
var fieldTakeovers = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "foo_operator_field_takeovers_total",
	Help: "Fields of Deployments the operator took back from another writer, by that writer's field manager (the first 16 seen, then \"other\") and the field (list keys as *); a steady rise is a contest (Foo condition Degraded, reason FieldManagerConflict).",
}, []string{"manager", "field"})

// The labels of fieldTakeovers are bounded: other writers choose their field manager names,
// and a field path carries the keys of list items (an ownerReference's UID).
const (
	maxManagerLabels = 16
	otherManager     = "other"
)

// takeoverLabels are the labels of fieldTakeovers for a field taken back from taker.
type takeoverLabels struct {
	mu       sync.Mutex
	managers map[string]bool
}

// of is the manager and field label of taker: its manager while fewer than
// maxManagerLabels others were seen, otherwise otherManager; its field with every list key
// replaced by *.
func (l *takeoverLabels) of(taker fieldTaker) (manager, field string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	manager = taker.manager
	if !l.managers[manager] {
		if len(l.managers) >= maxManagerLabels {
			manager = otherManager
		} else {
			if l.managers == nil {
				l.managers = map[string]bool{}
			}
			l.managers[manager] = true
		}
	}
	return manager, listKeys.ReplaceAllString(taker.field, "[*]")
}

// listKeys matches the keys of list items in a field path: [name="nginx"], [uid="..."], [0].
var listKeys = regexp.MustCompile(`\[[^\]]*\]`)

// takeovers bounds the labels of fieldTakeovers for the process.
var takeovers = &takeoverLabels{}

// statusWrites counts the Foo status writes the operator made.
var statusWrites = prometheus.NewCounter(prometheus.CounterOpts{
	Name: "foo_operator_status_writes_total",
	Help: "Successful writes of Foo statuses made by the operator.",
})

// observedChanges counts what a Foo's status is computed from changing, as the watches see it.
var observedChanges = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "foo_operator_observed_changes_total",
	Help: "Changes a Foo's status follows, as the operator's watches see them: by kind, Foo (a Foo created, first seen, or given a new spec) and Deployment (the status of a Deployment the operator manages). Status writes far above these changes are a loop.",
}, []string{"kind"})

var foosDesc = prometheus.NewDesc(
	"foo_operator_foos",
	"Foos by condition type and status; status Unknown counts Foos that do not have the condition yet.",
	[]string{"condition", "status"}, nil)

var degradedDesc = prometheus.NewDesc(
	"foo_operator_foo_degraded_since_timestamp_seconds",
	"When each Degraded Foo became Degraded (its Degraded condition's lastTransitionTime, which a change of reason keeps), as Unix seconds, labelled with the present reason; Foos not Degraded have no series.",
	[]string{"namespace", "foo", "reason"}, nil)

// conditionTypes are the condition types the operator sets, in the order metrics list them.
var conditionTypes = []string{
	samplev1alpha1.ReadyCondition,
	samplev1alpha1.AvailableCondition,
	samplev1alpha1.ProgressingCondition,
	samplev1alpha1.DegradedCondition,
}

// RegisterMetrics registers the operator's metrics on controller-runtime's registry, which
// the manager's metrics server serves. reader lists Foos at scrape time (the manager's
// cache); elected is closed once this replica leads (the manager's Elected).
func RegisterMetrics(reader client.Reader, elected <-chan struct{}) error {
	for _, c := range []prometheus.Collector{deploymentWrites, fieldTakeovers, statusWrites, observedChanges, &fooCollector{reader: reader, elected: elected}} {
		if err := metrics.Registry.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// fooCollector computes the Foo gauges from the cache when Prometheus scrapes, so reconciles
// do no metrics bookkeeping and deleted Foos leave no stale series. Only the leader serves
// them: a standby has no Foo informer (its controller does not run), and listing would
// start one for the whole cluster; so sum() over the replicas counts each Foo once.
type fooCollector struct {
	reader  client.Reader
	elected <-chan struct{}
}

// Describe implements prometheus.Collector.
func (c *fooCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- foosDesc
	ch <- degradedDesc
}

// Collect implements prometheus.Collector.
func (c *fooCollector) Collect(ch chan<- prometheus.Metric) {
	select {
	case <-c.elected:
	default:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	foos := &samplev1alpha1.FooList{}
	// The cached Foos, not deep copies: they are only read here, and copying every Foo at
	// every scrape is work and garbage that grows with the number of Foos.
	if err := c.reader.List(ctx, foos, client.UnsafeDisableDeepCopy); err != nil {
		ch <- prometheus.NewInvalidMetric(foosDesc, err)
		ch <- prometheus.NewInvalidMetric(degradedDesc, err)
		return
	}
	counts := countByCondition(foos.Items)
	for _, t := range conditionTypes {
		for _, s := range []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown} {
			ch <- prometheus.MustNewConstMetric(foosDesc, prometheus.GaugeValue, float64(counts[conditionKey{t, s}]), t, string(s))
		}
	}
	for i := range foos.Items {
		foo := &foos.Items[i]
		if d := meta.FindStatusCondition(foo.Status.Conditions, samplev1alpha1.DegradedCondition); d != nil && d.Status == metav1.ConditionTrue {
			ch <- prometheus.MustNewConstMetric(degradedDesc, prometheus.GaugeValue, float64(d.LastTransitionTime.Unix()), foo.Namespace, foo.Name, d.Reason)
		}
	}
}

type conditionKey struct {
	condition string
	status    metav1.ConditionStatus
}

// countByCondition counts Foos by the status of each condition type; a missing condition
// counts as Unknown.
func countByCondition(foos []samplev1alpha1.Foo) map[conditionKey]int {
	counts := map[conditionKey]int{}
	for i := range foos {
		for _, t := range conditionTypes {
			s := metav1.ConditionUnknown
			if c := meta.FindStatusCondition(foos[i].Status.Conditions, t); c != nil {
				s = c.Status
			}
			counts[conditionKey{t, s}]++
		}
	}
	return counts
}
