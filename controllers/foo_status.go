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
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// observation is what one reconcile pass found; computeStatus turns it into the Foo's status.
type observation struct {
	// deployment is the Deployment the Foo controls under spec.deploymentName, as
	// reconcileDeployments left it; nil when there is none.
	deployment *appsv1.Deployment
	// reason and message say why the Foo is degraded (a samplev1alpha1 *Reason); empty
	// when the pass brought the Deployment to the desired state.
	reason, message string
	// retryErr is the error to return for a retry with backoff. Without one the pass has a
	// result for the Foo's generation (success, or a problem only a change can fix), and
	// observedGeneration moves to the generation.
	retryErr error
	// requeueAfter is when to look again at a problem that cannot be watched; 0 for never.
	requeueAfter time.Duration
}

// newObservation is what a pass found: the Deployment reconcileDeployments left, and what
// errorPolicies says of its error.
func newObservation(d *appsv1.Deployment, err error) observation {
	obs := observation{deployment: d}
	if err == nil {
		return obs
	}
	kind, recheckAfter := kindOf(err)
	policy := errorPolicies[kind]
	obs.reason, obs.requeueAfter = policy.reason, recheckAfter
	if policy.reason != "" {
		obs.message = err.Error()
	}
	if policy.retry {
		obs.retryErr = err
	}
	return obs
}

// reconcileStatus writes the status computed from obs, only when it differs from the
// cached one, and emits a Warning event when the Foo becomes Degraded for a new reason. It
// returns after how long to look again: when the write is deferred (progressReportWait),
// or when the status will change without an event (scalingWait). The write carries the
// cached Foo's resourceVersion: when the stored Foo is newer, the write fails, and the
// newer Foo's watch event starts the pass that compares with it, so a stale cache can
// neither skip a needed write nor overwrite a newer status. A write based on the Foo the
// operator's own last status write replaced (a pass started while that write was under
// way) would fail so too, and is not sent.
func (r *FooReconciler) reconcileStatus(ctx context.Context, foo *samplev1alpha1.Foo, obs observation) (time.Duration, error) {
	ownWriteUnseen := r.memory.predatesStatusWrite(foo)
	now := metav1.Now().Rfc3339Copy()
	status := computeStatus(foo, obs, now)
	scaling := scalingWait(obs, status, now.Time)
	if equality.Semantic.DeepEqual(foo.Status, status) {
		r.waiting.done(foo)
		return scaling, nil
	}
	spare := r.SpareTokens == nil || r.SpareTokens()
	held := r.waiting.held(foo, r.MaxReportedRollouts)
	if wait := progressReportWait(obs, foo.Status, status, now.Time, cmp.Or(r.ProgressReportDelay, DefaultProgressReportDelay), spare, held); wait > 0 {
		r.waiting.wait(foo, held)
		log.FromContext(ctx).V(1).Info("Deployment is rolling out the operator's change; status is written at its end, or reported in progress past the delay with tokens to spare and no mass rollout",
			"lookAgainIn", wait, "spareTokens", spare, "massRollout", held)
		return wait, nil
	}
	if ownWriteUnseen {
		log.FromContext(ctx).V(1).Info("Foo is cached as it was before the operator's last status write; the write's watch event starts the next pass")
		return 0, nil
	}
	before := meta.FindStatusCondition(foo.Status.Conditions, samplev1alpha1.DegradedCondition)
	resourceVersion, err := patchStatus(ctx, r.Client, foo, status)
	if err != nil {
		switch {
		case apierrors.IsConflict(err):
			log.FromContext(ctx).V(1).Info("Foo changed since it was cached; the next pass writes its status")
			return 0, nil
		case apierrors.IsNotFound(err):
			log.FromContext(ctx).V(1).Info("Foo was deleted since it was cached; its deletion's watch event starts the pass that forgets it")
			return 0, nil
		}
		return 0, fmt.Errorf("patch status of Foo %s: %w", klog.KObj(foo), err)
	}
	statusWrites.Inc()
	r.waiting.done(foo)
	if resourceVersion != foo.ResourceVersion { // a write that changed nothing has no watch event
		r.memory.statusWritten(foo)
	}
	after := meta.FindStatusCondition(status.Conditions, samplev1alpha1.DegradedCondition)
	if after.Status == metav1.ConditionTrue && (before == nil || before.Status != metav1.ConditionTrue || before.Reason != after.Reason) {
		var related runtime.Object // an untyped nil when there is no Deployment
		if obs.deployment != nil {
			related = obs.deployment
		}
		r.Recorder.Eventf(foo, related, corev1.EventTypeWarning, warningReason(after.Reason), "Reconcile", "%s", after.Message)
	}
	return scaling, nil
}

