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
	"cmp"
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// conditionSummary is a condition without its times, for table comparisons.
type conditionSummary struct {
	Status metav1.ConditionStatus
	Reason string
}

func summarize(conds []metav1.Condition) map[string]conditionSummary {
	out := map[string]conditionSummary{}
	for _, c := range conds {
		out[c.Type] = conditionSummary{c.Status, c.Reason}
	}
	return out
}

// statusNow is the time of TestComputeStatus's passes.
var statusNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestComputeStatus(t *testing.T) {
	foo := newFoo("a", withIdentity("uid-1", 3), withReplicas(2), withStatus(samplev1alpha1.FooStatus{ObservedGeneration: 2}))
	T, F := metav1.ConditionTrue, metav1.ConditionFalse
	tests := []struct {
		name           string
		obs            observation
		wantGeneration int64
		wantDeployment string
		wantAvailable  int32
		wantConditions map[string]conditionSummary
		// wantMessages are messages of conditions, by type, where the table checks them.
		wantMessages map[string]string
	}{
		{
			name:           "no Deployment yet",
			obs:            observation{},
			wantGeneration: 3,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentMissing"},
				"Available":   {F, "DeploymentMissing"},
				"Progressing": {F, "DeploymentMissing"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			name:           "name taken by another object",
			obs:            observation{reason: "DeploymentConflict", message: `Resource "a-web" already exists and is not managed by Foo`},
			wantGeneration: 3,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentConflict"},
				"Available":   {F, "DeploymentConflict"},
				"Progressing": {F, "DeploymentConflict"},
				"Degraded":    {T, "DeploymentConflict"},
			},
		},
		{
			name:           "just created",
			obs:            observation{deployment: newDeployment(foo)},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentUnavailable"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {T, "RolloutInProgress"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			name:           "rolled out and available",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  2,
			wantConditions: map[string]conditionSummary{
				"Ready":       {T, "Ready"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			name:           "available while one replica is not yet",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 1, true))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  1,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "RolloutInProgress"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {T, "RolloutInProgress"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			name:           "scaled down while surplus replicas terminate: Ready, scaling",
			obs:            observation{deployment: newDeployment(foo, withRollout(3, 3, true))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  3,
			wantConditions: map[string]conditionSummary{
				"Ready":       {T, "Ready"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {T, "Scaling"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			// An autoscaler's scale up from 1 to 2: the Deployment is not Available (25 % of
			// 2 rounds down to 0 unavailable), yet the Foo serves as before.
			name:           "scaling up after the operator's change, a replica available: Ready",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true), withPodsLost(1), withUnavailable(), withAppliedAt(statusNow.Add(-5*time.Second)))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  1,
			wantConditions: map[string]conditionSummary{
				"Ready":       {T, "Ready"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {T, "Scaling"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			name:           "scaling up from zero, none available yet",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true), withPodsLost(0), withUnavailable(), withAppliedAt(statusNow.Add(-5*time.Second)))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentUnavailable"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {T, "Scaling"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			// Before, such a Foo turned Degraded (ReplicasUnavailable) and not Ready once the
			// operator's last change was older than the progress deadline, so that every node
			// drain made every Foo it touched unready and sent a Warning event.
			name:           "a pod lost within the Deployment's maxUnavailable, the last change long ago: Ready, the shortfall counted",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true), withPodsLost(1), withAppliedAt(statusNow.Add(-time.Hour)))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  1,
			wantConditions: map[string]conditionSummary{
				"Ready":       {T, "Ready"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			name:           "pods lost below the Deployment's minimum availability, the last change long ago: Degraded",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true), withPodsLost(0), withUnavailable(), withAppliedAt(statusNow.Add(-time.Hour)))},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "ReplicasUnavailable"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {T, "ReplicasUnavailable"},
			},
			wantMessages: map[string]string{
				"Degraded": "0 of 2 replicas of Deployment a-web are available, below its minimum availability, longer than its progress deadline (10m0s) after the operator last changed it: pods cannot be scheduled or started, or were lost (a node failed) and their replacements are not available",
			},
		},
		{
			// Like the last one, past the deadline of a scale from 1 to 2 that the
			// controllers, far behind (10,000 Deployments scaled at once), have not carried
			// out: the messages said that pods were lost after the rollout and that 2
			// replicas were rolled out, while only 1 pod existed.
			name: "a scale up not done by the progress deadline, its pod not created: Degraded, with the pods that exist",
			obs: observation{deployment: newDeployment(foo, withRollout(2, 2, true), withPodsLost(1), withUnavailable(), withAppliedAt(statusNow.Add(-11*time.Minute)),
				func(d *appsv1.Deployment) { d.Status.Replicas, d.Status.UpdatedReplicas = 1, 1 })},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  1,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "ReplicasUnavailable"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {T, "ReplicasUnavailable"},
			},
			wantMessages: map[string]string{
				"Progressing": "Deployment a-web has rolled out its pod template; 1 of 2 replicas are available",
				"Degraded":    "1 of 2 replicas of Deployment a-web are available, below its minimum availability, longer than its progress deadline (10m0s) after the operator last changed it: only 1 of its 2 pods exist, the Deployment and ReplicaSet controllers have not created the others",
			},
		},
		{
			// Before, a quota that refused the pods showed only as RolloutInProgress.
			name:           "pods the Deployment cannot create (a quota): Degraded with the Deployment's message",
			obs:            observation{deployment: newDeployment(foo, withRollout(0, 0, false), withReplicaFailure())},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "ReplicaFailure"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {T, "RolloutInProgress"},
				"Degraded":    {T, "ReplicaFailure"},
			},
		},
		{
			name:           "progress deadline exceeded",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 0, false), withProgressDeadlineExceeded())},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "ProgressDeadlineExceeded"},
				"Available":   {F, "DeploymentUnavailable"},
				"Progressing": {F, "ProgressDeadlineExceeded"},
				"Degraded":    {T, "ProgressDeadlineExceeded"},
			},
		},
		{
			// kubectl rollout pause after the rollout: the Deployment reports only that it
			// is paused, and every replica runs its template.
			name:           "paused, rolled out: Ready",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true), withPaused())},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  2,
			wantConditions: map[string]conditionSummary{
				"Ready":       {T, "Ready"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {F, "AsExpected"},
			},
		},
		{
			// The Foo's new image applied to a paused Deployment: the controller makes no
			// new ReplicaSet, so no replica is updated, and nothing changes until it is
			// resumed.
			name:           "paused before the new template rolled out: Degraded",
			obs:            observation{deployment: newDeployment(foo, withRollout(0, 2, true), withPaused())},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  2,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentPaused"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "DeploymentPaused"},
				"Degraded":    {T, "DeploymentPaused"},
			},
			wantMessages: map[string]string{
				"Degraded": "Deployment a-web is paused with 0 of its 2 replicas on its current pod template: `kubectl rollout resume deployment/a-web` rolls it out",
			},
		},
		{
			name:           "paused halfway through a rollout: Degraded",
			obs:            observation{deployment: newDeployment(foo, withRollout(1, 2, true), withPaused())},
			wantGeneration: 3,
			wantDeployment: "a-web",
			wantAvailable:  2,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentPaused"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "DeploymentPaused"},
				"Degraded":    {T, "DeploymentPaused"},
			},
		},
		{
			name: "failed write keeps the observed generation",
			obs: observation{deployment: newDeployment(foo, withRollout(2, 2, true)), reason: "DeploymentWriteFailed",
				message: "apply Deployment default/a-web: the server is currently unable to handle the request", retryErr: errors.New("unavailable")},
			wantGeneration: 2,
			wantDeployment: "a-web",
			wantAvailable:  2,
			wantConditions: map[string]conditionSummary{
				"Ready":       {F, "DeploymentWriteFailed"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {T, "DeploymentWriteFailed"},
			},
		},
		{
			// Before, the conditions carried the Foo's generation: Ready=True, computed from
			// the Deployment of the generation before, passed for the new one's.
			name:           "a pass retried without a reason keeps the observed generation of every condition",
			obs:            observation{deployment: newDeployment(foo, withRollout(2, 2, true)), retryErr: errors.New("the object has been modified")},
			wantGeneration: 2,
			wantDeployment: "a-web",
			wantAvailable:  2,
			wantConditions: map[string]conditionSummary{
				"Ready":       {T, "Ready"},
				"Available":   {T, "DeploymentAvailable"},
				"Progressing": {F, "RolloutComplete"},
				"Degraded":    {F, "AsExpected"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			now := metav1.NewTime(statusNow)
			st := computeStatus(foo, tt.obs, now)

			g.Expect(st.ObservedGeneration).To(Equal(tt.wantGeneration))
			g.Expect(st.DeploymentName).To(Equal(tt.wantDeployment))
			g.Expect(st.AvailableReplicas).To(Equal(tt.wantAvailable))
			g.Expect(st.ReadyReplicas).To(Equal(tt.wantAvailable))
			g.Expect(summarize(st.Conditions)).To(Equal(tt.wantConditions))
			for _, c := range st.Conditions {
				g.Expect(c.ObservedGeneration).To(Equal(tt.wantGeneration), c.Type)
				g.Expect(c.LastTransitionTime).To(Equal(now), c.Type)
				g.Expect(c.Message).NotTo(BeEmpty(), c.Type)
			}
			if tt.obs.reason != "" {
				g.Expect(meta.FindStatusCondition(st.Conditions, "Degraded").Message).To(Equal(tt.obs.message))
			}
			for typ, message := range tt.wantMessages {
				g.Expect(meta.FindStatusCondition(st.Conditions, typ).Message).To(Equal(message), typ)
			}
			if c := meta.FindStatusCondition(st.Conditions, "Degraded"); c.Reason == "ReplicaFailure" {
				g.Expect(c.Message).To(Equal("Deployment a-web cannot create pods (FailedCreate): " + quotaMessage))
			}
			if tt.wantDeployment != "" {
				g.Expect(st.Selector).To(Equal("app=nginx,controller=a"))
				g.Expect(st.Replicas).To(Equal(tt.obs.deployment.Status.Replicas))
			} else {
				g.Expect(st.Selector).To(BeEmpty())
			}
		})
	}
}

