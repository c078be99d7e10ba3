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

package v1alpha1

// Condition types of a Foo. Every condition carries the metadata.generation it was computed
// for in its observedGeneration.
const (
	// ReadyCondition summarises the Foo: True when the Deployment is Available, its rollout
	// is complete and nothing is Degraded. `kubectl wait --for=condition=Ready foo/NAME`
	// waits on it.
	ReadyCondition = "Ready"

	// AvailableCondition is True when the owned Deployment has minimum availability (its own
	// Available condition is True).
	AvailableCondition = "Available"

	// ProgressingCondition is True while the owned Deployment rolls out a change: the new
	// spec is not yet observed, or not every replica is updated and available.
	ProgressingCondition = "Progressing"

	// DegradedCondition is True when the operator cannot bring the Deployment to the state
	// the Foo asks for, or its Deployment cannot run the replicas it should. Its reason, one
	// of the reasons below, says why; docs/api.md lists them (docs/reasons_test.go checks).
	DegradedCondition = "Degraded"
)

// Condition reasons of a Foo.
const (
	// ReadyReason is the reason of Ready=True.
	ReadyReason = "Ready"

	// DeploymentAvailableReason is the reason of Available=True.
	DeploymentAvailableReason = "DeploymentAvailable"

	// DeploymentUnavailableReason means the owned Deployment exists but does not have
	// minimum availability yet.
	DeploymentUnavailableReason = "DeploymentUnavailable"

	// DeploymentMissingReason means the Foo owns no Deployment yet and nothing is known to
	// be wrong, for example right after creation.
	DeploymentMissingReason = "DeploymentMissing"

	// RolloutInProgressReason is the reason of Progressing=True while the Deployment rolls
	// out a new pod template (or is created): Ready is False until the rollout completes.
	RolloutInProgressReason = "RolloutInProgress"

	// ScalingReason is the reason of Progressing=True while the Deployment, its pod template
	// rolled out, scales to a new replica count the operator set. It does not make Ready
	// False as long as a replica is available: a Foo under an autoscaler stays Ready.
	ScalingReason = "Scaling"

	// RolloutCompleteReason is the reason of Progressing=False when every replica runs the
	// current spec and is available.
	RolloutCompleteReason = "RolloutComplete"

	// AsExpectedReason is the reason of Degraded=False.
	AsExpectedReason = "AsExpected"

	// DeploymentConflictReason means a Deployment with spec.deploymentName exists and is not
	// controlled by this Foo. The operator leaves it alone and creates its own Deployment as
	// soon as the name is free; renaming spec.deploymentName resolves it too.
	DeploymentConflictReason = "DeploymentConflict"

	// InvalidSpecReason means the spec cannot be turned into a valid Deployment. Only a
	// change to the spec resolves it; the message says what to fix.
	InvalidSpecReason = "InvalidSpec"

	// DeploymentWriteFailedReason means creating, updating or deleting a Deployment failed
	// with an error the operator retries (for example the API server was unavailable).
	DeploymentWriteFailedReason = "DeploymentWriteFailed"

	// DeploymentReadFailedReason means reading the Deployments from the API server failed
	// with an error the operator retries.
	DeploymentReadFailedReason = "DeploymentReadFailed"

	// FieldOwnershipUnreadableReason means the operator could not read the field ownership
	// (metadata.managedFields) of its Deployment, which it judges drift by; the message
	// names the entry. It retries.
	FieldOwnershipUnreadableReason = "FieldOwnershipUnreadable"

	// InternalErrorReason means the operator met an error it has no reason for: a bug, to
	// report with the message. It retries.
	InternalErrorReason = "InternalError"

	// PodDisruptionBudgetConflictReason means a PodDisruptionBudget named like the Foo
	// exists and is not controlled by it, so the operator cannot keep the Foo's budget. The
	// Deployment is kept as usual; the operator looks at the name again from time to time.
	PodDisruptionBudgetConflictReason = "PodDisruptionBudgetConflict"

	// PodDisruptionBudgetWriteFailedReason means creating, updating or deleting the Foo's
	// PodDisruptionBudget failed (the message has the API server's answer). It retries.
	PodDisruptionBudgetWriteFailedReason = "PodDisruptionBudgetWriteFailed"

	// FieldManagerConflictReason means another writer (its field manager is named in the
	// message) keeps taking a field of the Deployment that the operator sets, for example an
	// HorizontalPodAutoscaler that targets the Deployment instead of the Foo. The operator
	// takes the field back at growing intervals instead of alternating with it.
	FieldManagerConflictReason = "FieldManagerConflict"

	// ReplicasUnavailableReason means the Deployment, its pod template rolled out, is below
	// its minimum availability (its own Available condition is False) longer than its
	// progress deadline after the operator's last change: a scale the operator set has not
	// completed (the controllers are behind, pods cannot be scheduled or started), or pods
	// were lost (a node failed, pods were evicted) and their replacements are not
	// available. The message gives the replicas available and, when fewer than asked
	// for, the pods that exist. A shortfall the Deployment's strategy allows (within
	// maxUnavailable, as during a node drain) is not Degraded: the Foo stays Ready and its
	// Available condition gives the counts.
	ReplicasUnavailableReason = "ReplicasUnavailable"

	// ReplicaFailureReason means the Deployment reports that its pods cannot be created
	// (its ReplicaFailure condition, for example FailedCreate: a ResourceQuota exceeded, a
	// pod refused by an admission policy); the message is the Deployment's.
	ReplicaFailureReason = "ReplicaFailure"

	// DeploymentUnwatchedReason means the Deployment does not carry the label
	// app.kubernetes.io/managed-by=foo-operator after the operator set it: a mutating
	// admission rewrites it, and the operator, whose cache holds only Deployments with that
	// label, sees the Deployment's changes only when it looks again (every recheck
	// interval). The message names the value found.
	DeploymentUnwatchedReason = "DeploymentUnwatched"

	// ProgressDeadlineExceededReason means the owned Deployment reports that its rollout
	// exceeded its progress deadline.
	ProgressDeadlineExceededReason = "ProgressDeadlineExceeded"

	// DeploymentPausedReason means the Deployment is paused (spec.paused, `kubectl rollout
	// pause`) before all its replicas run its current pod template: the Deployment controller
	// rolls nothing out, and no progress deadline expires, until it is resumed (`kubectl
	// rollout resume`). The operator leaves spec.paused to whoever set it. A paused
	// Deployment whose replicas all run its current template is not Degraded.
	DeploymentPausedReason = "DeploymentPaused"
)
