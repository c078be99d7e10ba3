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
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// Event reasons. Events are emitted on state changes only.
const (
	// ReasonDeploymentCreated: the operator created a Foo's Deployment.
	ReasonDeploymentCreated = "DeploymentCreated"
	// ReasonDeploymentScaled: the operator changed the replicas of a Foo's Deployment.
	ReasonDeploymentScaled = "DeploymentScaled"
	// ReasonDeploymentUpdated: the operator corrected other fields of a Foo's Deployment.
	ReasonDeploymentUpdated = "DeploymentUpdated"
	// ReasonDeploymentAdopted: the operator adopted a Deployment made for an earlier Foo of
	// the same name and left without a controller.
	ReasonDeploymentAdopted = "DeploymentAdopted"
	// ReasonDeploymentDeleted: the operator deleted a Deployment the Foo no longer names.
	ReasonDeploymentDeleted = "DeploymentDeleted"
	// ReasonBudgetCreated, ReasonBudgetUpdated, ReasonBudgetDeleted: the operator created,
	// corrected or deleted a Foo's PodDisruptionBudget.
	ReasonBudgetCreated = "PodDisruptionBudgetCreated"
	ReasonBudgetUpdated = "PodDisruptionBudgetUpdated"
	ReasonBudgetDeleted = "PodDisruptionBudgetDeleted"
	// ReasonErrResourceExists (Warning): the Deployment name is taken by an object the Foo
	// does not control. The reason and message are kubernetes/sample-controller's.
	ReasonErrResourceExists = "ErrResourceExists"
	// MessageResourceExists is the message of ReasonErrResourceExists events and of the
	// DeploymentConflict condition.
	MessageResourceExists = "Resource %q already exists and is not managed by Foo"
)

// repairFieldManager is the field manager of the patches that restore the operator's
// member of one-of fields (oneOfRepair).
const repairFieldManager = FieldManager + "-repair"

// Field index names of the manager's cache.
const (
	// deploymentControllerIndex indexes Deployments by the UID of their controlling Foo.
	deploymentControllerIndex = ".metadata.controller.foo"
	// fooDeploymentNameIndex indexes Foos by spec.deploymentName.
	fooDeploymentNameIndex = ".spec.deploymentName"
)

// A Foo whose Deployment name is taken by an object the operator does not manage checks
// whether the name became free: first after DefaultConflictRecheckInterval, then as long
// after as the conflict has lasted (so the interval doubles), at most every
// DefaultMaxConflictRecheckInterval. Such objects are outside the operator's cache, which
// holds only its own Deployments, so their deletion cannot be watched; a metadata-only
// watch of every Deployment would make the operator's memory grow with the cluster's
// Deployments, while the backoff keeps the reads of many blocked Foos low (each Foo reads
// about log2(t/30s) times in t).
const (
	DefaultConflictRecheckInterval    = 30 * time.Second
	DefaultMaxConflictRecheckInterval = 10 * time.Minute
)

// DefaultMaxReportedRollouts is the --progress-report-max-rollouts the operator ships with:
// how many Foos that are not Ready may wait on rollouts at once for theirs to be reported
// in progress (see waitingRollouts).
const DefaultMaxReportedRollouts = 50

// DefaultProgressReportDelay is how long after changing a Deployment the operator reports
// the steps of its rollout: a rollout that completes sooner is reported once, when it
// completes (see progressReportWait).
const DefaultProgressReportDelay = 15 * time.Second

// FooReconciler keeps, for every Foo, an nginx Deployment of the name and size the Foo asks
// for, and reports the Deployment's state in the Foo's status.
type FooReconciler struct {
	// Client reads from the manager's cache and writes to the API server.
	client.Client
	// Deployments applies Deployments. It is client-go's typed client because its Apply
	// returns the Deployment the API server stored, which the status must be computed
	// from; controller-runtime's Apply does not fill in the response.
	Deployments appsv1client.DeploymentsGetter
	// APIReader reads from the API server directly. It sees the Deployments the cache does
	// not hold: those the operator does not manage.
	APIReader client.Reader
	// Recorder emits events about Foos.
	Recorder events.EventRecorder
	// DefaultImage is the operand image of Foos that set no spec.image.
	DefaultImage string
	// ConflictRecheckInterval and MaxConflictRecheckInterval bound how often a Foo in
	// conflict with a Deployment the operator does not manage is reconciled again; the
	// Default* values when zero.
	ConflictRecheckInterval, MaxConflictRecheckInterval time.Duration
	// ProgressReportDelay is how long after changing a Deployment the steps of its rollout
	// are reported in the status; DefaultProgressReportDelay when zero.
	ProgressReportDelay time.Duration
	// MaxReportedRollouts is how many Foos that are not Ready may wait on rollouts at once
	// for reports in progress to be written; a report that falls due while more wait is
	// written at the rollout's end, a problem, a change of readiness or the progress
	// deadline (waitingRollouts). 0 holds back every report in progress of a Foo that is not
	// Ready; negative is no bound.
	MaxReportedRollouts int
	// SpareTokens reports whether the operator's client limit has tokens to spare (its
	// bucket full but for a token) for a report in progress (progressReportWait); nil when
	// there is no client limit.
	SpareTokens func() bool

	// memory is what passes remember about Foos in a name conflict or a field contest, and
	// the status writes the cache has not shown yet.
	memory memories
	// ownership is what passes remember of the fields the operator's Deployments lack.
	ownership ownership
	// hashes are what passes remember of the DesiredHashLabel of each Foo's Deployment.
	hashes desiredHashes
	// waiting are the Foos that are not Ready and wait on a rollout for a report in progress.
	waiting waitingRollouts
	// queue is the controller's workqueue, once the controller made it.
	queue workqueueOf
}