func TestComputeStatusKeepsTransitionTimes(t *testing.T) {
	g := NewWithT(t)
	foo := newFoo("a", withIdentity("uid-1", 1), withReplicas(2))
	t1 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t2 := metav1.NewTime(t1.Add(time.Hour))

	rolling := observation{deployment: newDeployment(foo)}
	foo.Status = computeStatus(foo, rolling, t1)

	// Nothing changed: the status is equal, times included, so no write follows.
	g.Expect(computeStatus(foo, rolling, t2)).To(Equal(foo.Status))

	// The rollout completes: changed conditions move to t2, Degraded stays at t1.
	done := computeStatus(foo, observation{deployment: newDeployment(foo, withRollout(2, 2, true))}, t2)
	g.Expect(meta.FindStatusCondition(done.Conditions, "Available").LastTransitionTime).To(Equal(t2))
	g.Expect(meta.FindStatusCondition(done.Conditions, "Progressing").LastTransitionTime).To(Equal(t2))
	g.Expect(meta.FindStatusCondition(done.Conditions, "Degraded").LastTransitionTime).To(Equal(t1))
}

func TestProgressReportWait(t *testing.T) {
	foo := newFoo("a", withIdentity("uid-1", 1), withReplicas(2))
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const delay = 15 * time.Second
	appliedAgo := func(ago time.Duration) deploymentOption {
		return func(d *appsv1.Deployment) {
			d.ManagedFields = []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", Time: &metav1.Time{Time: now}},
				{Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply, Time: &metav1.Time{Time: now.Add(-ago)}},
			}
		}
	}
	degraded := computeStatus(foo, observation{reason: samplev1alpha1.DeploymentWriteFailedReason, message: "refused", retryErr: errors.New("refused")}, metav1.NewTime(now))
	// The Foo scaled from 2 to 3 (generation 2), and its status of generation 1, Ready or not.
	scaled := newFoo("a", withIdentity("uid-1", 2), withReplicas(3))
	readyBefore := computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(time.Hour), withRollout(2, 2, true))}, metav1.NewTime(now.Add(-time.Hour)))
	unreadyBefore := computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(time.Hour), withRollout(2, 0, false))}, metav1.NewTime(now.Add(-time.Hour)))
	// A change of the Deployment after the Deployment controller observed its status.
	unobserved := func(d *appsv1.Deployment) { d.Generation++ }
	// The wait until the scaling deadline of a Deployment the operator changed 20 s ago: its
	// progress deadline (600 s, the default) less those 20 s.
	const untilDeadline = 10*time.Minute - 20*time.Second
	tests := []struct {
		name   string
		foo    *samplev1alpha1.Foo // foo unless set
		stored samplev1alpha1.FooStatus
		obs    observation
		// noSpare: the client limit binds, with no tokens to spare; massRollout: the Foo's
		// report in progress is held back (waitingRollouts).
		noSpare, massRollout bool
		want                 time.Duration
	}{
		{name: "a scale of a Ready Foo past the delay, the Foo still Ready, waits for its end, or its scaling deadline",
			foo: scaled, stored: readyBefore,
			obs: observation{deployment: newDeployment(scaled, appliedAgo(20*time.Second), withRollout(3, 3, true), withPodsLost(2))}, want: untilDeadline},
		{name: "a scale of a Ready Foo past its progress deadline is written",
			foo: scaled, stored: readyBefore,
			obs: observation{deployment: newDeployment(scaled, appliedAgo(11*time.Minute), withRollout(3, 3, true), withPodsLost(2))}},
		{name: "a scale of a Foo that is not Ready past the delay is written",
			foo: scaled, stored: unreadyBefore,
			obs: observation{deployment: newDeployment(scaled, appliedAgo(20*time.Second), withRollout(3, 3, true), withPodsLost(0), withUnavailable())}},
		{name: "rollout of a change applied 5 s ago waits for the rest of the delay",
			obs: observation{deployment: newDeployment(foo, appliedAgo(5*time.Second), withRollout(2, 0, false))}, want: 10 * time.Second},
		{name: "surplus replicas after a change applied just now wait for the whole delay",
			obs: observation{deployment: newDeployment(foo, appliedAgo(0), withRollout(3, 3, true))}, want: delay},
		{name: "a rollout past the delay is written",
			obs: observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, false))}},
		{name: "a change the Deployment controller has not observed past the delay waits for it, or the rest of a minute",
			obs: observation{deployment: newDeployment(foo, appliedAgo(20*time.Second))}, want: unobservedReportDelays*delay - 20*time.Second},
		{name: "a change the Deployment controller has not observed a minute later is written",
			obs: observation{deployment: newDeployment(foo, appliedAgo(unobservedReportDelays*delay))}},
		{name: "a change the Deployment controller has not observed a minute later waits for it, or the progress deadline, while the Foo is Ready and the Deployment reports itself Available",
			stored: readyBefore,
			obs:    observation{deployment: newDeployment(foo, appliedAgo(2*time.Minute), withRollout(2, 2, true), unobserved)}, want: 8 * time.Minute},
		{name: "a change the Deployment controller has not observed by the progress deadline of a Ready Foo is written",
			stored: readyBefore,
			obs:    observation{deployment: newDeployment(foo, appliedAgo(10*time.Minute), withRollout(2, 2, true), unobserved)}},
		{name: "a change the Deployment controller has not observed a minute later waits for it, or the progress deadline, while the Foo is Ready and the replicas it asks for are available: another writer's scale up set back",
			stored: readyBefore,
			obs:    observation{deployment: newDeployment(foo, appliedAgo(2*time.Minute), withRollout(3, 2, false), unobserved)}, want: 8 * time.Minute},
		{name: "a change the Deployment controller has not observed a minute later is written when the Deployment reported itself unavailable, short of the replicas asked for",
			stored: readyBefore,
			obs:    observation{deployment: newDeployment(foo, appliedAgo(2*time.Minute), withRollout(2, 1, false), unobserved)}},
		{name: "a rollout past the delay already reported in progress waits for its end, or its scaling deadline",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second))}, metav1.NewTime(now.Add(-time.Second))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 1, false))}, want: untilDeadline},
		{name: "pods the Deployment cannot create during a rollout already reported in progress are written",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second))}, metav1.NewTime(now.Add(-time.Second))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 1, false), withReplicaFailure())}},
		{name: "pods the Deployment cannot create within the delay are written",
			obs: observation{deployment: newDeployment(foo, appliedAgo(5*time.Second), withRollout(2, 0, false), withReplicaFailure())}},
		{name: "a rollout reported in progress that moves on to scaling waits for its end, or its scaling deadline",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second))}, metav1.NewTime(now.Add(-time.Second))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(0), withUnavailable())}, want: untilDeadline},
		{name: "a scale reported in progress whose Deployment turns unavailable while the Foo stays Ready waits for its end, or its scaling deadline",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(1))}, metav1.NewTime(now.Add(-time.Second))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(1), withUnavailable())}, want: untilDeadline},
		{name: "a rollout reported in progress whose Foo turns Ready is written",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(0), withUnavailable())}, metav1.NewTime(now.Add(-time.Second))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(1), withUnavailable())}},
		{name: "setting back another writer's scale past the delay, the Foo's generation reported and Ready kept, waits for its end, or its scaling deadline",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(time.Hour), withRollout(2, 2, true))}, metav1.NewTime(now.Add(-time.Hour))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(3, 3, true))}, want: untilDeadline},
		{name: "setting back another writer's scale to 0 past the delay is written: the Foo is not Ready",
			stored: computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(time.Hour), withRollout(2, 2, true))}, metav1.NewTime(now.Add(-time.Hour))),
			obs:    observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, true), withUnavailable())}},
		{name: "a rollout past the delay waits for tokens to spare under a client limit that binds",
			noSpare: true, obs: observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, false))}, want: delay},
		{name: "a scale of a Foo that is not Ready past the delay waits for tokens to spare under a client limit that binds",
			foo: scaled, stored: unreadyBefore, noSpare: true,
			obs: observation{deployment: newDeployment(scaled, appliedAgo(20*time.Second), withRollout(3, 3, true), withPodsLost(0), withUnavailable())}, want: delay},
		{name: "a change the Deployment controller has not observed a minute later waits for tokens to spare under a client limit that binds",
			noSpare: true, obs: observation{deployment: newDeployment(foo, appliedAgo(unobservedReportDelays*delay))}, want: delay},
		{name: "a rollout reported in progress whose Foo turns Ready is written without tokens to spare",
			noSpare: true,
			stored:  computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(0), withUnavailable())}, metav1.NewTime(now.Add(-time.Second))),
			obs:     observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(1), withUnavailable())}},
		{name: "setting back another writer's scale to 0 past the delay is written without tokens to spare: the Foo is no longer Ready",
			noSpare: true,
			stored:  computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(time.Hour), withRollout(2, 2, true))}, metav1.NewTime(now.Add(-time.Hour))),
			obs:     observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, true), withUnavailable())}},
		{name: "a completed rollout is written without tokens to spare",
			noSpare: true, obs: observation{deployment: newDeployment(foo, appliedAgo(time.Minute), withRollout(2, 2, true))}},
		{name: "a degraded Foo is written without tokens to spare", noSpare: true,
			obs: observation{deployment: newDeployment(foo, appliedAgo(time.Minute)), reason: samplev1alpha1.DeploymentWriteFailedReason, message: "refused", retryErr: errors.New("refused")}},
		{name: "a rollout past the delay in a mass rollout waits for its progress deadline",
			massRollout: true, obs: observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, false))}, want: untilDeadline},
		{name: "a change the Deployment controller has not observed a minute later in a mass rollout waits for its progress deadline",
			massRollout: true, obs: observation{deployment: newDeployment(foo, appliedAgo(unobservedReportDelays*delay))}, want: 10*time.Minute - unobservedReportDelays*delay},
		{name: "a rollout past its progress deadline in a mass rollout is written",
			massRollout: true, obs: observation{deployment: newDeployment(foo, appliedAgo(10*time.Minute), withRollout(2, 0, false))}},
		{name: "a rollout past the delay in a mass rollout without tokens to spare waits for them, a delay",
			noSpare: true, massRollout: true, obs: observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, false))}, want: delay},
		{name: "a rollout within the delay in a mass rollout waits for the rest of the delay",
			massRollout: true, obs: observation{deployment: newDeployment(foo, appliedAgo(5*time.Second), withRollout(2, 0, false))}, want: 10 * time.Second},
		{name: "a rollout reported in progress whose Foo turns Ready is written in a mass rollout",
			massRollout: true,
			stored:      computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(0), withUnavailable())}, metav1.NewTime(now.Add(-time.Second))),
			obs:         observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 2, true), withPodsLost(1), withUnavailable())}},
		{name: "setting back another writer's scale to 0 past the delay is written in a mass rollout: the Foo is no longer Ready",
			massRollout: true,
			stored:      computeStatus(foo, observation{deployment: newDeployment(foo, appliedAgo(time.Hour), withRollout(2, 2, true))}, metav1.NewTime(now.Add(-time.Hour))),
			obs:         observation{deployment: newDeployment(foo, appliedAgo(20*time.Second), withRollout(2, 0, true), withUnavailable())}},
		{name: "a completed rollout is written in a mass rollout",
			massRollout: true, obs: observation{deployment: newDeployment(foo, appliedAgo(time.Minute), withRollout(2, 2, true))}},
		{name: "a degraded Foo is written in a mass rollout", massRollout: true,
			obs: observation{deployment: newDeployment(foo, appliedAgo(time.Minute), withRollout(2, 0, false), withReplicaFailure())}},
		{name: "a completed rollout is written",
			obs: observation{deployment: newDeployment(foo, appliedAgo(time.Second), withRollout(2, 2, true))}},
		{name: "a rollout the operator did not start is written (no apply entry of the operator)",
			obs: observation{deployment: newDeployment(foo)}},
		{name: "a degraded Foo is written",
			obs: observation{deployment: newDeployment(foo, appliedAgo(time.Second)), reason: samplev1alpha1.DeploymentWriteFailedReason, message: "refused", retryErr: errors.New("refused")}},
		{name: "a conflict is written", obs: observation{reason: samplev1alpha1.DeploymentConflictReason, message: "taken"}},
		{name: "the end of a problem is written", stored: degraded,
			obs: observation{deployment: newDeployment(foo, appliedAgo(time.Second))}},
		{name: "an API server clock ahead of the operator's waits no longer than the delay",
			obs: observation{deployment: newDeployment(foo, appliedAgo(-time.Minute), withRollout(2, 0, false))}, want: delay},
		{name: "an API server clock ahead of the operator's waits no longer than a minute for a change the Deployment controller has not observed",
			obs: observation{deployment: newDeployment(foo, appliedAgo(-time.Minute))}, want: unobservedReportDelays * delay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			status := computeStatus(cmp.Or(tt.foo, foo), tt.obs, metav1.NewTime(now))
			g.Expect(progressReportWait(tt.obs, tt.stored, status, now, delay, !tt.noSpare, tt.massRollout)).To(Equal(tt.want))
		})
	}
}