// patchStatus writes status as foo's whole status, in one JSON patch operation at foo's
// resourceVersion: no merge patch computed from two copies of the Foo. It replaces the stored
// status whole, so a field this build does not know (one a newer CRD adds, after a rollback)
// is dropped rather than left unmaintained. Sent as metadata, the write has the API server
// answer with the Foo's metadata alone (protobuf), not the whole Foo as JSON: it returns the
// resourceVersion the write left.
func patchStatus(ctx context.Context, c client.StatusClient, foo *samplev1alpha1.Foo, status samplev1alpha1.FooStatus) (string, error) {
	patch, err := json.Marshal([]jsonPatchOp{onlyIfUnchanged(foo), {Op: opAdd, Path: "/status", Value: status}})
	if err != nil {
		return "", err
	}
	updated := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: foo.Name}}
	updated.SetGroupVersionKind(samplev1alpha1.GroupVersion.WithKind("Foo"))
	err = c.Status().Patch(ctx, updated, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(FieldManager))
	return updated.ResourceVersion, err
}

// progressReportWait is how long the write of status may wait; 0 to write it now. While
// the Deployment rolls out a change the operator applied less than delay ago, and nothing
// is wrong, the steps of that rollout (generation observed, pods created, pods available)
// are not written one by one: the pass that sees the rollout complete writes the status
// once, or, for a slower rollout, the first pass after the delay reports it in progress
// (once the Deployment controller observed the change, see unobservedReportDelays; not a
// scale of a Ready Foo, see progressReported), and the next write is its end (or a
// problem, or a change of Ready, or its scaling deadline passed), not each step between,
// nor a pass of its own until that deadline. Until then the Foo's
// observedGeneration still names the generation its status describes, so readers know the
// status is behind. The Deployment's status changes start the passes; the wait returned
// starts the one at the delay. A problem (Degraded, whether the operator or the
// Deployment reports it: pods the Deployment cannot create) and its end are written at
// once, also during a rollout already reported in progress.
//
// Under a client limit that binds (spare false: the bucket is short of more than a
// token), a report in progress that neither makes the Foo Ready nor ends its readiness
// waits for a pass, a delay later or at the Deployment's next change, that finds tokens to
// spare: the tokens go to the writes that converge Foos, and the rollout's end, written
// whatever the tokens, is most often the next status anyway. In a mass rollout (held: see
// waitingRollouts) such a report waits for the Deployment's progress deadline: the rollout's
// end, or its failure, is then most often the first write.
func progressReportWait(obs observation, stored, status samplev1alpha1.FooStatus, now time.Time, delay time.Duration, spare, held bool) time.Duration {
	if obs.deployment == nil || !meta.IsStatusConditionTrue(status.Conditions, samplev1alpha1.ProgressingCondition) ||
		meta.IsStatusConditionTrue(status.Conditions, samplev1alpha1.DegradedCondition) ||
		meta.IsStatusConditionTrue(stored.Conditions, samplev1alpha1.DegradedCondition) {
		return 0
	}
	d := obs.deployment
	applied := lastApplied(d)
	due := applied.Add(delay)
	if d.Generation > d.Status.ObservedGeneration {
		// The Deployment controller has not picked the change up, so its status cannot tell
		// a scale from a new pod template, which would report a Ready Foo scaling as not
		// Ready until it does. Its pick-up starts the next pass; a controller that does not
		// pick it up at all is reported after unobservedReportDelays delays, or, while the
		// Foo is Ready and its Deployment, as the controller last observed it, serves (it
		// reports itself Available, or has the replicas the operator asks for available, as
		// when the operator sets back another writer's scale up), at the Deployment's
		// progress deadline: a controller far behind (thousands of Deployments changed at
		// once) is not one that does not run, and the pods serve.
		due = applied.Add(unobservedReportDelays * delay)
		serving := deploymentCondition(d, appsv1.DeploymentAvailable).Status == corev1.ConditionTrue ||
			d.Status.AvailableReplicas >= replicasOf(d)
		if serving && meta.IsStatusConditionTrue(stored.Conditions, samplev1alpha1.ReadyCondition) {
			due = scalingDeadline(d)
		}
	}
	switch {
	case applied.IsZero():
		return 0
	case now.Before(due):
		// At most the whole wait, should the API server's clock be ahead of the operator's.
		return min(due.Sub(applied), due.Sub(now))
	case progressReported(stored, status):
		// Only the rollout's end (the Deployment's status changes start that pass), a
		// problem (so do the Deployment's conditions) or the scaling deadline is written
		// next, and only the deadline comes without an event.
		return max(delay, scalingDeadline(d).Sub(now))
	case meta.IsStatusConditionTrue(stored.Conditions, samplev1alpha1.ReadyCondition) ||
		meta.IsStatusConditionTrue(status.Conditions, samplev1alpha1.ReadyCondition):
		return 0 // the report makes the Foo Ready or ends its readiness
	case !spare:
		return delay
	case held && now.Before(scalingDeadline(d)):
		return scalingDeadline(d).Sub(now)
	}
	return 0
}

