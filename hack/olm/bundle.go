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

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/lib/version"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// bundleOptions are the inputs of a bundle, named after the operator-sdk Makefile variables.
type bundleOptions struct {
	manifestsDir   string // the kustomization to build (config/manifests)
	outDir         string // the bundle directory (bundle)
	dockerfile     string // the bundle image's Dockerfile (bundle.Dockerfile)
	packageName    string
	version        string // VERSION, semver
	channels       string // CHANNELS, comma-separated
	defaultChannel string // DEFAULT_CHANNEL
	replaces       string // REPLACES: the CSV name this version replaces
	skips          string // SKIPS: comma-separated CSV names
	skipRange      string // SKIP_RANGE: olm.skipRange
	createdAt      string // CREATED_AT: the CSV's createdAt annotation
}

// manifestSet is the kustomize build of config/manifests, sorted by what the bundle does
// with each object.
type manifestSet struct {
	base         *operatorsv1alpha1.ClusterServiceVersion
	crds         []*apiextensionsv1.CustomResourceDefinition
	deployments  []*appsv1.Deployment
	roles        map[string]*rbacv1.Role        // by name
	clusterRoles map[string]*rbacv1.ClusterRole // by name
	roleBindings []*rbacv1.RoleBinding
	crBindings   []*rbacv1.ClusterRoleBinding
	samples      []*unstructured.Unstructured // objects of the owned CRDs: alm-examples
	scorecard    *unstructured.Unstructured   // the scorecard Configuration
	others       []*unstructured.Unstructured
}

// bundleFile is one file of the bundle: its path under the bundle directory and content.
type bundleFile struct {
	path    string
	content []byte
}

