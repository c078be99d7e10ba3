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
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// DesiredHashLabel records on a Deployment a hash of the Deployment the operator last
// applied. Drift is judged by what the operator changed (this hash) or lost (field
// ownership), never by comparing values: a mutating admission (a policy that pins the image
// by digest or rewrites its registry) changes values the operator still owns, and applying
// again would change nothing. It is a label, not an annotation, because the Deployment
// controller copies a Deployment's annotations to its ReplicaSet: a hash that changes with
// every scale would cost it a ReplicaSet write per scale, and the ReplicaSet controller's
// status writes the conflicts that follow (a label is not copied). An annotation of the same
// name, where earlier builds kept the hash, is pruned by the first apply, which no longer
// sets it.
const DesiredHashLabel = "samplecontroller.example.com/desired-hash"

// deploymentSchema is the part of client-go's applyconfigurations schema that
// io.k8s.api.apps.v1.Deployment reaches (122 of its 872 types): parsing all of it, as
// applyconfigurations.NewTypeConverter does, allocates about 20 MB at start. make generate
// writes it from the client-go in go.mod (hack/deployment-schema), and make verify fails
// when it is not current.
//
//go:generate go run ../hack/deployment-schema deployment_schema.yaml
//go:embed deployment_schema.yaml
var deploymentSchema string

// deploymentTypes converts Deployments to the typed values server-side apply tracks
// ownership with.
var deploymentTypes = managedfields.NewSchemeTypeConverter(clientgoscheme.Scheme, mustParse(deploymentSchema))

func mustParse(schema string) *typed.Parser {
	p, err := typed.NewParser(typed.YAMLObject(schema))
	if err != nil {
		panic(fmt.Sprintf("parse the Deployment schema: %v", err))
	}
	return p
}

// metaFields are the fields the API server never records as anyone's (as its own
// managedFields stripping does).
var metaFields = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// withDesiredHash stamps desired with DesiredHashLabel: a hash of desired without it.
func withDesiredHash(desired *appsv1ac.DeploymentApplyConfiguration) *appsv1ac.DeploymentApplyConfiguration {
	return desired.WithLabels(map[string]string{DesiredHashLabel: hashOf(desired)})
}

// hashOf is the hash DesiredHashLabel records for desired, which does not carry it.
func hashOf(desired *appsv1ac.DeploymentApplyConfiguration) string {
	raw, err := json.Marshal(desired)
	if err != nil {
		panic(fmt.Sprintf("marshal a Deployment apply configuration: %v", err)) // only plain values: cannot fail
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:10])
}

// hashWithReplicas is the DesiredHashLabel that desired, stamped by withDesiredHash,
// would carry with replicas instead of its own.
func hashWithReplicas(desired *appsv1ac.DeploymentApplyConfiguration, replicas int32) string {
	other := *desired
	objectMeta := *desired.ObjectMetaApplyConfiguration
	objectMeta.Labels = maps.Clone(objectMeta.Labels)
	delete(objectMeta.Labels, DesiredHashLabel)
	other.ObjectMetaApplyConfiguration = &objectMeta
	spec := *desired.Spec
	spec.Replicas = &replicas
	other.Spec = &spec
	return hashOf(&other)
}

// drift is what makes live differ from what the operator wants, as far as it is the
// operator's business: desired changed since its last apply, or fields it sets are owned
// by another writer (or by nobody: removed by an update).
type drift struct {
	// changed: desired is not what the operator last applied (DesiredHashLabel).
	changed bool
	// replicasOnly: desired differs from what the operator last applied in spec.replicas
	// only (a scale), so no field it set before is missing from desired.
	replicasOnly bool
	// lost are fields of desired that the operator's apply entry does not own in live.
	lost *fieldpath.Set
}

// none reports whether there is nothing to apply.
func (d drift) none() bool { return !d.changed && d.lost.Empty() }

// ownership remembers, for each Foo, the fields of its desired Deployment that the
// operator's managedFields entries of the Deployment lacked when a pass last looked, with
// what they were computed from: the desired Deployment's DesiredHashLabel and a digest of
// those entries. A pass that finds both unchanged (most passes: the steps of a rollout
// change the Deployment's status, not its managedFields outside it), or the entries
// unchanged and desired changed in its replicas only (a scale: it sets the same fields),
// reuses them instead of typing desired and parsing the entries again, which took a sixth
// of the operator's CPU and a third of its allocations while 2,000 Foos converged
// (docs/benchmark-history.md). A pass that finds the entries changed and desired the same
// (a drift, and the write that sets it back) parses the entries again but types only
// desired's ownerReferences: the rest of desired's fields it has from the last pass
// (wantedFields). It holds a few hundred bytes per Foo with a Deployment; forget drops a
// Foo's.
type ownership struct {
	perFoo[lostFields]
	shapes fieldShapes
}