// waitingRollouts are the Foos that wait, in a rollout, for a report in progress: their
// status write deferred (progressReportWait), not Ready, and no rollout of them reported in
// progress (awaitsReport); by namespace and name, with their UID and whether their report
// is held back. A Foo whose report falls due while more than the reconciler's
// MaxReportedRollouts Foos wait is in a mass rollout (thousands of Foos created at once, a
// restore): the cluster's controllers are behind on all of them, and a report in progress
// for each would add as many writes to the API server that serves those controllers. Its
// report is held back until its rollout ends (written then, as is a problem or a change of
// readiness) or its progress deadline passes, and stays held for that rollout once the
// others end, so the tail of a mass rollout is not reported in progress either. Its
// methods are the only writers.
type waitingRollouts struct{ perFoo[waitingRollout] }

// waitingRollout is what waitingRollouts keeps of a Foo.
type waitingRollout struct {
	uid  types.UID
	held bool
}

// held reports whether foo's report in progress is held back: it was, for the rollout it
// waits on, or more than limit Foos wait (no bound when limit is negative).
func (w *waitingRollouts) held(foo *samplev1alpha1.Foo, limit int) bool {
	v, ok := w.load(client.ObjectKeyFromObject(foo))
	return (ok && v.uid == foo.UID && v.held) || (limit >= 0 && w.size() > limit)
}

// wait records that foo's status write waits on a rollout, its report in progress held
// back or not; foo counts among the waiting while it awaits a report.
func (w *waitingRollouts) wait(foo *samplev1alpha1.Foo, held bool) {
	if !awaitsReport(foo.Status) {
		w.done(foo)
		return
	}
	w.store(client.ObjectKeyFromObject(foo), waitingRollout{uid: foo.UID, held: held})
}

// awaitsReport reports whether a Foo whose stored status is stored awaits a report in
// progress that a mass rollout holds back: it is not Ready (a change of readiness is
// written whatever the rollouts), and no rollout of it is reported in progress already.
func awaitsReport(stored samplev1alpha1.FooStatus) bool {
	return !meta.IsStatusConditionTrue(stored.Conditions, samplev1alpha1.ReadyCondition) &&
		!meta.IsStatusConditionTrue(stored.Conditions, samplev1alpha1.ProgressingCondition)
}

// done records that foo's status is written, or needs no write: it waits on no rollout.
func (w *waitingRollouts) done(foo *samplev1alpha1.Foo) {
	w.forget(client.ObjectKeyFromObject(foo))
}

// unobservedReportDelays is how many progress report delays a change the Deployment
// controller has not observed waits before it is reported in progress: a minute by default.
const unobservedReportDelays = 4

// progressReported reports whether a rollout past the delay is reported only at its end,
// because stored already says of it what matters to a reader: the Foo as Ready as it is
// now, and either the same generation or Ready=True.
//   - The same generation: stored reports this rollout in progress already, and its steps
//     are not written again (the reason moving from RolloutInProgress to Scaling, the
//     replica counts, the messages, nor Available, which a scale from 1 to 2 turns False
//     until the second replica is up while the Foo stays Ready); or stored reports the
//     Foo's generation rolled out, and the rollout is the operator's setting back a
//     Deployment another writer changed (a scale by someone else), which the Foo's
//     generation does not move and which leaves it Ready: the Foo did not change, so only
//     the rollout's end is written, which is most often the stored status again.
//   - Ready=True before and now, another generation: a scale of a serving Foo (an
//     autoscaler's, kubectl scale). The Foo serves throughout, and its observedGeneration,
//     behind the spec until the end, tells kubectl wait, kstatus and Argo CD that the scale
//     is in progress, as it does for a scale that ends within the delay; a report in
//     progress would tell them the Foo is current while it still scales.
//
// A change of readiness is written, and so is a scale that outlasts the Foo's progress
// deadline (Progressing=False).
func progressReported(stored, status samplev1alpha1.FooStatus) bool {
	was := meta.FindStatusCondition(stored.Conditions, samplev1alpha1.ReadyCondition)
	is := meta.FindStatusCondition(status.Conditions, samplev1alpha1.ReadyCondition)
	if was == nil || is == nil || was.Status != is.Status {
		return false
	}
	return stored.ObservedGeneration == status.ObservedGeneration || is.Status == metav1.ConditionTrue
}

