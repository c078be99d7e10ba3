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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// TestErrorPolicy maps every kind of error a pass can end with, made as the reconciler
// makes it, to the Foo's Degraded reason, the Warning event, the retry and the recheck.
func TestErrorPolicy(t *testing.T) {
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "x", field.ErrorList{field.Invalid(field.NewPath("spec"), "", "bad")})
	r := &FooReconciler{}
	contested := (&contest{takers: []fieldTaker{{manager: "hpa"}}, corrections: 2}).err("web", ".spec.replicas", time.Minute, time.Hour)
	relabelled := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{ManagedByLabel: "policy"}}}
	tests := []struct {
		name         string
		err          error
		kind         errorKind
		reason       string // the Degraded reason; "" for none
		event        string // the Warning event's reason; "" for none
		retry        bool
		recheckAfter time.Duration
	}{
		{name: "a pass without error"},
		{name: "an apply whose resourceVersion precondition failed",
			err:  newPassError(writeFailed, fmt.Errorf("apply: %w", apierrors.NewConflict(deployments, "x", errors.New("the object has been modified")))),
			kind: staleDecision, retry: true},
		{name: "a create that lost the race for the name to the Foo's own Deployment",
			err:  newPassError(staleDecision, errors.New("create Deployment x: it was created or deleted concurrently, retrying")),
			kind: staleDecision, retry: true},
		{name: "a spec no valid Deployment can be made of", err: newPassError(invalidSpec, errors.New("bad image")),
			kind: invalidSpec, reason: samplev1alpha1.InvalidSpecReason, event: samplev1alpha1.InvalidSpecReason},
		{name: "a name taken by an object the Foo does not control", err: r.nameTaken(newFoo("taken"), "web", time.Now()),
			kind: nameTaken, reason: samplev1alpha1.DeploymentConflictReason, event: ReasonErrResourceExists, recheckAfter: DefaultConflictRecheckInterval},
		{name: "another writer that keeps taking a field", err: contested,
			kind: fieldContest, reason: samplev1alpha1.FieldManagerConflictReason, event: samplev1alpha1.FieldManagerConflictReason, recheckAfter: time.Minute},
		{name: "a read the API server failed", err: newPassError(readFailed, apierrors.NewServiceUnavailable("down")),
			kind: readFailed, reason: samplev1alpha1.DeploymentReadFailedReason, event: samplev1alpha1.DeploymentReadFailedReason, retry: true},
		{name: "a managedFields entry that cannot be read", err: newPassError(ownershipUnreadable, errors.New("read the fields of manager x")),
			kind: ownershipUnreadable, reason: samplev1alpha1.FieldOwnershipUnreadableReason, event: samplev1alpha1.FieldOwnershipUnreadableReason, retry: true},
		{name: "a write the API server failed", err: newPassError(writeFailed, apierrors.NewServiceUnavailable("down")),
			kind: writeFailed, reason: samplev1alpha1.DeploymentWriteFailedReason, event: samplev1alpha1.DeploymentWriteFailedReason, retry: true},
		{name: "a write refused as invalid (say by an admission policy)", err: newPassError(writeFailed, fmt.Errorf("create: %w", invalid)),
			kind: writeFailed, reason: samplev1alpha1.DeploymentWriteFailedReason, event: samplev1alpha1.DeploymentWriteFailedReason, retry: true},
		{name: "a Deployment whose managed-by label a mutating admission rewrote", err: r.unwatched(relabelled),
			kind: labelRewritten, reason: samplev1alpha1.DeploymentUnwatchedReason, event: samplev1alpha1.DeploymentUnwatchedReason, recheckAfter: DefaultConflictRecheckInterval},
		{name: "a budget name taken by a budget the Foo does not control", err: r.budgetTaken(newFoo("taken")),
			kind: budgetNameTaken, reason: samplev1alpha1.PodDisruptionBudgetConflictReason, event: samplev1alpha1.PodDisruptionBudgetConflictReason, recheckAfter: DefaultConflictRecheckInterval},
		{name: "a budget write the API server failed", err: newPassError(budgetWriteFailed, apierrors.NewServiceUnavailable("down")),
			kind: budgetWriteFailed, reason: samplev1alpha1.PodDisruptionBudgetWriteFailedReason, event: samplev1alpha1.PodDisruptionBudgetWriteFailedReason, retry: true},
		{name: "a budget apply whose resourceVersion precondition failed",
			err:  newPassError(budgetWriteFailed, apierrors.NewConflict(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}, "x", errors.New("the object has been modified"))),
			kind: staleDecision, retry: true},
		{name: "an error of no kind", err: errors.New("boom"),
			kind: unexpectedError, reason: samplev1alpha1.InternalErrorReason, event: samplev1alpha1.InternalErrorReason, retry: true},
	}
	covered := map[errorKind]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			d := &appsv1.Deployment{}
			obs := newObservation(d, tt.err)
			g.Expect(obs.deployment).To(BeIdenticalTo(d))
			g.Expect(obs.reason).To(Equal(tt.reason))
			g.Expect(obs.retryErr != nil).To(Equal(tt.retry))
			g.Expect(obs.requeueAfter).To(Equal(tt.recheckAfter))
			if tt.err == nil {
				return
			}
			kind, _ := kindOf(tt.err)
			g.Expect(kind).To(Equal(tt.kind))
			covered[kind] = true
			if tt.reason != "" {
				g.Expect(obs.message).To(Equal(tt.err.Error()))
				g.Expect(warningReason(obs.reason)).To(Equal(tt.event))
			}
		})
	}
	for kind := range errorPolicies {
		if !covered[kind] {
			t.Errorf("error kind %d has no case", kind)
		}
	}
}