// Foos are read from the cache only: list and watch, no get. test/chaos checks that every
// permission here is used (or says why it is held without a request).
// +kubebuilder:rbac:groups=samplecontroller.example.com,resources=foos,verbs=list;watch
// +kubebuilder:rbac:groups=samplecontroller.example.com,resources=foos/status,verbs=patch
// The controller ownerReference sets blockOwnerDeletion, which clusters with the
// OwnerReferencesPermissionEnforcement admission plugin (OpenShift) allow only to who may
// update the owner's finalizers.
// +kubebuilder:rbac:groups=samplecontroller.example.com,resources=foos/finalizers,verbs=update
// Deployments are created with a POST, scaled with a JSON patch, and otherwise changed by
// server-side apply.
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile brings the Deployment of one Foo to the state the Foo asks for and writes the
// Foo's status. Deleting a Foo needs no work here: the garbage collector deletes its
// Deployment through the controller ownerReference.
func (r *FooReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	foo := &samplev1alpha1.Foo{}
	if err := r.Get(ctx, req.NamespacedName, foo); err != nil || !foo.DeletionTimestamp.IsZero() {
		r.forget(req.NamespacedName)
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	obs := newObservation(r.reconcileDeployments(ctx, foo))
	if obs.reason != samplev1alpha1.DeploymentConflictReason {
		r.memory.nameFree(foo)
	}
	wait, err := r.reconcileStatus(ctx, foo, obs)
	if err := errors.Join(obs.retryErr, err); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: soonest(wait, obs.requeueAfter)}, nil
}

// forget drops what passes remember of a Foo that is gone.
func (r *FooReconciler) forget(foo types.NamespacedName) {
	r.memory.forget(foo)
	r.ownership.forget(foo)
	r.hashes.forget(foo)
	r.waiting.forget(foo)
}

// soonest is the shorter of two waits, a zero wait meaning none.
func soonest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// reconcileDeployments makes the Deployment named in spec.deploymentName match the Foo and
// then deletes the Deployments the Foo controls under other names (left by a rename) and
// keeps its PodDisruptionBudget. It returns the Deployment the status describes: the Foo's
// current Deployment, or, when it has none, the one it still serves with
// (servingDeployment); and a *passError (foo_errors.go) when it could not. A contest over a
// field of the Deployment (a condition, not retried) does not hold the rest back: a Foo an
// autoscaler of its Deployment keeps Degraded still gets its budget and loses its old
// Deployments. Of several errors the Foo shows one: one that is retried, then the contest,
// then a taken budget name, then an unwatched Deployment.
func (r *FooReconciler) reconcileDeployments(ctx context.Context, foo *samplev1alpha1.Foo) (*appsv1.Deployment, error) {
	d, condition := r.reconcileDeployment(ctx, foo)
	switch {
	case d == nil && condition != nil:
		return r.servingDeployment(ctx, foo), condition
	case condition != nil && retried(condition):
		return d, condition
	}
	if err := r.deleteStaleDeployments(ctx, foo, d); err != nil {
		return d, err
	}
	if err := r.reconcileBudget(ctx, foo); err != nil && (condition == nil || retried(err)) {
		return d, err
	}
	return d, cmp.Or(condition, r.unwatched(d))
}

// unwatched is the Degraded reason of a Deployment that lacks the label the operator's
// cache selects its Deployments by: a mutating admission policy or webhook rewrites the
// label the operator sets, so the cache holds nothing of the Deployment, and no change of
// it starts a pass. Until the label is left alone the Foo looks again after every recheck
// interval, reading the Deployment from the API server: a deleted Deployment is created
// again, and a renamed Foo's old Deployments are found by listing the namespace.
func (r *FooReconciler) unwatched(d *appsv1.Deployment) error {
	if d == nil || watched(d) {
		return nil
	}
	first, _ := r.recheckBounds()
	return &passError{
		kind: labelRewritten,
		err: fmt.Errorf("Deployment %s has label %s=%q after the operator set %q: a mutating admission policy or webhook rewrites it, and the operator watches only the Deployments labelled %s=%s, so it sees this one's changes only when it looks again, every %s; exclude Deployments owned by Foos, or this label, from that policy", //nolint:staticcheck // a condition message, starting with the kind
			d.Name, ManagedByLabel, d.Labels[ManagedByLabel], ManagedByValue, ManagedByLabel, ManagedByValue, first),
		recheckAfter: first,
	}
}

// watched reports whether d carries the label the operator's cache selects by.
func watched(d *appsv1.Deployment) bool {
	return d.Labels[ManagedByLabel] == ManagedByValue
}