// computeStatus is the Foo's status for what a pass observed. It is rebuilt from obs on
// every pass; only observedGeneration (on a failed pass) and the conditions' transition
// times carry over from the stored status.
func computeStatus(foo *samplev1alpha1.Foo, obs observation, now metav1.Time) samplev1alpha1.FooStatus {
	status := samplev1alpha1.FooStatus{
		ObservedGeneration: foo.Status.ObservedGeneration,
		Conditions:         slices.Clone(foo.Status.Conditions),
	}
	if obs.retryErr == nil {
		status.ObservedGeneration = foo.Generation
	}
	if d := obs.deployment; d != nil {
		status.DeploymentName = d.Name
		status.Replicas = d.Status.Replicas
		status.ReadyReplicas = d.Status.ReadyReplicas
		status.AvailableReplicas = d.Status.AvailableReplicas
		if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
			status.Selector = sel.String()
		}
	}

	available := availableCondition(obs)
	progressing, degraded := rolloutConditions(obs, now.Time)
	for _, c := range []metav1.Condition{readyCondition(obs, available, progressing, degraded), available, progressing, degraded} {
		// The generation whose pass completed: a pass that failed and is retried has not
		// applied the Foo's generation, and a Ready=True computed from the Deployment of the
		// generation before must not pass for the new one's (kubectl wait compares it).
		c.ObservedGeneration = status.ObservedGeneration
		c.LastTransitionTime = now
		meta.SetStatusCondition(&status.Conditions, c)
	}
	return status
}

// availableCondition mirrors the Deployment's own Available condition.
func availableCondition(obs observation) metav1.Condition {
	c := metav1.Condition{Type: samplev1alpha1.AvailableCondition, Status: metav1.ConditionFalse}
	d := obs.deployment
	switch {
	case d == nil && obs.reason != "":
		c.Reason, c.Message = obs.reason, obs.message
	case d == nil:
		c.Reason, c.Message = samplev1alpha1.DeploymentMissingReason, "The Deployment does not exist yet"
	case deploymentCondition(d, appsv1.DeploymentAvailable).Status == corev1.ConditionTrue:
		c.Status, c.Reason = metav1.ConditionTrue, samplev1alpha1.DeploymentAvailableReason
		c.Message = fmt.Sprintf("Deployment %s has minimum availability: %d of %d replicas available", d.Name, d.Status.AvailableReplicas, replicasOf(d))
	default:
		c.Reason = samplev1alpha1.DeploymentUnavailableReason
		c.Message = fmt.Sprintf("Deployment %s does not have minimum availability: %d of %d replicas available", d.Name, d.Status.AvailableReplicas, replicasOf(d))
	}
	return c
}