// generateBundle builds config/manifests and writes the bundle directory and Dockerfile.
// The output depends only on the inputs: running it twice changes nothing.
func generateBundle(o bundleOptions) error {
	set, err := loadManifests(o.manifestsDir)
	if err != nil {
		return err
	}
	files, err := renderBundle(set, o)
	if err != nil {
		return err
	}
	// Stale manifests (a renamed object, say) must not survive a regeneration.
	for _, dir := range []string{"manifests", "metadata", "tests"} {
		if err := os.RemoveAll(filepath.Join(o.outDir, dir)); err != nil {
			return err
		}
	}
	for _, f := range files {
		path := filepath.Join(o.outDir, f.path)
		if f.path == dockerfileName {
			path = o.dockerfile
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// dockerfileName stands for the bundle Dockerfile among the bundle files.
const dockerfileName = "<bundle.Dockerfile>"

// renderBundle is the content of every bundle file.
func renderBundle(set *manifestSet, o bundleOptions) ([]bundleFile, error) {
	csv, err := buildCSV(set, o)
	if err != nil {
		return nil, err
	}
	var files []bundleFile
	add := func(path string, obj any) error {
		content, err := marshalManifest(obj)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		files = append(files, bundleFile{path: path, content: content})
		return nil
	}
	if err := add(filepath.Join("manifests", o.packageName+".clusterserviceversion.yaml"), csv); err != nil {
		return nil, err
	}
	for _, crd := range set.crds {
		if err := add(filepath.Join("manifests", crd.Spec.Group+"_"+crd.Spec.Names.Plural+".yaml"), crd); err != nil {
			return nil, err
		}
	}
	for _, obj := range extraManifests(set) {
		if err := add(filepath.Join("manifests", manifestFileName(obj)), obj); err != nil {
			return nil, err
		}
	}
	if set.scorecard != nil {
		if err := add(filepath.Join("tests", "scorecard", "config.yaml"), set.scorecard); err != nil {
			return nil, err
		}
	}

	annotations := bundleAnnotations(o, set.scorecard != nil)
	content, err := yaml.Marshal(map[string]any{"annotations": annotations})
	if err != nil {
		return nil, err
	}
	files = append(files,
		bundleFile{path: filepath.Join("metadata", "annotations.yaml"), content: content},
		bundleFile{path: dockerfileName, content: bundleDockerfile(annotations, o.outDir, set.scorecard != nil)})
	return files, nil
}

// loadManifests runs kustomize on dir and sorts the objects.
func loadManifests(dir string) (*manifestSet, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	set := &manifestSet{roles: map[string]*rbacv1.Role{}, clusterRoles: map[string]*rbacv1.ClusterRole{}}
	var objs []*unstructured.Unstructured
	for _, r := range resources.Resources() {
		raw, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		objs = append(objs, u)
	}
	ownedKinds := map[string]bool{}
	for _, u := range objs {
		if u.GetKind() == "CustomResourceDefinition" {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := fromUnstructured(u, crd); err != nil {
				return nil, err
			}
			set.crds = append(set.crds, crd)
			ownedKinds[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = true
		}
	}
	for _, u := range objs {
		gk := u.GroupVersionKind().GroupKind()
		var err error
		switch {
		case gk.Kind == "CustomResourceDefinition":
		case gk.Kind == "ClusterServiceVersion":
			set.base = &operatorsv1alpha1.ClusterServiceVersion{}
			err = fromUnstructured(u, set.base)
		case gk.Kind == "Namespace":
			// OLM installs into the namespace of the OperatorGroup.
		case gk.Group == "apps" && gk.Kind == "Deployment":
			d := &appsv1.Deployment{}
			err = fromUnstructured(u, d)
			set.deployments = append(set.deployments, d)
		case gk.Kind == "ServiceAccount":
			// OLM creates the install strategy's service accounts.
		case gk.Group == rbacv1.GroupName && gk.Kind == "Role":
			r := &rbacv1.Role{}
			err = fromUnstructured(u, r)
			set.roles[r.Name] = r
		case gk.Group == rbacv1.GroupName && gk.Kind == "ClusterRole":
			r := &rbacv1.ClusterRole{}
			err = fromUnstructured(u, r)
			set.clusterRoles[r.Name] = r
		case gk.Group == rbacv1.GroupName && gk.Kind == "RoleBinding":
			b := &rbacv1.RoleBinding{}
			err = fromUnstructured(u, b)
			set.roleBindings = append(set.roleBindings, b)
		case gk.Group == rbacv1.GroupName && gk.Kind == "ClusterRoleBinding":
			b := &rbacv1.ClusterRoleBinding{}
			err = fromUnstructured(u, b)
			set.crBindings = append(set.crBindings, b)
		case gk.Group == "scorecard.operatorframework.io" && gk.Kind == "Configuration":
			set.scorecard = u
		case ownedKinds[gk.Group+"/"+gk.Kind]:
			set.samples = append(set.samples, u)
		default:
			set.others = append(set.others, u)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", gk.Kind, u.GetName(), err)
		}
	}
	if set.base == nil {
		return nil, fmt.Errorf("kustomize build %s has no ClusterServiceVersion base", dir)
	}
	return set, nil
}

// buildCSV completes the CSV base from the other manifests.
func buildCSV(set *manifestSet, o bundleOptions) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	v, err := semver.Parse(o.version)
	if err != nil {
		return nil, fmt.Errorf("VERSION %q is not a semantic version: %w", o.version, err)
	}
	csv := set.base.DeepCopy()
	csv.Name = o.packageName + ".v" + o.version
	csv.Namespace = ""
	csv.Spec.Version = version.OperatorVersion{Version: v}
	csv.Spec.Replaces = o.replaces
	csv.Spec.Skips = splitList(o.skips)

	if csv.Annotations == nil {
		csv.Annotations = map[string]string{}
	}
	examples, err := almExamples(set.samples)
	if err != nil {
		return nil, err
	}
	csv.Annotations["alm-examples"] = examples
	csv.Annotations["createdAt"] = o.createdAt
	if o.skipRange != "" {
		csv.Annotations[operatorsv1alpha1.SkipRangeAnnotationKey] = o.skipRange
	}

	strategy, images, err := installStrategy(set, o.packageName)
	if err != nil {
		return nil, err
	}
	csv.Spec.InstallStrategy = operatorsv1alpha1.NamedInstallStrategy{
		StrategyName: operatorsv1alpha1.InstallStrategyNameDeployment,
		StrategySpec: strategy,
	}
	csv.Spec.RelatedImages = images
	if len(images) > 0 {
		csv.Annotations["containerImage"] = images[0].Image
	}

	owned, err := ownedCRDs(csv.Spec.CustomResourceDefinitions.Owned, set.crds)
	if err != nil {
		return nil, err
	}
	csv.Spec.CustomResourceDefinitions.Owned = owned
	return csv, nil
}

// installStrategy is the CSV's deployment install strategy: the Deployments, and the rules
// of the Roles and ClusterRoles bound to their service accounts. It also returns the
// related images: each Deployment's containers (operator first) and their RELATED_IMAGE_*
// environment variables. The manager container's image is named after the package.
func installStrategy(set *manifestSet, packageName string) (operatorsv1alpha1.StrategyDetailsDeployment, []operatorsv1alpha1.RelatedImage, error) {
	var strategy operatorsv1alpha1.StrategyDetailsDeployment
	var images []operatorsv1alpha1.RelatedImage
	accounts := map[string]bool{}
	for _, d := range set.deployments {
		strategy.DeploymentSpecs = append(strategy.DeploymentSpecs, operatorsv1alpha1.StrategyDeploymentSpec{
			Name: d.Name, Spec: d.Spec, Label: d.Labels,
		})
		sa := d.Spec.Template.Spec.ServiceAccountName
		if sa == "" {
			return strategy, nil, fmt.Errorf("deployment %s names no service account", d.Name)
		}
		accounts[sa] = true
		for _, c := range d.Spec.Template.Spec.Containers {
			name := d.Name + "-" + c.Name
			if c.Name == "manager" {
				name = packageName
			}
			images = append(images, operatorsv1alpha1.RelatedImage{Name: name, Image: c.Image})
			for _, env := range c.Env {
				if name, ok := strings.CutPrefix(env.Name, "RELATED_IMAGE_"); ok && env.Value != "" {
					images = append(images, operatorsv1alpha1.RelatedImage{Name: strings.ToLower(name), Image: env.Value})
				}
			}
		}
	}

	for _, b := range set.crBindings {
		for _, sa := range boundAccounts(b.Subjects, accounts) {
			role, ok := set.clusterRoles[b.RoleRef.Name]
			if !ok {
				return strategy, nil, fmt.Errorf("ClusterRoleBinding %s refers to unknown ClusterRole %s", b.Name, b.RoleRef.Name)
			}
			strategy.ClusterPermissions = append(strategy.ClusterPermissions, operatorsv1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: role.Rules})
		}
	}
	for _, b := range set.roleBindings {
		for _, sa := range boundAccounts(b.Subjects, accounts) {
			var rules []rbacv1.PolicyRule
			switch b.RoleRef.Kind {
			case "Role":
				role, ok := set.roles[b.RoleRef.Name]
				if !ok {
					return strategy, nil, fmt.Errorf("RoleBinding %s refers to unknown Role %s", b.Name, b.RoleRef.Name)
				}
				rules = role.Rules
			case "ClusterRole":
				role, ok := set.clusterRoles[b.RoleRef.Name]
				if !ok {
					return strategy, nil, fmt.Errorf("RoleBinding %s refers to unknown ClusterRole %s", b.Name, b.RoleRef.Name)
				}
				rules = role.Rules
			}
			strategy.Permissions = append(strategy.Permissions, operatorsv1alpha1.StrategyDeploymentPermissions{ServiceAccountName: sa, Rules: rules})
		}
	}
	return strategy, images, nil
}

func boundAccounts(subjects []rbacv1.Subject, accounts map[string]bool) []string {
	var names []string
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && accounts[s.Name] {
			names = append(names, s.Name)
		}
	}
	return names
}

// extraManifests are the objects the bundle ships beside the CSV and CRDs: Services,
// and the Roles and ClusterRoles no install strategy binding consumed (for example the
// metrics-reader role that users bind to their scraper).
func extraManifests(set *manifestSet) []any {
	bound := map[string]bool{}
	for _, b := range set.crBindings {
		bound["ClusterRole/"+b.RoleRef.Name] = true
	}
	for _, b := range set.roleBindings {
		bound[b.RoleRef.Kind+"/"+b.RoleRef.Name] = true
	}
	var objs []any
	for _, name := range sortedKeys(set.clusterRoles) {
		if !bound["ClusterRole/"+name] {
			objs = append(objs, withTypeMeta(set.clusterRoles[name], "ClusterRole"))
		}
	}
	for _, name := range sortedKeys(set.roles) {
		if !bound["Role/"+name] {
			objs = append(objs, withTypeMeta(set.roles[name], "Role"))
		}
	}
	for _, u := range set.others {
		u = u.DeepCopy()
		u.SetNamespace("")
		objs = append(objs, u)
	}
	return objs
}

func withTypeMeta[T interface {
	*rbacv1.Role | *rbacv1.ClusterRole
}](obj T, kind string) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err) // typed RBAC objects always convert
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(rbacv1.SchemeGroupVersion.String())
	u.SetKind(kind)
	u.SetNamespace("")
	return u
}

