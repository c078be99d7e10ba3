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
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	policyv1ac "k8s.io/client-go/applyconfigurations/policy/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// The PodDisruptionBudget of a Foo is named like the Foo and selects its pods by their
// selector labels, which a rename of spec.deploymentName keeps: while a rename rolls the
// pods over to the new Deployment, one budget covers the pods of both (two budgets
// selecting the same pod would make the eviction API refuse every eviction of it).

// budgetFor is the PodDisruptionBudget a Foo asks for (WantsDisruptionBudget), as a
// server-side apply configuration: at most one of its pods unavailable through voluntary
// disruptions, and pods that are not ready evictable whatever the budget says, so that a
// Foo whose pods cannot start never blocks a node drain.
func budgetFor(foo *samplev1alpha1.Foo) *policyv1ac.PodDisruptionBudgetApplyConfiguration {
	return policyv1ac.PodDisruptionBudget(foo.Name, foo.Namespace).
		WithLabels(deploymentLabels(foo)).
		WithOwnerReferences(controlledBy(foo)).
		WithSpec(policyv1ac.PodDisruptionBudgetSpec().
			WithMaxUnavailable(intstr.FromInt32(1)).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(SelectorLabels(foo.Name))).
			WithUnhealthyPodEvictionPolicy(policyv1.AlwaysAllow))
}

// budgetCurrent reports whether live, a budget the Foo controls, has what desired sets:
// its labels (among others) and its spec.
func budgetCurrent(live *policyv1.PodDisruptionBudget, desired *policyv1ac.PodDisruptionBudgetApplyConfiguration) bool {
	for k, v := range desired.Labels {
		if live.Labels[k] != v {
			return false
		}
	}
	want := desired.Spec
	return equality.Semantic.DeepEqual(live.Spec.MaxUnavailable, want.MaxUnavailable) && live.Spec.MinAvailable == nil &&
		live.Spec.Selector != nil && len(live.Spec.Selector.MatchExpressions) == 0 &&
		maps.Equal(live.Spec.Selector.MatchLabels, want.Selector.MatchLabels) &&
		live.Spec.UnhealthyPodEvictionPolicy != nil && *live.Spec.UnhealthyPodEvictionPolicy == *want.UnhealthyPodEvictionPolicy
}

// reconcileBudget keeps the Foo's PodDisruptionBudget as the Foo asks: created with a POST
// (refused, without a write, when the name is taken), changed by server-side apply when it
// differs, deleted when the Foo asks for none. It reads the budget from the cache, which
// holds only the operator's budgets, and never writes to one the Foo does not control.
func (r *FooReconciler) reconcileBudget(ctx context.Context, foo *samplev1alpha1.Foo) error {
	live := &policyv1.PodDisruptionBudget{}
	err := r.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}, live)
	if client.IgnoreNotFound(err) != nil {
		return newPassError(unexpectedError, fmt.Errorf("read PodDisruptionBudget %s/%s from the cache: %w", foo.Namespace, foo.Name, err))
	}
	found := err == nil
	controlled := found && metav1.IsControlledBy(live, foo)
	desired := budgetFor(foo)
	switch {
	case !foo.Spec.WantsDisruptionBudget():
		if controlled {
			return r.deleteBudget(ctx, foo, live)
		}
		return nil
	case !found:
		return r.createBudget(ctx, foo, desired)
	case !controlled:
		return r.budgetTaken(foo)
	case !budgetCurrent(live, desired):
		return r.applyBudget(ctx, foo, desired, live)
	}
	return nil
}

// createBudget creates the Foo's budget with a POST.
func (r *FooReconciler) createBudget(ctx context.Context, foo *samplev1alpha1.Foo, desired *policyv1ac.PodDisruptionBudgetApplyConfiguration) error {
	pdb := &policyv1.PodDisruptionBudget{}
	if err := convert(desired, pdb); err != nil {
		return err
	}
	if err := r.Create(ctx, pdb, client.FieldOwner(FieldManager)); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return r.existingBudget(ctx, foo, desired)
		}
		return newPassError(budgetWriteFailed, fmt.Errorf("create PodDisruptionBudget %s: %w", klog.KObj(pdb), err))
	}
	log.FromContext(ctx).Info("Created PodDisruptionBudget", "podDisruptionBudget", klog.KObj(pdb))
	r.Recorder.Eventf(foo, pdb, corev1.EventTypeNormal, ReasonBudgetCreated, "Create",
		"Created PodDisruptionBudget %s: at most 1 of the %d pods unavailable through voluntary disruptions", pdb.Name, foo.Spec.DesiredReplicas())
	return nil
}