// rolloutConditions are the Progressing and Degraded conditions. A rollout of the pod
// template is in progress until the Deployment controller reports its new ReplicaSet
// available (Progressing reason NewReplicaSetAvailable), as `kubectl rollout status` has it.
// After that the controller no longer tracks progress: a shortfall of available replicas is
// the operator's scaling while the operator changed the Deployment within its progress
// deadline; after it, a shortfall the Deployment's strategy allows (it stays Available, as
// when a node drain evicts a pod) is only counted, and one that costs the Deployment its
// availability is ReplicasUnavailable. Pods the Deployment cannot create (its ReplicaFailure
// condition: a quota, an admission policy) are Degraded whatever the rollout's step. A
// Deployment paused before its rollout ended is Degraded (DeploymentPaused): nothing rolls
// out, and no deadline expires, until someone resumes it.
func rolloutConditions(obs observation, now time.Time) (progressing, degraded metav1.Condition) {
	progressing = metav1.Condition{Type: samplev1alpha1.ProgressingCondition, Status: metav1.ConditionFalse}
	degraded = metav1.Condition{Type: samplev1alpha1.DegradedCondition, Status: metav1.ConditionFalse, Reason: samplev1alpha1.AsExpectedReason, Message: "No problems found"}
	if obs.reason != "" {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, obs.reason, obs.message
	}

	d := obs.deployment
	if d == nil {
		progressing.Reason, progressing.Message = samplev1alpha1.DeploymentMissingReason, "The Deployment does not exist yet"
		if obs.reason != "" {
			progressing.Reason, progressing.Message = obs.reason, obs.message
		}
		return progressing, degraded
	}
	if failure := deploymentCondition(d, appsv1.DeploymentReplicaFailure); failure.Status == corev1.ConditionTrue && degraded.Status != metav1.ConditionTrue {
		degraded.Status, degraded.Reason = metav1.ConditionTrue, samplev1alpha1.ReplicaFailureReason
		degraded.Message = fmt.Sprintf("Deployment %s cannot create pods (%s): %s", d.Name, failure.Reason, failure.Message)
	}

	replicas := replicasOf(d)
	reason, waiting := samplev1alpha1.RolloutInProgressReason, ""
	switch {
	case d.Generation > d.Status.ObservedGeneration:
		waiting = fmt.Sprintf("Waiting for the Deployment controller to observe generation %d of Deployment %s", d.Generation, d.Name)
	case deploymentCondition(d, appsv1.DeploymentProgressing).Reason == "ProgressDeadlineExceeded":
		progressing.Reason = samplev1alpha1.ProgressDeadlineExceededReason
		progressing.Message = fmt.Sprintf("Deployment %s exceeded its progress deadline", d.Name)
		if degraded.Status != metav1.ConditionTrue {
			degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, progressing.Reason, progressing.Message
		}
		return progressing, degraded
	case d.Spec.Paused && d.Status.Replicas > d.Status.UpdatedReplicas:
		progressing.Reason = samplev1alpha1.DeploymentPausedReason
		progressing.Message = fmt.Sprintf("Deployment %s is paused with %d of its %d replicas on its current pod template: `kubectl rollout resume deployment/%s` rolls it out",
			d.Name, d.Status.UpdatedReplicas, d.Status.Replicas, d.Name)
		if degraded.Status != metav1.ConditionTrue {
			degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, progressing.Reason, progressing.Message
		}
		return progressing, degraded
	case d.Status.Replicas > d.Status.UpdatedReplicas:
		waiting = fmt.Sprintf("%d old replicas of Deployment %s are pending termination", d.Status.Replicas-d.Status.UpdatedReplicas, d.Name)
	case !templateRolledOut(d):
		waiting = fmt.Sprintf("%d of %d replicas of Deployment %s are updated, %d available", d.Status.UpdatedReplicas, replicas, d.Name, d.Status.AvailableReplicas)
	case d.Status.Replicas > replicas:
		reason, waiting = samplev1alpha1.ScalingReason, fmt.Sprintf("Deployment %s is scaling down to %d replicas: %d surplus replicas are pending termination", d.Name, replicas, d.Status.Replicas-replicas)
	case d.Status.AvailableReplicas < replicas && now.Before(scalingDeadline(d)):
		reason, waiting = samplev1alpha1.ScalingReason, fmt.Sprintf("Deployment %s is scaling to %d replicas: %d available", d.Name, replicas, d.Status.AvailableReplicas)
	case d.Status.AvailableReplicas < replicas && !available(d) && degraded.Status != metav1.ConditionTrue:
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, samplev1alpha1.ReplicasUnavailableReason, replicasUnavailable(d)
	}
	switch {
	case waiting != "":
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionTrue, reason, waiting
	case d.Status.AvailableReplicas < replicas:
		progressing.Reason = samplev1alpha1.RolloutCompleteReason
		progressing.Message = fmt.Sprintf("Deployment %s has rolled out its pod template; %d of %d replicas are available", d.Name, d.Status.AvailableReplicas, replicas)
	default:
		progressing.Reason = samplev1alpha1.RolloutCompleteReason
		progressing.Message = fmt.Sprintf("Deployment %s has rolled out %d replicas", d.Name, replicas)
	}
	return progressing, degraded
}

