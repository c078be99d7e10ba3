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
	"encoding/json"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// Test builders: newFoo("a", withReplicas(3)) instead of copied literals.

type fooOption func(*samplev1alpha1.Foo)

// newFoo is a Foo in namespace "default" naming Deployment <name>-web with 1 replica.
func newFoo(name string, opts ...fooOption) *samplev1alpha1.Foo {
	foo := &samplev1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: samplev1alpha1.FooSpec{
			DeploymentName: name + "-web",
			Replicas:       ptr.To[int32](1),
		},
	}
	for _, opt := range opts {
		opt(foo)
	}
	return foo
}

func withNamespace(ns string) fooOption {
	return func(f *samplev1alpha1.Foo) { f.Namespace = ns }
}

func withDeploymentName(name string) fooOption {
	return func(f *samplev1alpha1.Foo) { f.Spec.DeploymentName = name }
}

func withReplicas(n int32) fooOption {
	return func(f *samplev1alpha1.Foo) { f.Spec.Replicas = ptr.To(n) }
}

func withoutReplicas() fooOption {
	return func(f *samplev1alpha1.Foo) { f.Spec.Replicas = nil }
}

func withImage(image string) fooOption {
	return func(f *samplev1alpha1.Foo) { f.Spec.Image = image }
}

// withIdentity sets what the API server sets: a UID and a generation.
func withIdentity(uid string, generation int64) fooOption {
	return func(f *samplev1alpha1.Foo) {
		f.UID = types.UID(uid)
		f.Generation = generation
	}
}

func withStatus(status samplev1alpha1.FooStatus) fooOption {
	return func(f *samplev1alpha1.Foo) { f.Status = status }
}

type deploymentOption func(*appsv1.Deployment)

// newDeployment is the Deployment the operator builds for foo, before any controller ran.
func newDeployment(foo *samplev1alpha1.Foo, opts ...deploymentOption) *appsv1.Deployment {
	d, err := asDeployment(DeploymentFor(foo, testImage))
	if err != nil {
		panic(err)
	}
	d.Generation = 1
	for _, opt := range opts {
		opt(d)
	}
	return d
}

// withRollout sets the Deployment status as the Deployment controller would: generation
// observed, updated and available replicas, the Available condition, and the Progressing
// condition, which reports the new ReplicaSet available once every replica is updated and
// available.
func withRollout(updated, available int32, availableCondition bool) deploymentOption {
	return func(d *appsv1.Deployment) {
		replicas := ptr.Deref(d.Spec.Replicas, 1)
		d.Status.ObservedGeneration = d.Generation
		d.Status.Replicas = max(replicas, updated)
		d.Status.UpdatedReplicas = updated
		d.Status.ReadyReplicas = available
		d.Status.AvailableReplicas = available
		status := corev1.ConditionFalse
		if availableCondition {
			status = corev1.ConditionTrue
		}
		setDeploymentCondition(d, appsv1.DeploymentAvailable, status, "MinimumReplicasAvailable")
		progress := "ReplicaSetUpdated"
		if updated >= replicas && available >= replicas && availableCondition {
			progress = "NewReplicaSetAvailable"
		}
		setDeploymentCondition(d, appsv1.DeploymentProgressing, corev1.ConditionTrue, progress)
	}
}

// withPodsLost sets what the Deployment controller reports when pods of a completed
// rollout are lost: the new ReplicaSet was available, now only available replicas are.
func withPodsLost(available int32) deploymentOption {
	return func(d *appsv1.Deployment) {
		d.Status.ReadyReplicas, d.Status.AvailableReplicas = available, available
		setDeploymentCondition(d, appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable")
	}
}

// quotaMessage is the ReplicaFailure message of a Deployment whose pods a ResourceQuota
// refuses, as the Deployment controller copies it from the ReplicaSet's.
const quotaMessage = `pods "a-web-5d4f8b7c9-x2x7q" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=4, limited: pods=4`

// withReplicaFailure sets the ReplicaFailure condition the Deployment controller reports
// when a ResourceQuota refuses its ReplicaSet's pods (quotaMessage).
func withReplicaFailure() deploymentOption {
	return func(d *appsv1.Deployment) {
		d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{
			Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: quotaMessage,
		})
	}
}

func withProgressDeadlineExceeded() deploymentOption {
	return func(d *appsv1.Deployment) {
		setDeploymentCondition(d, appsv1.DeploymentProgressing, corev1.ConditionFalse, "ProgressDeadlineExceeded")
	}
}

// withPaused pauses the Deployment (kubectl rollout pause) as the Deployment controller
// reports it: Progressing Unknown, reason DeploymentPaused, whatever the rollout's step.
func withPaused() deploymentOption {
	return func(d *appsv1.Deployment) {
		d.Spec.Paused = true
		setDeploymentCondition(d, appsv1.DeploymentProgressing, corev1.ConditionUnknown, "DeploymentPaused")
	}
}

// setDeploymentCondition sets the Deployment's condition of type t.
func setDeploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason string) {
	c := appsv1.DeploymentCondition{Type: t, Status: status, Reason: reason}
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			d.Status.Conditions[i] = c
			return
		}
	}
	d.Status.Conditions = append(d.Status.Conditions, c)
}

// testImage is the default operand image in tests.
const testImage = "registry.example.com/nginx-unprivileged:1.28.0-alpine"

// asDeployment converts an apply configuration to the Deployment type.
func asDeployment(ac *appsv1ac.DeploymentApplyConfiguration) (*appsv1.Deployment, error) {
	raw, err := json.Marshal(ac)
	if err != nil {
		return nil, err
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, err
	}
	return d, nil
}

// withUnavailable sets the Deployment's Available condition False, as the Deployment
// controller does below minimum availability.
func withUnavailable() deploymentOption {
	return func(d *appsv1.Deployment) {
		setDeploymentCondition(d, appsv1.DeploymentAvailable, corev1.ConditionFalse, "MinimumReplicasAvailable")
	}
}

// withOwnedFields records an apply of the operator that owns fields, and a status write of
// kube-controller-manager, as the API server does in managedFields.
func withOwnedFields(fields *fieldpath.Set) deploymentOption {
	raw, err := fields.ToJSON()
	if err != nil {
		panic(err)
	}
	return func(d *appsv1.Deployment) {
		d.ManagedFields = append(d.ManagedFields,
			metav1.ManagedFieldsEntry{Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply, FieldsV1: &metav1.FieldsV1{Raw: raw}},
			metav1.ManagedFieldsEntry{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{}}`)}})
	}
}

// withAppliedAt records an apply of the operator at t, as the API server does in
// managedFields.
func withAppliedAt(t time.Time) deploymentOption {
	return func(d *appsv1.Deployment) {
		d.ManagedFields = append(d.ManagedFields, metav1.ManagedFieldsEntry{
			Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply, Time: &metav1.Time{Time: t},
		})
	}
}