// existingBudget decides on the budget a create found under the Foo's name, read from the
// API server: most often the one this Foo's previous pass made, which the cache has not seen
// yet; otherwise another's, which it leaves alone.
func (r *FooReconciler) existingBudget(ctx context.Context, foo *samplev1alpha1.Foo, desired *policyv1ac.PodDisruptionBudgetApplyConfiguration) error {
	live := &policyv1.PodDisruptionBudget{}
	if err := r.APIReader.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}, live); err != nil {
		if apierrors.IsNotFound(err) {
			return newPassError(staleDecision, fmt.Errorf("create PodDisruptionBudget %s/%s: it was deleted since, retrying", foo.Namespace, foo.Name))
		}
		return newPassError(unexpectedError, fmt.Errorf("read PodDisruptionBudget %s/%s: %w", foo.Namespace, foo.Name, err))
	}
	switch {
	case !metav1.IsControlledBy(live, foo):
		return r.budgetTaken(foo)
	case !budgetCurrent(live, desired):
		return r.applyBudget(ctx, foo, desired, live)
	}
	return nil
}

// applyBudget takes back what another writer changed in the Foo's budget. The apply
// carries live's resourceVersion: it fails with a Conflict, retried, when the budget
// changed since.
func (r *FooReconciler) applyBudget(ctx context.Context, foo *samplev1alpha1.Foo, desired *policyv1ac.PodDisruptionBudgetApplyConfiguration, live *policyv1.PodDisruptionBudget) error {
	if err := r.Apply(ctx, desired.WithResourceVersion(live.ResourceVersion), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return newPassError(budgetWriteFailed, fmt.Errorf("apply PodDisruptionBudget %s: %w", klog.KObj(live), err))
	}
	log.FromContext(ctx).Info("Corrected drift of PodDisruptionBudget", "podDisruptionBudget", klog.KObj(live))
	r.Recorder.Eventf(foo, live, corev1.EventTypeNormal, ReasonBudgetUpdated, "Update",
		"Updated PodDisruptionBudget %s to match the Foo", live.Name)
	return nil
}

// deleteBudget deletes the budget the Foo controls and no longer asks for; the
// preconditions make sure it is the one found, as it was found.
func (r *FooReconciler) deleteBudget(ctx context.Context, foo *samplev1alpha1.Foo, live *policyv1.PodDisruptionBudget) error {
	err := r.Delete(ctx, live, client.Preconditions{UID: &live.UID, ResourceVersion: &live.ResourceVersion})
	if client.IgnoreNotFound(err) != nil {
		return newPassError(budgetWriteFailed, fmt.Errorf("delete PodDisruptionBudget %s: %w", klog.KObj(live), err))
	}
	why := "spec.podDisruptionBudget is Disabled"
	if foo.Spec.PodDisruptionBudget != samplev1alpha1.PodDisruptionBudgetDisabled {
		why = fmt.Sprintf("the Foo has %d replicas", foo.Spec.DesiredReplicas())
	}
	log.FromContext(ctx).Info("Deleted PodDisruptionBudget the Foo no longer asks for", "podDisruptionBudget", klog.KObj(live), "why", why)
	r.Recorder.Eventf(foo, live, corev1.EventTypeNormal, ReasonBudgetDeleted, "Delete", "Deleted PodDisruptionBudget %s: %s", live.Name, why)
	return nil
}

// budgetTaken is the error of a Foo whose budget name is taken by a budget it does not
// control. Such a budget is outside the cache unless it carries the operator's label, so
// the Foo looks again after the first conflict recheck interval.
func (r *FooReconciler) budgetTaken(foo *samplev1alpha1.Foo) error {
	first, _ := r.recheckBounds()
	return &passError{
		kind: budgetNameTaken,
		err: fmt.Errorf("PodDisruptionBudget %q already exists and is not managed by Foo: delete or rename it, or set spec.podDisruptionBudget to Disabled to keep it as the Foo's budget", //nolint:staticcheck // a condition message, starting with the kind
			foo.Name),
		recheckAfter: first,
	}
}