// lostFields are the fields of a desired Deployment (hash: its DesiredHashLabel; replicas:
// its spec.replicas) that the operator's entries in a Deployment's managedFields (own:
// their digest, ownDigest) do not own, and the fields the desired Deployment sets but for
// its ownerReferences (shape, shared between Foos by fieldShapes).
type lostFields struct {
	hash     string
	replicas int32
	own      [sha256.Size]byte
	lost     *fieldpath.Set
	shape    *fieldpath.Set
}

// driftOf compares live, the Deployment of foo's name, with desired by ownership: it
// reads only live's managedFields and DesiredHashLabel, so values a mutating admission
// rewrote are not drift.
func (m *ownership) driftOf(foo types.NamespacedName, desired *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment) (drift, error) {
	lost, err := m.lost(foo, desired, live)
	if err != nil {
		return drift{}, err
	}
	applied := live.Labels[DesiredHashLabel]
	changed := applied != desired.Labels[DesiredHashLabel]
	return drift{
		changed:      changed,
		replicasOnly: changed && applied == hashWithReplicas(desired, replicasOf(live)),
		lost:         lost,
	}, nil
}

// lost are the fields of desired that the operator's entries in live's managedFields do
// not own, from memory when neither changed since foo's last pass but for desired's
// replicas. The sets it returns are shared: callers do not change them.
func (m *ownership) lost(foo types.NamespacedName, desired *appsv1ac.DeploymentApplyConfiguration, live *appsv1.Deployment) (*fieldpath.Set, error) {
	hash, replicas, own := desired.Labels[DesiredHashLabel], ptr.Deref(desired.Spec.Replicas, 1), ownDigest(live)
	var shape *fieldpath.Set
	if known, ok := m.load(foo); ok && (known.hash == hash || hashWithReplicas(desired, known.replicas) == known.hash) {
		if known.own == own {
			if known.hash != hash {
				m.store(foo, lostFields{hash: hash, replicas: replicas, own: own, lost: known.lost, shape: known.shape})
			}
			return known.lost, nil
		}
		shape = known.shape
	}
	want, shape, err := m.shapes.wantedFields(desired, shape)
	if err != nil {
		return nil, err
	}
	owned := &fieldpath.Set{}
	for _, e := range live.ManagedFields {
		if isOwn(e) {
			fields, err := entryFields(live, e)
			if err != nil {
				return nil, err
			}
			owned = owned.Union(fields)
		}
	}
	lost := want.Difference(owned).Difference(metaFields)
	m.store(foo, lostFields{hash: hash, replicas: replicas, own: own, lost: lost, shape: shape})
	return lost, nil
}

// fieldShapes holds the field sets of desired Deployments without their ownerReferences,
// one for each set that differs, for Foos to share: a field set holds the keys of maps and
// lists, not values, and the ownerReferences' key (the Foo's UID) is the one that differs
// between Foos, so the Foos of one build share one set. It holds at most maxFieldShapes; a
// set beyond them is not shared. The zero value is empty and ready to use.
type fieldShapes struct {
	mu   sync.Mutex
	sets []*fieldpath.Set
}

// maxFieldShapes bounds fieldShapes: one build's template gives one set.
const maxFieldShapes = 8

// ownerReferencesField is a Deployment's metadata.ownerReferences.
var ownerReferencesField = fieldpath.NewSet(fieldpath.MakePathOrDie("metadata", "ownerReferences"))

// wantedFields is fieldSet(desired), with the shape of desired: its fields but for its
// ownerReferences, shared with other Foos'. Given the shape, it types desired's
// ownerReferences alone.
func (s *fieldShapes) wantedFields(desired *appsv1ac.DeploymentApplyConfiguration, shape *fieldpath.Set) (want, usedShape *fieldpath.Set, err error) {
	if shape == nil {
		if want, err = fieldSet(desired); err != nil {
			return nil, nil, err
		}
		return want, s.shared(want.RecursiveDifference(ownerReferencesField)), nil
	}
	refs := appsv1ac.Deployment(*desired.Name, *desired.Namespace)
	refs.OwnerReferences = desired.OwnerReferences
	fields, err := fieldSet(refs)
	if err != nil {
		return nil, nil, err
	}
	return shape.Union(fields), shape, nil
}

