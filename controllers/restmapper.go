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
	"net/http"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// NewRESTMapper is the manager's MapperProvider: controller-runtime's dynamic RESTMapper,
// except that the kinds the operator caches (Foos and Deployments, both namespaced) are
// known without asking the API server. Setting up the manager's cache looks up whether
// they are namespaced; with discovery alone, an operator started while the API server is
// unreachable (after it lost its Lease in an outage) exits and, restarted by the kubelet,
// fails again until the API server is back, with the kubelet's backoff delaying its
// recovery by up to 5 minutes. With this mapper it starts, serves its probes and waits for
// the Lease (test/chaos measures the outages).
func NewRESTMapper(config *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	dynamic, err := apiutil.NewDynamicRESTMapper(config, httpClient)
	if err != nil {
		return nil, err
	}
	known := meta.NewDefaultRESTMapper([]schema.GroupVersion{samplev1alpha1.GroupVersion, appsv1.SchemeGroupVersion})
	known.Add(samplev1alpha1.GroupVersion.WithKind("Foo"), meta.RESTScopeNamespace)
	known.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	return &knownKindsMapper{RESTMapper: dynamic, known: known}, nil
}

// knownKindsMapper answers RESTMapping from known first, and from the embedded mapper for
// the kinds known does not hold. Not apimachinery's meta.FirstHitRESTMapper: for any other
// kind it would join known's NoKindMatchError to the dynamic mapper's error, so that a
// discovery failure would pass meta.IsNoMatchError ("no such kind") for its callers.
type knownKindsMapper struct {
	meta.RESTMapper
	known meta.RESTMapper
}

func (m *knownKindsMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if mapping, err := m.known.RESTMapping(gk, versions...); err == nil {
		return mapping, nil
	}
	return m.RESTMapper.RESTMapping(gk, versions...)
}
