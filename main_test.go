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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
)

func TestSplitNamespaces(t *testing.T) {
	tests := []struct {
		list string
		want []string
	}{
		{list: "", want: nil},
		{list: "team-a", want: []string{"team-a"}},
		{list: "team-a,team-b", want: []string{"team-a", "team-b"}},
		{list: " team-a , ,team-b,", want: []string{"team-a", "team-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			NewWithT(t).Expect(splitNamespaces(tt.list)).To(Equal(tt.want))
		})
	}
}

// The Go runtime gets 85 % of the container's limit, leaving room for memory it does not
// manage; an explicit GOMEMLIMIT, or no limit, leaves the runtime alone.
func TestSoftMemoryLimit(t *testing.T) {
	tests := []struct {
		name, gomemlimit, containerLimit string
		want                             int64
		set                              bool
	}{
		{name: "the shipped limit, 384 MiB", containerLimit: "402653184", want: 342255206, set: true},
		{name: "GOMEMLIMIT set explicitly", gomemlimit: "300MiB", containerLimit: "402653184"},
		{name: "no container limit", containerLimit: ""},
		{name: "not a number", containerLimit: "384Mi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got, set := softMemoryLimit(tt.gomemlimit, tt.containerLimit)
			g.Expect(set).To(Equal(tt.set))
			g.Expect(got).To(Equal(tt.want))
		})
	}
}

// In a pod, the leader election identity is the pod's, the same for every start of its
// container; outside one, controller-runtime's lock (nil here) draws a new one each start.
func TestPodLeaderLock(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", UserAgent: "foo-operator"}
	tests := []struct {
		name, namespace, podName, podUID string
		wantIdentity, wantErr            string
	}{
		{name: "outside a pod"},
		{name: "a pod", namespace: "operators", podName: "foo-operator-7d9f-x2k", podUID: "0b1c", wantIdentity: "foo-operator-7d9f-x2k_0b1c"},
		{name: "a pod without the Lease's namespace", podName: "p", podUID: "u", wantErr: "POD_NAMESPACE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			lock, err := podLeaderLock(cfg, tt.namespace, tt.podName, tt.podUID, &deferredRecorder{})
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			if tt.wantIdentity == "" {
				g.Expect(lock).To(BeNil())
				return
			}
			g.Expect(lock.Identity()).To(Equal(tt.wantIdentity))
			g.Expect(lock.Describe()).To(Equal(tt.namespace + "/" + leaderElectionID))
		})
	}
}
