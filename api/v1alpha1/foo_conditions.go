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
	// the Foo asks for. Its reason says why: DeploymentConflict, InvalidSpec,
	// DeploymentWriteFailed, DeploymentReadFailed or ProgressDeadlineExceeded.
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

	// RolloutInProgressReason is the reason of Progressing=True.
	RolloutInProgressReason = "RolloutInProgress"

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

	// ProgressDeadlineExceededReason means the owned Deployment reports that its rollout
	// exceeded its progress deadline.
	ProgressDeadlineExceededReason = "ProgressDeadlineExceeded"
)