// servingDeployment is, for a pass that ends without a Deployment under
// spec.deploymentName (its name taken, its spec invalid, a write refused), the Deployment
// the Foo controls under another name and still serves with: the one with the most
// available replicas. The status goes on describing it, so that the scale subresource keeps
// its replicas and selector (an autoscaler of the Foo keeps working) until a new one
// replaces it. nil when there is none.
func (r *FooReconciler) servingDeployment(ctx context.Context, foo *samplev1alpha1.Foo) *appsv1.Deployment {
	owned, err := r.ownedDeployments(ctx, foo, true)
	if err != nil {
		log.FromContext(ctx).Error(err, "List the Deployments the Foo controls")
		return nil
	}
	var serving *appsv1.Deployment
	for _, d := range owned {
		if serving == nil || d.Status.AvailableReplicas > serving.Status.AvailableReplicas {
			serving = d
		}
	}
	return serving
}

// ownedDeployments are the Deployments foo controls that were made for it and are not
// being deleted, sorted by name: from the cache, or, when cached is false, from a list of
// the namespace in the API server, which finds them whatever their labels say.
func (r *FooReconciler) ownedDeployments(ctx context.Context, foo *samplev1alpha1.Foo, cached bool) ([]*appsv1.Deployment, error) {
	list := &appsv1.DeploymentList{}
	var err error
	if cached {
		err = r.List(ctx, list, client.InNamespace(foo.Namespace), client.MatchingFields{deploymentControllerIndex: string(foo.UID)})
	} else {
		err = r.APIReader.List(ctx, list, client.InNamespace(foo.Namespace))
	}
	if err != nil {
		return nil, newPassError(readFailed, fmt.Errorf("list Deployments of Foo %s: %w", klog.KObj(foo), err))
	}
	var owned []*appsv1.Deployment
	for i := range list.Items {
		d := &list.Items[i]
		if slices.Contains(indexDeploymentController(d), string(foo.UID)) && d.DeletionTimestamp.IsZero() && madeFor(d, foo) {
			owned = append(owned, d)
		}
	}
	slices.SortFunc(owned, func(a, b *appsv1.Deployment) int { return strings.Compare(a.Name, b.Name) })
	return owned, nil
}

// reconcileDeployment checks the spec, then makes the Deployment named in
// spec.deploymentName match the Foo in three steps: observe reads it, decide chooses one
// write or none, act writes. A Deployment of that name the Foo does not control is never
// written unless it is adoptable: the result is a DeploymentConflict. Every write carries
// the resourceVersion of what was observed, so a write based on a Deployment that changed
// since (a lagging cache, a concurrent create) is refused with a Conflict, and the pass
// ends with a staleDecision, retried at once on a fresh read: nothing is decided twice in a
// pass.
//
// The cache holds only the Deployments the operator manages, so when it has none of the
// name, the Deployment is created at once, and read from the API server only when the
// name is taken (AlreadyExists): a Deployment someone else created is seen, and sent no
// write, without a read before every create. A Foo whose name was found taken reads the
// API server first until the name is free.
func (r *FooReconciler) reconcileDeployment(ctx context.Context, foo *samplev1alpha1.Foo) (*appsv1.Deployment, error) {
	if err := validateFoo(foo, r.DefaultImage); err != nil {
		return nil, newPassError(invalidSpec, err)
	}
	desired := r.hashes.deploymentFor(foo, r.DefaultImage)
	cached := !r.memory.inConflict(foo)
	reader := r.APIReader
	if cached {
		reader = r.Client
	}
	o, err := r.observe(ctx, reader, foo, desired)
	if err != nil {
		return nil, err
	}
	if o.live == nil && cached {
		d, err := r.createDeployment(ctx, foo, desired)
		if !errors.Is(err, errNameExists) {
			return d, err
		}
		if o, err = r.observe(ctx, r.APIReader, foo, desired); err != nil {
			return nil, err
		}
	}
	w, condition := r.decide(foo, o)
	if w.action == noWrite {
		if !o.controlled {
			return nil, condition
		}
		return o.live, condition
	}
	d, err := r.act(ctx, foo, desired, o.live, w)
	return d, cmp.Or(err, condition)
}

// seen is what a pass knows of the Deployment of the Foo's name.
type seen struct {
	// live is the Deployment; nil when there is none.
	live *appsv1.Deployment
	// controlled: the Foo controls live.
	controlled bool
	// drift is live's drift from the Foo, when the Foo controls it.
	drift drift
}

// observe reads the Deployment of the Foo's name with reader: the cache, which holds only
// the Deployments the operator manages, with their managedFields but those of the status
// subresource (so it says who took a field the operator sets), or the API server.
func (r *FooReconciler) observe(ctx context.Context, reader client.Reader, foo *samplev1alpha1.Foo, desired *appsv1ac.DeploymentApplyConfiguration) (seen, error) {
	key := types.NamespacedName{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName}
	d := &appsv1.Deployment{}
	switch err := reader.Get(ctx, key, d); {
	case apierrors.IsNotFound(err):
		return seen{}, nil
	case err != nil:
		return seen{}, newPassError(readFailed, fmt.Errorf("get Deployment %s: %w", key, err))
	}
	o := seen{live: d, controlled: metav1.IsControlledBy(d, foo)}
	if !o.controlled {
		return o, nil
	}
	var err error
	o.drift, err = r.ownership.driftOf(client.ObjectKeyFromObject(foo), desired, d)
	return o, err
}