// ownedCRDs completes the base's owned CRD entries (descriptors, resources) with the kind
// and storage version of each CRD; every CRD must have an entry in the base.
func ownedCRDs(base []operatorsv1alpha1.CRDDescription, crds []*apiextensionsv1.CustomResourceDefinition) ([]operatorsv1alpha1.CRDDescription, error) {
	byName := map[string]operatorsv1alpha1.CRDDescription{}
	for _, d := range base {
		byName[d.Name] = d
	}
	var owned []operatorsv1alpha1.CRDDescription
	for _, crd := range crds {
		d, ok := byName[crd.Name]
		if !ok {
			return nil, fmt.Errorf("CRD %s has no owned entry in the CSV base", crd.Name)
		}
		d.Kind = crd.Spec.Names.Kind
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				d.Version = v.Name
			}
		}
		owned = append(owned, d)
	}
	return owned, nil
}

// almExamples is the alm-examples annotation: the samples as a JSON array.
func almExamples(samples []*unstructured.Unstructured) (string, error) {
	objs := make([]map[string]any, 0, len(samples))
	for _, s := range samples {
		s = s.DeepCopy()
		s.SetNamespace("")
		objs = append(objs, s.Object)
	}
	raw, err := json.MarshalIndent(objs, "", "  ")
	return string(raw), err
}

