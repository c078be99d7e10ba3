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
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
)

// TestRESTMapperWithoutAPIServer checks that every kind the manager caches maps without an
// API server (nothing listens on port 1), as config/crd defines it where it is a CRD, and
// that other kinds are asked of the API server.
func TestRESTMapperWithoutAPIServer(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	g.Expect(samplev1alpha1.AddToScheme(s)).To(Succeed())
	mapper, err := restMapperProvider(s)(&rest.Config{Host: "https://127.0.0.1:1"}, http.DefaultClient)
	g.Expect(err).NotTo(HaveOccurred())
	kinds, err := cachedKinds(s)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kinds).NotTo(BeEmpty())
	crds := crdsByGroupKind(g)
	for _, gvk := range kinds {
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		g.Expect(err).NotTo(HaveOccurred(), "%v", gvk)
		if crd, ok := crds[gvk.GroupKind()]; ok {
			g.Expect(mapping.Resource.Resource).To(Equal(crd.Spec.Names.Plural), "%v", gvk)
			scope := meta.RESTScopeNameRoot
			if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
				scope = meta.RESTScopeNameNamespace
			}
			g.Expect(mapping.Scope.Name()).To(Equal(scope), "%v", gvk)
		}
	}
	_, err = mapper.RESTMapping(schema.GroupKind{Kind: "ConfigMap"})
	g.Expect(err).To(HaveOccurred(), "ConfigMap is asked of the API server, which is not there")
}