func TestWaitingRollouts(t *testing.T) {
	g := NewWithT(t)
	foos := make([]*samplev1alpha1.Foo, 4)
	for i := range foos {
		foos[i] = newFoo(fmt.Sprintf("foo-%d", i), withIdentity(fmt.Sprintf("uid-%d", i), 1))
	}
	var w waitingRollouts
	const limit = 2

	// Up to the limit waiting, reports go out.
	for _, foo := range foos[:limit] {
		g.Expect(w.held(foo, limit)).To(BeFalse())
		w.wait(foo, false)
	}
	g.Expect(w.held(foos[0], limit)).To(BeFalse(), "two wait: not more than the limit")
	// A third Foo waits: every report is held back, the third's among them.
	g.Expect(w.held(foos[2], limit)).To(BeFalse(), "the third is not counted before it waits")
	w.wait(foos[2], w.held(foos[2], limit))
	g.Expect(w.held(foos[2], limit)).To(BeTrue())
	g.Expect(w.held(foos[0], limit)).To(BeTrue())
	w.wait(foos[0], true)
	// The mass rollout ends but for the first and the third: they stay held; the second, not
	// held when it last waited, is not.
	w.wait(foos[3], true)
	w.done(foos[1])
	w.done(foos[3])
	g.Expect(w.held(foos[0], limit)).To(BeTrue(), "held for the rollout it waits on")
	g.Expect(w.held(foos[1], limit)).To(BeFalse())
	// Written, the Foo is no longer held; a new Foo of a held one's name is not held.
	w.done(foos[0])
	g.Expect(w.held(foos[0], limit)).To(BeFalse())
	again := newFoo("foo-2", withIdentity("uid-2-again", 1))
	g.Expect(w.held(again, limit)).To(BeFalse())

	// No bound.
	for _, foo := range foos {
		w.wait(foo, false)
	}
	g.Expect(w.held(foos[0], -1)).To(BeFalse())
	g.Expect(w.held(foos[0], limit)).To(BeTrue())
	// A bound of 0 holds back the report of a Foo that waits alone.
	var alone waitingRollouts
	alone.wait(foos[0], false)
	g.Expect(alone.held(foos[0], 0)).To(BeTrue())

	// A Foo that is Ready, or reported in progress, awaits no report: it is not counted.
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for i, d := range []*appsv1.Deployment{newDeployment(foos[0], withRollout(1, 1, true)), newDeployment(foos[1])} {
		foos[i].Status = computeStatus(foos[i], observation{deployment: d}, now)
		w.wait(foos[i], true)
	}
	g.Expect(w.held(foos[2], limit)).To(BeFalse(), "two of four await a report")
	g.Expect(w.held(foos[0], limit)).To(BeFalse())
}