// write is what a pass writes to the Deployment of the Foo's name.
type write struct {
	action writeAction
	// taker is the writer whose field an update takes back; nil when none.
	taker *fieldTaker
	// ownCreated: the apply may prune fields the operator's create (or scales) set, so their
	// Update entry becomes its apply entry first (ownCreatedFields).
	ownCreated bool
	// scale: the update changes spec.replicas alone (scaleOnly), so it is a JSON patch of
	// them rather than an apply (scale).
	scale bool
}

type writeAction int

const (
	noWrite writeAction = iota
	createWrite
	updateWrite
	adoptWrite
)

// decide chooses the write for what observe saw, once: create a missing Deployment, adopt
// an adoptable one, update a controlled one that drifted (a field another writer took only
// when its contest allows, or at once when the Foo changed since its last correction: see
// contest and fieldTaken), and otherwise nothing. The error is the Foo's
// condition: a DeploymentConflict, or the FieldManagerConflict of a contest, which an
// update does not end.
func (r *FooReconciler) decide(foo *samplev1alpha1.Foo, o seen) (write, error) {
	first, limit := r.recheckBounds()
	now := time.Now()
	switch {
	case o.live == nil:
		return write{action: createWrite}, nil
	case adoptable(o.live, foo):
		return write{action: adoptWrite, ownCreated: createdBy(o.live)}, nil
	case !o.controlled:
		return write{}, r.nameTaken(foo, o.live.Name, now)
	case o.drift.none():
		return write{}, r.memory.fieldsHeld(foo, o.live, now, limit)
	}
	update := write{action: updateWrite, ownCreated: o.drift.changed && !o.drift.replicasOnly && createdBy(o.live), scale: scaleOnly(o, foo.Spec.DesiredReplicas())}
	taker, err := takerOf(o.live, o.drift.lost)
	switch {
	case err != nil:
		return write{}, err
	case taker == nil:
		return update, r.memory.fieldsHeld(foo, o.live, now, limit)
	}
	if apply, err := r.memory.fieldTaken(foo, *taker, o.live, o.drift.changed, now, first, limit); !apply {
		return write{}, err
	}
	update.taker = taker
	return update, nil
}

// createdBy reports whether d has the managedFields entry of the operator's Update writes:
// its create's, or its scales'.
func createdBy(d *appsv1.Deployment) bool {
	return slices.ContainsFunc(d.ManagedFields, isOwnCreate)
}

// replicasField is spec.replicas, as managedFields record it.
var replicasField = fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "replicas"))

// scaleOnly reports whether the update of the controlled Deployment o saw changes its
// replicas alone: the Foo's replicas changed and nothing else it sets, or another writer
// took or removed the replicas, and no other field of the operator's is lost; and live runs
// another number than replicas (a write of the value live has would change no ownership).
func scaleOnly(o seen, replicas int32) bool {
	return (!o.drift.changed || o.drift.replicasOnly) && o.drift.lost.Difference(replicasField).Empty() && replicasOf(o.live) != replicas
}

// act writes w: it creates the Deployment, or scales or applies desired over live, the
// Deployment the decision was made on.
func (r *FooReconciler) act(ctx context.Context, foo *samplev1alpha1.Foo, desired *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment, w write) (*appsv1.Deployment, error) {
	if w.action == createWrite {
		d, err := r.createDeployment(ctx, foo, desired)
		if errors.Is(err, errNameExists) {
			return nil, newPassError(staleDecision, fmt.Errorf("create Deployment %s/%s: %w since the pass looked", foo.Namespace, *desired.Name, err))
		}
		return d, err
	}
	if w.ownCreated {
		var err error
		if live, err = r.ownCreatedFields(ctx, live); err != nil {
			return live, err
		}
	}
	var note string
	if w.taker != nil {
		note = fmt.Sprintf("; took %s back from field manager %q", w.taker.field, w.taker.manager)
	}
	var written *appsv1.Deployment
	var err error
	switch {
	case w.action == adoptWrite:
		written, err = r.applyOver(ctx, foo, desired, live, true, note)
	case w.scale:
		written, err = r.scale(ctx, foo, desired, live, note)
	default:
		written, err = r.applyOver(ctx, foo, desired, live, false, note)
	}
	if err != nil || w.taker == nil {
		return written, err
	}
	fieldTakeovers.WithLabelValues(takeovers.of(*w.taker)).Inc()
	first, limit := r.recheckBounds()
	return written, r.memory.fieldCorrected(foo, *w.taker, written, time.Now(), first, limit)
}

// nameTaken is the DeploymentConflict of a Foo whose Deployment name belongs to an object
// the Foo does not control, with when to look at the name again.
func (r *FooReconciler) nameTaken(foo *samplev1alpha1.Foo, name string, now time.Time) error {
	return &passError{
		kind:         nameTaken,
		err:          fmt.Errorf(MessageResourceExists, name), //nolint:staticcheck // sample-controller's wording, shown as the condition message
		recheckAfter: r.conflictRecheckAfter(r.memory.nameTaken(foo, now), now),
	}
}

// errNameExists is the error of a create refused because the name is taken.
var errNameExists = errors.New("a Deployment of that name exists")