// replicasUnavailable is the message of Degraded=True, reason ReplicasUnavailable: what d
// lacks and what can cause it. A scale the operator set that has not completed by its
// progress deadline (controllers far behind, pods that cannot be scheduled or started) and
// pods lost after it look alike in d's status, so the message claims neither; it tells
// pods not created from pods not available.
func replicasUnavailable(d *appsv1.Deployment) string {
	replicas := replicasOf(d)
	cause := "pods cannot be scheduled or started, or were lost (a node failed) and their replacements are not available"
	if d.Status.Replicas < replicas {
		cause = fmt.Sprintf("only %d of its %d pods exist, the Deployment and ReplicaSet controllers have not created the others", d.Status.Replicas, replicas)
	}
	return fmt.Sprintf("%d of %d replicas of Deployment %s are available, below its minimum availability, longer than its progress deadline (%s) after the operator last changed it: %s",
		d.Status.AvailableReplicas, replicas, d.Name, progressDeadline(d), cause)
}

// templateRolledOut reports whether the Deployment controller found the rollout of d's
// current pod template complete: it reports its new ReplicaSet available, and scaling or
// losing pods afterwards does not change that. A paused Deployment reports only that it is
// paused (Progressing reason DeploymentPaused): its template is rolled out when every
// replica it has runs it.
func templateRolledOut(d *appsv1.Deployment) bool {
	if d.Spec.Paused {
		return d.Status.UpdatedReplicas == d.Status.Replicas
	}
	return deploymentCondition(d, appsv1.DeploymentProgressing).Reason == "NewReplicaSetAvailable"
}

// scalingDeadline is until when a shortfall of available replicas counts as the operator's
// scaling: its last change of d plus d's progress deadline (600 s unless set).
func scalingDeadline(d *appsv1.Deployment) time.Time {
	return lastApplied(d).Add(progressDeadline(d))
}

// progressDeadline is d's spec.progressDeadlineSeconds, 600 s when unset, as the apps/v1 API
// defaults it.
func progressDeadline(d *appsv1.Deployment) time.Duration {
	return time.Duration(ptr.Deref(d.Spec.ProgressDeadlineSeconds, 600)) * time.Second
}

// scalingWait is how long until a Foo reported Scaling is judged again at its scaling
// deadline (no event comes when pods never become available); 0 when it is not scaling.
func scalingWait(obs observation, status samplev1alpha1.FooStatus, now time.Time) time.Duration {
	c := meta.FindStatusCondition(status.Conditions, samplev1alpha1.ProgressingCondition)
	if obs.deployment == nil || c == nil || c.Reason != samplev1alpha1.ScalingReason {
		return 0
	}
	return max(time.Second, scalingDeadline(obs.deployment).Sub(now))
}

// readyCondition summarises the other three: True when nothing is Degraded, the pod
// template is rolled out and the Foo serves (Available as the Deployment judges it, per its
// strategy, so a pod lost within maxUnavailable does not make the Foo unready; or scaling
// with a replica available: an autoscaler's scale does not make a Foo unready); otherwise
// False with the reason of the first that is not as it should be.
func readyCondition(obs observation, available, progressing, degraded metav1.Condition) metav1.Condition {
	c := metav1.Condition{Type: samplev1alpha1.ReadyCondition, Status: metav1.ConditionFalse}
	scaling := progressing.Status == metav1.ConditionTrue && progressing.Reason == samplev1alpha1.ScalingReason
	switch {
	case degraded.Status == metav1.ConditionTrue:
		c.Reason, c.Message = degraded.Reason, degraded.Message
	case scaling && obs.deployment.Status.AvailableReplicas > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, samplev1alpha1.ReadyReason, progressing.Message
	case available.Status != metav1.ConditionTrue:
		c.Reason, c.Message = available.Reason, available.Message
	case progressing.Status == metav1.ConditionTrue && !scaling:
		c.Reason, c.Message = progressing.Reason, progressing.Message
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, samplev1alpha1.ReadyReason, available.Message
	}
	return c
}

// rolledOut reports whether d runs all its replicas on its current template, available,
// and no others: what a rename waits for before deleting the old Deployment.
func rolledOut(d *appsv1.Deployment) bool {
	replicas := replicasOf(d)
	return available(d) && d.Status.UpdatedReplicas == replicas && d.Status.AvailableReplicas >= replicas && d.Status.Replicas == replicas
}

// available reports whether the Deployment controller found d, at its current generation,
// to have minimum availability.
func available(d *appsv1.Deployment) bool {
	return d != nil && d.Status.ObservedGeneration >= d.Generation &&
		deploymentCondition(d, appsv1.DeploymentAvailable).Status == corev1.ConditionTrue
}

// deploymentCondition is the Deployment's condition of type t; the zero condition when
// the Deployment has none.
func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) appsv1.DeploymentCondition {
	for _, c := range d.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return appsv1.DeploymentCondition{}
}
