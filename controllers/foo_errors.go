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
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// The error policy of a pass. Every error reconcileDeployments ends with is a *passError of
// one kind, and errorPolicies says, for each kind, what the Foo shows and how the pass is
// retried; TestErrorPolicy maps every kind to its condition, event and requeue. A failed
// status write is not in it: it is returned for a retry with backoff, as the status it
// could not write is where a condition would go.

// errorKind is why a pass could not bring a Foo's Deployment to the desired state.
type errorKind int

const (
	// unexpectedError is an error the operator has no kind for: a bug, to report.
	unexpectedError errorKind = iota
	// staleDecision: the Deployment changed since the pass decided what to write (a write
	// precondition failed with Conflict, someone took the name between the look and the
	// create, an adoption candidate changed). The pass that sees the change decides again.
	staleDecision
	// invalidSpec: the spec cannot be turned into a valid Deployment.
	invalidSpec
	// nameTaken: the Deployment name belongs to an object the Foo does not control.
	nameTaken
	// fieldContest: another writer keeps taking a field of the Deployment the operator sets.
	fieldContest
	// readFailed: reading Deployments from the API server failed.
	readFailed
	// ownershipUnreadable: the field ownership (managedFields) of the Deployment could not
	// be read, so drift could not be judged.
	ownershipUnreadable
	// writeFailed: the API server refused or failed a write of a Deployment. Whatever it
	// answered, the write is retried: even an Invalid answer may come from an admission
	// policy or webhook that can change without the Foo changing, and the CRD rejects at
	// admission every Foo no valid Deployment can be made of (validateFoo).
	writeFailed
	// labelRewritten: the Deployment lacks the label the operator's cache selects by (a
	// mutating admission rewrites it), so its changes are not watched.
	labelRewritten
	// budgetNameTaken: the Foo's PodDisruptionBudget name belongs to a budget the Foo does
	// not control.
	budgetNameTaken
	// budgetWriteFailed: the API server refused or failed a write of the Foo's
	// PodDisruptionBudget.
	budgetWriteFailed
)

// errorPolicy is what a pass does with an error of one kind.
type errorPolicy struct {
	// reason is the Foo's Degraded reason, and (warningReason) the reason of the Warning
	// event announcing it; empty: the conditions show the Deployment as the pass found it.
	reason string
	// retry: the error goes back to controller-runtime, which retries the pass with
	// backoff, and observedGeneration stays. Otherwise only a change resolves it (of the
	// Foo, watched, or of an object outside the cache, looked at after recheckAfter), and
	// the status describes the generation.
	retry bool
}

var errorPolicies = map[errorKind]errorPolicy{
	unexpectedError:     {reason: samplev1alpha1.InternalErrorReason, retry: true},
	staleDecision:       {retry: true},
	invalidSpec:         {reason: samplev1alpha1.InvalidSpecReason},
	nameTaken:           {reason: samplev1alpha1.DeploymentConflictReason},
	fieldContest:        {reason: samplev1alpha1.FieldManagerConflictReason},
	readFailed:          {reason: samplev1alpha1.DeploymentReadFailedReason, retry: true},
	ownershipUnreadable: {reason: samplev1alpha1.FieldOwnershipUnreadableReason, retry: true},
	writeFailed:         {reason: samplev1alpha1.DeploymentWriteFailedReason, retry: true},
	labelRewritten:      {reason: samplev1alpha1.DeploymentUnwatchedReason},
	budgetNameTaken:     {reason: samplev1alpha1.PodDisruptionBudgetConflictReason},
	budgetWriteFailed:   {reason: samplev1alpha1.PodDisruptionBudgetWriteFailedReason, retry: true},
}

// passError is an error of a pass, of a kind.
type passError struct {
	kind errorKind
	err  error
	// recheckAfter is when to look again at an error that is not retried; 0 for never.
	recheckAfter time.Duration
}

func (e *passError) Error() string { return e.err.Error() }
func (e *passError) Unwrap() error { return e.err }

// newPassError is err, of kind. A write refused with Conflict is a staleDecision whatever
// kind the caller gives: the precondition the write carried no longer held.
func newPassError(kind errorKind, err error) *passError {
	if (kind == writeFailed || kind == budgetWriteFailed) && apierrors.IsConflict(err) {
		kind = staleDecision
	}
	return &passError{kind: kind, err: err}
}

// kindOf is the kind of err, and when to look again at it.
func kindOf(err error) (errorKind, time.Duration) {
	if pe := (*passError)(nil); errors.As(err, &pe) {
		return pe.kind, pe.recheckAfter
	}
	return unexpectedError, 0
}

// retried reports whether a pass that ends with err is retried with backoff: false for a
// condition only a change resolves.
func retried(err error) bool {
	kind, _ := kindOf(err)
	return errorPolicies[kind].retry
}

// warningReason is the reason of the Warning event for a Degraded reason; a name conflict
// keeps sample-controller's ErrResourceExists.
func warningReason(degradedReason string) string {
	if degradedReason == samplev1alpha1.DeploymentConflictReason {
		return ReasonErrResourceExists
	}
	return degradedReason
}