// createDeployment creates the Deployment with a POST, which the API server refuses with
// AlreadyExists (errNameExists) when a Deployment of that name exists, whoever made it,
// without writing to it. The operator's field manager records the create as an Update
// entry of every field it sets (and those the API server defaulted): drift is judged on it
// as on the operator's applies (isOwn), and the first apply that changes more than the
// replicas first turns it into the operator's apply entry (ownCreatedFields), so that an
// apply can prune what the create set.
func (r *FooReconciler) createDeployment(ctx context.Context, foo *samplev1alpha1.Foo, desired *appsv1ac.DeploymentApplyConfiguration) (*appsv1.Deployment, error) {
	d := &appsv1.Deployment{}
	if err := convert(desired, d); err != nil {
		return nil, err
	}
	if err := r.Create(ctx, d, client.FieldOwner(FieldManager)); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil, errNameExists
		}
		return nil, newPassError(writeFailed, fmt.Errorf("create Deployment %s/%s: %w", foo.Namespace, *desired.Name, err))
	}
	deploymentWrites.WithLabelValues("create").Inc()
	log.FromContext(ctx).Info("Created Deployment", "deployment", klog.KObj(d), "replicas", foo.Spec.DesiredReplicas())
	r.Recorder.Eventf(foo, d, corev1.EventTypeNormal, ReasonDeploymentCreated, "Create",
		"Created Deployment %s with %d replicas", d.Name, foo.Spec.DesiredReplicas())
	return d, nil
}

// convert turns an apply configuration into the object it describes.
func convert(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}

// adoptable reports whether d was made by the operator for an earlier Foo of foo's name,
// which is gone (names are unique): d has no controller, the selector and managed-by label
// the operator gives its Deployments, FooUIDAnnotation naming another Foo, was created
// before foo, and runs only the container the operator sets. A Deployment made for foo
// itself whose ownerReference someone removed is not adoptable: that is how a user detaches
// a Deployment from its Foo. Nor is one created after foo, even if it carries the labels and
// annotation (copied from another namespace or a backup): the operator made none then, and
// taking it over would rewrite someone else's workload.
func adoptable(d *appsv1.Deployment, foo *samplev1alpha1.Foo) bool {
	uid := d.Annotations[FooUIDAnnotation]
	pod := d.Spec.Template.Spec
	return metav1.GetControllerOf(d) == nil && d.DeletionTimestamp.IsZero() && madeFor(d, foo) &&
		d.Labels[ManagedByLabel] == ManagedByValue && uid != "" && uid != string(foo.UID) &&
		d.CreationTimestamp.Before(&foo.CreationTimestamp) &&
		len(pod.InitContainers) == 0 && len(pod.Containers) == 1 && pod.Containers[0].Name == containerName
}

// applyOver applies desired over stored, the Deployment the decision was made on: it first
// replaces what other writers set in place of the operator's members of one-ofs; each write carries
// stored's resourceVersion and fails with a Conflict, retried, when the Deployment changed
// since. Writes that change something are reported by one event (reportWrite); an apply the
// API server answers with the same resourceVersion changed nothing and is not reported.
func (r *FooReconciler) applyOver(ctx context.Context, foo *samplev1alpha1.Foo, desired *appsv1ac.DeploymentApplyConfiguration, stored *appsv1.Deployment, adopting bool, note string) (*appsv1.Deployment, error) {
	logger := log.FromContext(ctx).WithValues("deployment", klog.KObj(stored))
	from := replicasOf(stored)
	repair, replaced, err := oneOfRepair(stored, desired)
	if err != nil {
		return stored, err
	}
	if repair != nil {
		// Under a field manager of its own: an Update entry of FieldManager would keep owning
		// the member after a later apply stopped setting it, so that apply could not prune it.
		if err := r.Patch(ctx, stored, client.RawPatch(types.JSONPatchType, repair), client.FieldOwner(repairFieldManager)); err != nil {
			return stored, newPassError(writeFailed, fmt.Errorf("replace %v in Deployment %s: %w", replaced, klog.KObj(stored), err))
		}
		deploymentWrites.WithLabelValues("update").Inc()
		logger.Info("Replaced what other writers set in place of the operator's member of one-of fields", "removed", replaced)
		note += fmt.Sprintf("; replaced %s, set by another writer", strings.Join(replaced, ", "))
	}
	before := stored.ResourceVersion
	d, err := r.applyDeployment(ctx, desired.WithResourceVersion(before))
	if err != nil {
		return stored, newPassError(writeFailed, fmt.Errorf("apply Deployment %s: %w", klog.KObj(stored), err))
	}
	if repair != nil {
		if d, err = r.releaseRepair(ctx, d); err != nil {
			return stored, err
		}
	}
	if d.ResourceVersion == before && repair == nil {
		logger.V(1).Info("Applied Deployment: the API server changed nothing")
		return d, nil
	}
	if d.ResourceVersion != before {
		deploymentWrites.WithLabelValues("update").Inc()
	}
	r.reportWrite(ctx, foo, d, from, adopting, note)
	return d, nil
}