// shared is the set fieldShapes holds equal to set, or set, which it holds from now on
// while it holds fewer than maxFieldShapes.
func (s *fieldShapes) shared(set *fieldpath.Set) *fieldpath.Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, known := range s.sets {
		if known.Equals(set) {
			return known
		}
	}
	if len(s.sets) < maxFieldShapes {
		s.sets = append(s.sets, set)
	}
	return set
}

// ownDigest is a digest of the operator's entries in d's managedFields: the fields each
// records, in order.
func ownDigest(d *appsv1.Deployment) [sha256.Size]byte {
	h := sha256.New()
	var size [8]byte
	for _, e := range d.ManagedFields {
		if !isOwn(e) {
			continue
		}
		var raw []byte
		if e.FieldsV1 != nil {
			raw = e.FieldsV1.Raw
		}
		binary.BigEndian.PutUint64(size[:], uint64(len(raw)))
		h.Write(size[:]) // a hash.Hash never fails a write
		h.Write(raw)
	}
	return [sha256.Size]byte(h.Sum(nil))
}

// fieldSet is the set of fields desired sets, as server-side apply records it.
func fieldSet(desired *appsv1ac.DeploymentApplyConfiguration) (*fieldpath.Set, error) {
	raw, err := json.Marshal(desired)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	tv, err := deploymentTypes.ObjectToTyped(u)
	if err != nil {
		return nil, fmt.Errorf("type the desired Deployment %s: %w", *desired.Name, err)
	}
	return tv.ToFieldSet()
}

// entryFields are the fields of d's managedFields entry e.
func entryFields(d *appsv1.Deployment, e metav1.ManagedFieldsEntry) (*fieldpath.Set, error) {
	fields := &fieldpath.Set{}
	if e.FieldsV1 == nil {
		return fields, nil
	}
	if err := fields.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
		return nil, newPassError(ownershipUnreadable, fmt.Errorf("read the fields of manager %s in Deployment %s: %w", e.Manager, klog.KObj(d), err))
	}
	return fields, nil
}

// isOwn reports whether a managedFields entry records the operator's writes of a
// Deployment: its applies, or its create and scales (an Update entry, see createDeployment
// and scale).
func isOwn(e metav1.ManagedFieldsEntry) bool {
	return e.Manager == FieldManager && e.Subresource == ""
}

// isOwnCreate reports whether a managedFields entry records the operator's create of a
// Deployment, and its scales since (scale): the one Update entry of its field manager.
func isOwnCreate(e metav1.ManagedFieldsEntry) bool {
	return isOwn(e) && e.Operation == metav1.ManagedFieldsOperationUpdate
}

// fieldTaker is another writer that owns fields the operator sets.
type fieldTaker struct {
	// manager is the other writer's field manager; subresource the subresource it wrote
	// through ("scale" for an autoscaler of the Deployment), if any.
	manager, subresource string
	// field is the first of the taken fields, as a path (".spec.replicas").
	field string
}

// writer names the writer for messages: its field manager, and the subresource it wrote
// through.
func (t fieldTaker) writer() string {
	if t.subresource != "" {
		return fmt.Sprintf("field manager %q through the %s subresource", t.manager, t.subresource)
	}
	return fmt.Sprintf("field manager %q", t.manager)
}

// takerOf is the first other writer that owns some of the lost fields in live, or nil when
// none does (the fields were removed, not taken).
func takerOf(live *appsv1.Deployment, lost *fieldpath.Set) (*fieldTaker, error) {
	for _, e := range live.ManagedFields {
		if isOwn(e) {
			continue
		}
		theirs, err := entryFields(live, e)
		if err != nil {
			return nil, err
		}
		var first fieldpath.Path
		theirs.Intersection(lost).Leaves().Iterate(func(p fieldpath.Path) {
			if first == nil {
				first = p.Copy()
			}
		})
		if first != nil {
			return &fieldTaker{manager: e.Manager, subresource: e.Subresource, field: first.String()}, nil
		}
	}
	return nil, nil
}