// bundleAnnotations are the bundle's metadata annotations, which are also the bundle
// image's labels: one source for annotations.yaml and bundle.Dockerfile.
func bundleAnnotations(o bundleOptions, withScorecard bool) map[string]string {
	a := map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         o.packageName,
		"operators.operatorframework.io.bundle.channels.v1":        o.channels,
		"operators.operatorframework.io.bundle.channel.default.v1": o.defaultChannel,
		"operators.operatorframework.io.metrics.mediatype.v1":      "metrics+v1",
		"operators.operatorframework.io.metrics.project_layout":    "go.kubebuilder.io/v4",
	}
	if withScorecard {
		a["operators.operatorframework.io.test.mediatype.v1"] = "scorecard+v1"
		a["operators.operatorframework.io.test.config.v1"] = "tests/scorecard/"
	}
	return a
}

// bundleDockerfile is the bundle image's Dockerfile: the annotations as labels, and the
// bundle directories.
func bundleDockerfile(annotations map[string]string, bundleDir string, withScorecard bool) []byte {
	var b strings.Builder
	b.WriteString("# Code generated by `make bundle`. DO NOT EDIT.\nFROM scratch\n\n")
	for _, k := range sortedKeys(annotations) {
		fmt.Fprintf(&b, "LABEL %s=%s\n", k, annotations[k])
	}
	fmt.Fprintf(&b, "\nCOPY %s/manifests /manifests/\nCOPY %s/metadata /metadata/\n", bundleDir, bundleDir)
	if withScorecard {
		fmt.Fprintf(&b, "COPY %s/tests/scorecard /tests/scorecard/\n", bundleDir)
	}
	return []byte(b.String())
}

// manifestFileName names an extra manifest as operator-sdk does: name_group_version_kind.
func manifestFileName(obj any) string {
	u := obj.(*unstructured.Unstructured)
	gvk := u.GroupVersionKind()
	parts := []string{u.GetName()}
	if gvk.Group != "" {
		parts = append(parts, gvk.Group)
	}
	parts = append(parts, gvk.Version, strings.ToLower(gvk.Kind))
	return strings.Join(parts, "_") + ".yaml"
}

// marshalManifest writes an object as YAML without the fields a generated manifest should
// not carry: status, creationTimestamp, and other null values.
func marshalManifest(obj any) ([]byte, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	pruneNulls(m)
	return yaml.Marshal(m)
}

func pruneNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			pruneNulls(e)
		}
	case []any:
		for _, e := range t {
			pruneNulls(e)
		}
	}
}

func fromUnstructured(u *unstructured.Unstructured, obj any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true)
}

func splitList(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