// scale sets the replicas of live, the Deployment the decision was made on, to desired's
// with a JSON patch that first tests that live is still the object the decision was made
// on, as far as a scale depends on it: the same object (uid), controlled by the same owners
// (ownerReferences), with the same spec (generation). Unlike an apply, the patch carries no
// resourceVersion, so the Deployment controller's status writes, which change none of
// these, do not make it fail. It writes the Deployment's DesiredHashLabel too when the
// Foo's replicas changed. The operator's field manager records the patch in its Update entry
// (isOwn), taking spec.replicas from whoever held them. A patch the API server refuses as
// Invalid (a test failed, or an admission refused the scale) is followed by the apply the
// pass would otherwise have sent: it carries live's resourceVersion, so it fails with a
// Conflict (a stale decision) when the Deployment changed since, and with the refusal
// otherwise. A Deployment deleted since is a stale decision too. One take goes unseen: a
// writer that set the replicas to the value live has, between the read and the patch, which
// changes no generation; it is named when it takes them again.
func (r *FooReconciler) scale(ctx context.Context, foo *samplev1alpha1.Foo, desired *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment, note string) (*appsv1.Deployment, error) {
	patch, err := scalePatch(live, desired)
	if err != nil {
		return live, err
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: live.Namespace, Name: live.Name}} // the response fills it
	switch err := r.Patch(ctx, d, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(FieldManager)); {
	case apierrors.IsInvalid(err):
		log.FromContext(ctx).V(1).Info("Scale refused; applying instead", "deployment", klog.KObj(live), "error", err.Error())
		return r.applyOver(ctx, foo, desired, live, false, note)
	case apierrors.IsNotFound(err):
		return live, newPassError(staleDecision, fmt.Errorf("scale Deployment %s: %w since the pass looked", klog.KObj(live), err))
	case err != nil:
		return live, newPassError(writeFailed, fmt.Errorf("scale Deployment %s: %w", klog.KObj(live), err))
	}
	deploymentWrites.WithLabelValues("update").Inc()
	r.reportWrite(ctx, foo, d, replicasOf(live), false, note)
	return d, nil
}

// reportWrite logs and reports, by one event, a write that changed d, which had from
// replicas before: DeploymentAdopted when adopting, otherwise DeploymentScaled or
// DeploymentUpdated, whose message note ends.
func (r *FooReconciler) reportWrite(ctx context.Context, foo *samplev1alpha1.Foo, d *appsv1.Deployment, from int32, adopting bool, note string) {
	logger := log.FromContext(ctx).WithValues("deployment", klog.KObj(d))
	switch to := replicasOf(d); {
	case adopting:
		logger.Info("Adopted Deployment left without a controller")
		r.Recorder.Eventf(foo, d, corev1.EventTypeNormal, ReasonDeploymentAdopted, "Adopt",
			"Adopted Deployment %s, made for an earlier Foo of this name and left without a controller", d.Name)
	case from != to:
		logger.Info("Scaled Deployment", "from", from, "to", to)
		r.Recorder.Eventf(foo, d, corev1.EventTypeNormal, ReasonDeploymentScaled, "Scale",
			"Scaled Deployment %s from %d to %d replicas%s", d.Name, from, to, note)
	default:
		logger.Info("Corrected drift of Deployment")
		r.Recorder.Eventf(foo, d, corev1.EventTypeNormal, ReasonDeploymentUpdated, "Update",
			"Updated Deployment %s to match the Foo%s", d.Name, note)
	}
}

// releaseRepair removes repairFieldManager's managedFields entry from d, the Deployment
// the apply after a one-of repair returned: the apply made the operator's field manager an
// owner of the restored member, and the repair's entry would otherwise co-own it for good
// (a later apply that stops setting the member could not prune it).
func (r *FooReconciler) releaseRepair(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	kept := slices.DeleteFunc(slices.Clone(d.ManagedFields), func(e metav1.ManagedFieldsEntry) bool { return e.Manager == repairFieldManager })
	if len(kept) == len(d.ManagedFields) {
		return d, nil
	}
	return r.setManagedFields(ctx, d, kept, "release the fields of "+repairFieldManager)
}

// ownCreatedFields makes the entry of the operator's create of d part of its apply entry,
// so that the apply that follows owns what the create set: an apply prunes only the fields
// its own entry held, and the create's entry would otherwise keep, for good, a field that
// this or a later version of the operator no longer sets.
func (r *FooReconciler) ownCreatedFields(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	own := &fieldpath.Set{}
	var kept []metav1.ManagedFieldsEntry
	var last *metav1.Time
	for _, e := range d.ManagedFields {
		if !isOwn(e) {
			kept = append(kept, e)
			continue
		}
		fields, err := entryFields(d, e)
		if err != nil {
			return d, err
		}
		own = own.Union(fields)
		if last == nil || (e.Time != nil && e.Time.After(last.Time)) {
			last = e.Time
		}
	}
	raw, err := own.ToJSON()
	if err != nil {
		return d, err
	}
	kept = append(kept, metav1.ManagedFieldsEntry{
		Manager: FieldManager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: appsv1.SchemeGroupVersion.String(),
		Time: last, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: raw},
	})
	return r.setManagedFields(ctx, d, kept, "own the fields the operator's create set in")
}