// oneOfRepair is the JSON patch that replaces, in live, the members other writers set in
// place of the operator's own in a one-of (the handlers of the nginx container's readiness
// and liveness probes, the tmp volume's source) with desired's member, in one write, and
// the paths it removes; nil when there is nothing to replace. Removing the other member alone would leave the
// one-of empty, and applying the operator's alone would set two, both of which the API
// server refuses (kubectl set probe --open-tcp, say, then wedges every apply). The patch
// carries live's resourceVersion: it fails rather than change a newer Deployment. The apply
// that follows makes the operator the owner of its member again.
func oneOfRepair(live *appsv1.Deployment, desired *appsv1ac.DeploymentApplyConfiguration) (patch []byte, removed []string, err error) {
	var ops []jsonPatchOp
	want := desired.Spec.Template.Spec
	for i, c := range live.Spec.Template.Spec.Containers {
		if c.Name != containerName {
			continue
		}
		path := fmt.Sprintf("/spec/template/spec/containers/%d", i)
		if c.ReadinessProbe != nil {
			ops, removed = replaceMembers(ops, removed, path, c.Name, path+"/readinessProbe", c.ReadinessProbe.ProbeHandler, "httpGet", want.Containers[0].ReadinessProbe.HTTPGet)
		}
		if c.LivenessProbe != nil {
			ops, removed = replaceMembers(ops, removed, path, c.Name, path+"/livenessProbe", c.LivenessProbe.ProbeHandler, "httpGet", want.Containers[0].LivenessProbe.HTTPGet)
		}
	}
	for i, v := range live.Spec.Template.Spec.Volumes {
		if v.Name == tmpVolume {
			path := fmt.Sprintf("/spec/template/spec/volumes/%d", i)
			ops, removed = replaceMembers(ops, removed, path, v.Name, path, v.VolumeSource, "emptyDir", want.Volumes[0].EmptyDir)
		}
	}
	if ops == nil {
		return nil, nil, nil
	}
	patch, err = json.Marshal(append(ops, onlyIfUnchanged(live)))
	return patch, removed, err
}

// onlyIfUnchanged is the JSON patch operation that makes the API server refuse a patch with
// Conflict when the object is no longer at o's resourceVersion.
func onlyIfUnchanged(o metav1.Object) jsonPatchOp {
	return jsonPatchOp{Op: opReplace, Path: "/metadata/resourceVersion", Value: o.GetResourceVersion()}
}

// scalePatch is the JSON patch of scale.
func scalePatch(live *appsv1.Deployment, desired *appsv1ac.DeploymentApplyConfiguration) ([]byte, error) {
	ops := []jsonPatchOp{
		{Op: opTest, Path: "/metadata/uid", Value: live.UID},
		{Op: opTest, Path: "/metadata/generation", Value: live.Generation},
		{Op: opTest, Path: "/metadata/ownerReferences", Value: live.OwnerReferences},
		{Op: opReplace, Path: "/spec/replicas", Value: *desired.Spec.Replicas},
	}
	if hash := desired.Labels[DesiredHashLabel]; live.Labels[DesiredHashLabel] != hash {
		ops = append(ops, jsonPatchOp{Op: opAdd, Path: "/metadata/labels/" + jsonPointerEscape(DesiredHashLabel), Value: hash})
	}
	return json.Marshal(ops)
}

// jsonPointerEscape escapes a key for a JSON pointer (RFC 6901).
func jsonPointerEscape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// jsonPatchOp is one operation of a JSON patch (RFC 6902).
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// The operations of JSON patches.
const (
	opAdd     = "add"
	opRemove  = "remove"
	opReplace = "replace"
	opTest    = "test"
)

// replaceMembers adds to ops what replaces the members of the one-of at path other than
// own with own's value, when there are such members, and adds their paths to removed. The
// list item at itemPath is tested to be the one named name first, so that the patch fails
// if the list changed.
func replaceMembers(ops []jsonPatchOp, removed []string, itemPath, name, path string, oneOf any, own string, value any) ([]jsonPatchOp, []string) {
	raw, _ := json.Marshal(oneOf) // a struct of pointers to plain values: cannot fail
	var members map[string]json.RawMessage
	_ = json.Unmarshal(raw, &members)
	others := slices.DeleteFunc(slices.Sorted(maps.Keys(members)), func(m string) bool { return m == own })
	if len(others) == 0 {
		return ops, removed
	}
	ops = append(ops, jsonPatchOp{Op: opTest, Path: itemPath + "/name", Value: name})
	for _, m := range others {
		ops = append(ops, jsonPatchOp{Op: opRemove, Path: path + "/" + m})
		removed = append(removed, path+"/"+m)
	}
	return append(ops, jsonPatchOp{Op: opAdd, Path: path + "/" + own, Value: value}), removed
}