// crdsByGroupKind are the CRDs of config/crd/bases.
func crdsByGroupKind(g Gomega) map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition {
	paths, err := filepath.Glob(filepath.Join("config", "crd", "bases", "*.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(paths).NotTo(BeEmpty())
	crds := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		g.Expect(err).NotTo(HaveOccurred())
		crd := &apiextensionsv1.CustomResourceDefinition{}
		g.Expect(yaml.Unmarshal(raw, crd)).To(Succeed(), path)
		crds[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd
	}
	return crds
}

// The leader election Role grants get and update of the Lease the manager elects with, and
// of no other.
func TestLeaderElectionRoleNamesTheLease(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join("config", "rbac", "leader_election_role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.Role{}
	g.Expect(yaml.Unmarshal(raw, role)).To(Succeed())
	g.Expect(role.Rules).To(ContainElement(rbacv1.PolicyRule{
		APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{leaderElectionID}, Verbs: []string{"get", "update"},
	}))
}

// TestManagerOnAPIServer runs the manager's startup pieces against a real kube-apiserver
// (envtest, KUBEBUILDER_ASSETS as make test sets it).
func TestManagerOnAPIServer(t *testing.T) {
	testEnv := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	cfg, err := testEnv.Start()
	NewWithT(t).Expect(err).NotTo(HaveOccurred(), "start envtest: run the tests with `make test`, which builds kube-apiserver and etcd and sets KUBEBUILDER_ASSETS")
	t.Cleanup(func() { _ = testEnv.Stop() })

	t.Run("the REST mapper maps every kind the manager caches as the API server's discovery does", func(t *testing.T) {
		g := NewWithT(t)
		kinds, err := cachedKinds(scheme)
		g.Expect(err).NotTo(HaveOccurred())
		offline, err := restMapperProvider(scheme)(&rest.Config{Host: "https://127.0.0.1:1"}, http.DefaultClient)
		g.Expect(err).NotTo(HaveOccurred())
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		g.Expect(err).NotTo(HaveOccurred())
		groups, err := restmapper.GetAPIGroupResources(dc)
		g.Expect(err).NotTo(HaveOccurred())
		discovered := restmapper.NewDiscoveryRESTMapper(groups)
		for _, gvk := range kinds {
			want, err := discovered.RESTMapping(gvk.GroupKind(), gvk.Version)
			g.Expect(err).NotTo(HaveOccurred(), "%v", gvk)
			got, err := offline.RESTMapping(gvk.GroupKind(), gvk.Version)
			g.Expect(err).NotTo(HaveOccurred(), "%v", gvk)
			g.Expect(got.Resource).To(Equal(want.Resource), "%v", gvk)
			g.Expect(got.Scope.Name()).To(Equal(want.Scope.Name()), "%v", gvk)
		}
	})

	t.Run("the cache starts its informers only once the API server is ready", func(t *testing.T) {
		g := NewWithT(t)
		ctx := t.Context()
		httpClient, err := rest.HTTPClientFor(cfg)
		g.Expect(err).NotTo(HaveOccurred())
		c, err := newCache(cfg, cache.Options{Scheme: scheme, HTTPClient: httpClient})
		g.Expect(err).NotTo(HaveOccurred())
		// The real readiness check answers here; a stand-in says "not ready" until told.
		rc := c.(*readyCache)
		g.Expect(rc.ready(ctx)).To(Succeed(), "envtest's /readyz")
		var ready atomic.Bool
		apiServerReady := rc.ready
		rc.ready = func(ctx context.Context) error {
			if !ready.Load() {
				return errors.New("not ready")
			}
			return apiServerReady(ctx)
		}
		_, err = c.GetInformer(ctx, &samplev1alpha1.Foo{})
		g.Expect(err).NotTo(HaveOccurred())
		started, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Start(started) }()
		defer func() { stop(); g.Expect(<-done).To(Succeed()) }()

		waiting, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		g.Expect(c.WaitForCacheSync(waiting)).To(BeFalse(), "informers started before the API server was ready")
		ready.Store(true)
		synced, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		g.Expect(c.WaitForCacheSync(synced)).To(BeTrue(), "informers synced once the API server was ready")
		g.Expect(c.List(ctx, &samplev1alpha1.FooList{})).To(Succeed())
	})

	t.Run("the reconciler's events are written with the spare tokens of the shared client limits, their notes cut to what kube-apiserver takes", func(t *testing.T) {
		g := NewWithT(t)
		ctx := t.Context()
		limited := rest.CopyConfig(cfg)
		limiter := shareClientLimits(limited, 5, 1)
		httpClient, err := rest.HTTPClientFor(limited)
		g.Expect(err).NotTo(HaveOccurred())
		recorder, err := eventRecorder(limited, httpClient, limiter, func() bool { return true })
		g.Expect(err).NotTo(HaveOccurred())
		defer recorder.stop()
		foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "evented"}}
		recorder.Eventf(foo, nil, corev1.EventTypeNormal, "Tested", "Test", "sent %d", 1)
		// A note longer than kube-apiserver takes (1,024 bytes), a two-byte character
		// across the limit: an admission webhook's denial quoted in a Warning.
		denial := strings.Repeat("d", noteLimit-4) + "é" + strings.Repeat("d", 500)
		recorder.Eventf(foo, nil, corev1.EventTypeWarning, "DeploymentWriteFailed", "Reconcile", "%s", denial)
		kube, err := kubernetes.NewForConfig(cfg)
		g.Expect(err).NotTo(HaveOccurred())
		g.Eventually(func(g Gomega) {
			list, err := kube.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(list.Items).To(ContainElement(And(HaveField("Reason", "Tested"), HaveField("Note", "sent 1"),
				HaveField("ReportingController", "foo-operator"), HaveField("Regarding.Name", "evented"))))
			g.Expect(list.Items).To(ContainElement(And(HaveField("Reason", "DeploymentWriteFailed"),
				HaveField("Note", denial[:noteLimit-4]+"…"))), "cut before the character that would cross the limit")
		}).WithTimeout(10 * time.Second).Should(Succeed())
	})

	t.Run("the reconciler's reports in progress wait for the shared bucket full but for a token", func(t *testing.T) {
		g := NewWithT(t)
		limited := rest.CopyConfig(cfg)
		// A token every 100 s: none comes back while the test runs.
		limiter := shareClientLimits(limited, 0.01, 4)
		mgr, err := ctrl.NewManager(limited, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
		g.Expect(err).NotTo(HaveOccurred())
		var r controllers.FooReconciler
		g.Expect(connect(&r, mgr, limiter)).To(Succeed())
		for taken := range 2 {
			g.Expect(r.SpareTokens()).To(BeTrue(), "%d of 4 tokens taken", taken)
			g.Expect(limited.RateLimiter.TryAccept()).To(BeTrue(), "the bucket every client shares")
		}
		g.Expect(r.SpareTokens()).To(BeFalse(), "2 of 4 tokens taken")

		var unlimited controllers.FooReconciler
		g.Expect(connect(&unlimited, mgr, nil)).To(Succeed())
		g.Expect(unlimited.SpareTokens).To(BeNil(), "no client limit")
	})
}