// setManagedFields replaces d's managedFields with entries. The patch changes only
// managedFields, which the API server then takes as given, and carries d's
// resourceVersion. what says what it does, for the error.
func (r *FooReconciler) setManagedFields(ctx context.Context, d *appsv1.Deployment, entries []metav1.ManagedFieldsEntry, what string) (*appsv1.Deployment, error) {
	patch, err := json.Marshal([]jsonPatchOp{onlyIfUnchanged(d), {Op: opReplace, Path: "/metadata/managedFields", Value: entries}})
	if err != nil {
		return d, err
	}
	patched := d.DeepCopy()
	if err := r.Patch(ctx, patched, client.RawPatch(types.JSONPatchType, patch), client.FieldOwner(repairFieldManager)); err != nil {
		return d, newPassError(writeFailed, fmt.Errorf("%s Deployment %s: %w", what, klog.KObj(d), err))
	}
	deploymentWrites.WithLabelValues("update").Inc()
	return patched, nil
}

// applyDeployment writes desired with server-side apply, taking over the fields other
// actors changed, and returns the Deployment as the API server stored it.
func (r *FooReconciler) applyDeployment(ctx context.Context, desired *appsv1ac.DeploymentApplyConfiguration) (*appsv1.Deployment, error) {
	return r.Deployments.Deployments(*desired.Namespace).Apply(ctx, desired, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
}

// deleteStaleDeployments deletes the Deployments this Foo controls under a name other than
// spec.deploymentName, what a rename leaves behind, once current (the Deployment under
// the new name) runs all its replicas updated and available, so a rename causes no loss of
// capacity. A Foo scaled to zero needs no replacement. A Deployment whose (immutable) selector was made for another Foo is not
// a leftover of this one: someone pointed its ownerReference here, and deleting it would
// take down the other Foo's workload; it is left alone, and the Foo that names it reports
// the conflict.
func (r *FooReconciler) deleteStaleDeployments(ctx context.Context, foo *samplev1alpha1.Foo, current *appsv1.Deployment) error {
	if foo.Spec.DesiredReplicas() > 0 && !rolledOut(current) {
		return nil
	}
	// A Deployment whose label someone rewrites is not in the cache, nor, likely, are the
	// older ones.
	owned, err := r.ownedDeployments(ctx, foo, watched(current))
	if err != nil {
		return err
	}
	for _, d := range owned {
		if d.Name == foo.Spec.DeploymentName {
			continue
		}
		// The preconditions make sure the object deleted is the one found controlled, as it
		// was found: a Deployment re-created, or released by its owner, since it was cached
		// is left alone (Conflict, retried on the next pass).
		err := r.Delete(ctx, d, client.Preconditions{UID: &d.UID, ResourceVersion: &d.ResourceVersion}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		if client.IgnoreNotFound(err) != nil {
			return newPassError(writeFailed, fmt.Errorf("delete Deployment %s: %w", klog.KObj(d), err))
		}
		deploymentWrites.WithLabelValues("delete").Inc()
		log.FromContext(ctx).Info("Deleted Deployment the Foo no longer names", "deployment", klog.KObj(d), "deploymentName", foo.Spec.DeploymentName)
		r.Recorder.Eventf(foo, d, corev1.EventTypeNormal, ReasonDeploymentDeleted, "Delete",
			"Deleted Deployment %s: spec.deploymentName is now %s", d.Name, foo.Spec.DeploymentName)
	}
	return nil
}

// conflictRecheckAfter is when a Foo in conflict since since looks at its Deployment name
// again: as long after as the conflict has lasted, within the reconciler's bounds.
func (r *FooReconciler) conflictRecheckAfter(since, now time.Time) time.Duration {
	first, limit := r.recheckBounds()
	return min(limit, max(first, now.Sub(since)))
}

// recheckBounds are the first and the longest interval of conflict rechecks and of field
// contests.
func (r *FooReconciler) recheckBounds() (first, limit time.Duration) {
	return cmp.Or(r.ConflictRecheckInterval, DefaultConflictRecheckInterval), cmp.Or(r.MaxConflictRecheckInterval, DefaultMaxConflictRecheckInterval)
}

// SetupWithManager registers the reconciler, its cache indexes and its watches.
func (r *FooReconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts controller.Options) error {
	indexer := mgr.GetFieldIndexer()
	if err := indexer.IndexField(ctx, &appsv1.Deployment{}, deploymentControllerIndex, indexDeploymentController); err != nil {
		return fmt.Errorf("index Deployments by controller: %w", err)
	}
	if err := indexer.IndexField(ctx, &samplev1alpha1.Foo{}, fooDeploymentNameIndex, func(o client.Object) []string {
		return []string{o.(*samplev1alpha1.Foo).Spec.DeploymentName}
	}); err != nil {
		return fmt.Errorf("index Foos by deploymentName: %w", err)
	}

	// client-go's workqueue (see make) and its retry rate limiter: each Foo's retries backed
	// off from 5 ms to 1,000 s within an overall 10 per second (bursts of 100). Left to
	// controller-runtime, the rate limiter would follow UsePriorityQueue (on by default):
	// the priority queue's backoff alone.
	opts.RateLimiter = workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()
	opts.NewQueue = r.queue.make

	return ctrl.NewControllerManagedBy(mgr).
		Named("foo").
		// Every change of a Foo, its status included, is reconciled: a status write based on
		// a cached Foo older than the stored one fails its optimistic lock, and the event of
		// the newer Foo starts the pass that writes the status again. Such a pass on an
		// unchanged world writes nothing.
		For(&samplev1alpha1.Foo{}, builder.WithPredicates(countChanges("Foo", specChanged))).
		Owns(&appsv1.Deployment{}, builder.WithPredicates(countChanges("Deployment", deploymentStatusChanged))).
		// A budget's status follows every change of its pods' readiness; only what the
		// operator sets, or the budget's deletion, calls for a pass.
		Owns(&policyv1.PodDisruptionBudget{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}))).
		// Other Foos that want the Deployment's name, for example when its owner frees it.
		Watches(&appsv1.Deployment{}, handler.EnqueueRequestsFromMapFunc(r.otherFoosNaming)).
		WithOptions(opts).
		Complete(r)
}

