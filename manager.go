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
	"context"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/example/foo-operator/controllers"
)

// leaderElectionID names the Lease the replicas of the operator elect a leader with. The
// leader election Role (config/rbac/leader_election_role.yaml) grants updates of this
// Lease only; main_test.go checks that the two agree.
const leaderElectionID = "foo-operator.samplecontroller.example.com"

// cacheOptions configures the manager's cache: the objects the reconciler reads, as it
// needs them cached (controllers.CachedObjects), in the given namespaces (all when none
// are given).
func cacheOptions(namespaces []string) cache.Options {
	opts := cache.Options{ByObject: controllers.CachedObjects()}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = make(map[string]cache.Config, len(namespaces))
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

// Starting without the API server: an operator that lost its Lease in an outage exits, and
// the kubelet starts it again while the API server (or etcd behind it) may still be down.
// restMapperProvider lets it start then; newCache lets it resume as soon as the API server
// is back. test/chaos runs the outages.

// newCache is the manager's NewCache: controller-runtime's cache, whose informers start
// only once the API server is ready (it answers /readyz, polled every 500 ms). Started
// while the API server is down, the informers' lists would fail and be retried with
// client-go's growing backoff (up to 30 s, jittered to 60 s), and the operator, which waits
// for its caches before it asks for the Lease, would resume that long after the API server
// came back. Its health probes are served meanwhile.
func newCache(config *rest.Config, opts cache.Options) (cache.Cache, error) {
	c, err := cache.New(config, opts)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(config, opts.HTTPClient)
	if err != nil {
		return nil, err
	}
	return &readyCache{Cache: c, ready: func(ctx context.Context) error {
		// Bounded: a request the outage left hanging must not hold the start up.
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return dc.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}}, nil
}

// readyCache starts its informers once ready succeeds.
type readyCache struct {
	cache.Cache
	ready func(context.Context) error
}

// Start waits until the API server is ready, then starts the informers and blocks until
// ctx is done.
func (c *readyCache) Start(ctx context.Context) error {
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		return c.ready(ctx) == nil, nil
	})
	if err != nil {
		return nil // stopped before the API server was ready
	}
	return c.Cache.Start(ctx)
}

// restMapperProvider is the manager's MapperProvider: controller-runtime's dynamic
// RESTMapper, except that the kinds the manager caches (cachedKinds) are known without
// asking the API server. Setting up the manager's cache looks up whether they are
// namespaced; with discovery alone, an operator started while the API server is unreachable
// exits and, restarted by the kubelet, fails again until the API server is back, with the
// kubelet's backoff delaying its recovery by up to 5 minutes. With this mapper it starts,
// serves its probes and waits for the API server.
func restMapperProvider(scheme *runtime.Scheme) func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
	return func(config *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
		kinds, err := cachedKinds(scheme)
		if err != nil {
			return nil, err
		}
		dynamic, err := apiutil.NewDynamicRESTMapper(config, httpClient)
		if err != nil {
			return nil, err
		}
		known := meta.NewDefaultRESTMapper(nil)
		for _, gvk := range kinds {
			// Plural by the same rule as the API server's for built-in kinds and
			// controller-gen's for CRDs (the envtest suite compares with discovery).
			known.Add(gvk, meta.RESTScopeNamespace)
		}
		return &knownKindsMapper{RESTMapper: dynamic, known: known}, nil
	}
}

// cachedKinds are the kinds of the objects the manager caches (controllers.CachedObjects), which are
// all namespaced: a cluster-scoped kind added to the cache would map wrongly here, and the
// envtest suite's comparison with the API server's discovery fails.
func cachedKinds(scheme *runtime.Scheme) ([]schema.GroupVersionKind, error) {
	var kinds []schema.GroupVersionKind
	for obj := range controllers.CachedObjects() {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return nil, err
		}
		kinds = append(kinds, gvk)
	}
	return kinds, nil
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
