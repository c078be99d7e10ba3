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
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// listCounter is a reader that counts its List calls: a standby's cache would start an
// informer for the whole cluster on the first.
type listCounter struct {
	client.Reader
	lists int
}

func (r *listCounter) List(context.Context, client.ObjectList, ...client.ListOption) error {
	r.lists++
	return nil
}

// Before, a standby listed Foos on every scrape (starting a cluster-wide informer, or
// timing out) and served the same per-Foo gauges as the leader, so sum() counted each Foo
// once per replica.
func TestFooGaugesAreServedByTheLeaderOnly(t *testing.T) {
	g := NewWithT(t)
	reader, elected := &listCounter{}, make(chan struct{})
	c := &fooCollector{reader: reader, elected: elected}

	g.Expect(testutil.CollectAndCount(c)).To(Equal(0), "a standby serves no Foo gauges")
	g.Expect(reader.lists).To(Equal(0), "a standby reads nothing")

	close(elected)
	g.Expect(testutil.CollectAndCount(c)).To(Equal(len(conditionTypes) * 3))
	g.Expect(reader.lists).To(Equal(1))
}