// Idle reports whether no Foo waits in the controller's workqueue for a worker (true before
// the controller starts). The operator's events wait for it (main's inTurn), so that the
// writes that converge Foos go first.
func (r *FooReconciler) Idle() bool { return r.queue.empty() }

// workqueueOf keeps the controller's workqueue for Idle.
type workqueueOf struct {
	mu    sync.Mutex
	queue workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// make is the controller's NewQueue: controller-runtime's default but client-go's
// workqueue, not controller-runtime's priority queue: in v0.23.3 the priority queue can
// deadlock on shutdown (a ready item handed to a worker that already left on ShutDown
// blocks the queue's lock; kubernetes-sigs/controller-runtime#3538, fixed by #3540), which
// stalls SIGTERM for the whole graceful-shutdown period. Seen here in the envtest suite.
func (w *workqueueOf) make(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue = q
	return q
}

// empty reports whether no Foo waits in the queue for a worker (none does before there is a
// queue).
func (w *workqueueOf) empty() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.queue == nil || w.queue.Len() == 0
}

// countChanges is a predicate that lets every event through and counts in
// foo_operator_observed_changes_total, under kind, the creates (a restart sees every object
// again) and the updates that changed what the Foo's status follows, as changed says.
func countChanges(kind string, changed func(before, after client.Object) bool) predicate.Funcs {
	counter := observedChanges.WithLabelValues(kind)
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { counter.Inc(); return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			if changed(e.ObjectOld, e.ObjectNew) {
				counter.Inc()
			}
			return true
		},
	}
}

// specChanged: a Foo's spec changed (its generation).
func specChanged(before, after client.Object) bool {
	return before.GetGeneration() != after.GetGeneration()
}

// deploymentStatusChanged: a Deployment's status changed.
func deploymentStatusChanged(before, after client.Object) bool {
	return !equality.Semantic.DeepEqual(before.(*appsv1.Deployment).Status, after.(*appsv1.Deployment).Status)
}

// otherFoosNaming maps a Deployment to the Foos whose spec.deploymentName is its name,
// except its controller, which Owns already enqueues: one event, one reconcile per Foo. It
// runs on every event of every Deployment the operator manages, and reads only the Foos'
// names and UIDs, so it lists the cache's own objects rather than copies of them
// (UnsafeDisableDeepCopy): nothing here may write to them.
func (r *FooReconciler) otherFoosNaming(ctx context.Context, d client.Object) []reconcile.Request {
	foos := &samplev1alpha1.FooList{}
	if err := r.List(ctx, foos, client.InNamespace(d.GetNamespace()), client.MatchingFields{fooDeploymentNameIndex: d.GetName()}, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "List Foos naming Deployment", "deployment", klog.KObj(d))
		return nil
	}
	var reqs []reconcile.Request
	for i := range foos.Items {
		if !metav1.IsControlledBy(d, &foos.Items[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&foos.Items[i])})
		}
	}
	return reqs
}

// indexDeploymentController is the deploymentControllerIndex: the UID of the Foo that
// controls a Deployment.
func indexDeploymentController(o client.Object) []string {
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != "Foo" || ref.APIVersion != samplev1alpha1.GroupVersion.String() {
		return nil
	}
	return []string{string(ref.UID)}
}

// CachedObjects is what the reconciler needs the manager's cache to hold: only the
// Deployments the operator manages, so that its memory does not grow with the cluster's
// other Deployments, and without the managedFields it never reads: all of a Foo's, and
// those of the Deployments' status subresource (the Deployment controller's, the largest),
// which owns no field the operator sets. The others stay: they say who took a field the
// operator sets (takerOf), without a read of the stored Deployment.
func CachedObjects() map[client.Object]cache.ByObject {
	return map[client.Object]cache.ByObject{
		&appsv1.Deployment{}: {
			Label:     labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedByValue}),
			Transform: dropStatusManagedFields,
		},
		&policyv1.PodDisruptionBudget{}: {
			Label:     labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedByValue}),
			Transform: cache.TransformStripManagedFields(),
		},
		&samplev1alpha1.Foo{}: {Transform: cache.TransformStripManagedFields()},
	}
}

// dropStatusManagedFields is the cache transform of Deployments: it drops the managedFields
// entries of the status subresource.
func dropStatusManagedFields(obj any) (any, error) {
	if o, ok := obj.(client.Object); ok {
		o.SetManagedFields(slices.DeleteFunc(o.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool { return e.Subresource == "status" }))
	}
	return obj, nil
}
