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
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	cliflag "k8s.io/component-base/cli/flag"
	ctrl "sigs.k8s.io/controller-runtime"
)

// tlsSettings are what the metrics server accepts: the lowest TLS version and the cipher
// suites (Go's defaults when nil; Go ignores the list for TLS 1.3, whose suites are not
// configurable).
type tlsSettings struct {
	minVersion   uint16
	cipherSuites []uint16
}

// flagTLSSettings are the settings of --tls-min-version and --tls-cipher-suites, by the names
// kube-apiserver's flags take.
func flagTLSSettings(minVersion string, cipherSuites []string) (tlsSettings, error) {
	version, err := cliflag.TLSVersion(minVersion)
	if err != nil {
		return tlsSettings{}, fmt.Errorf("--tls-min-version: %w", err)
	}
	suites, err := cliflag.TLSCipherSuites(cipherSuites)
	if err != nil {
		return tlsSettings{}, fmt.Errorf("--tls-cipher-suites: %w", err)
	}
	return tlsSettings{minVersion: version, cipherSuites: suites}, nil
}

// profileTLSSettings are the settings of an OpenShift TLS security profile, as OpenShift's
// own components read it (library-go's crypto): no profile is Intermediate, the default of
// the cluster's APIServer; its ciphers have OpenSSL's names, and those Go cannot offer are
// left out.
func profileTLSSettings(profile *configv1.TLSSecurityProfile) (tlsSettings, error) {
	var spec *configv1.TLSProfileSpec
	switch {
	case profile == nil || profile.Type == "":
		spec = configv1.TLSProfiles[configv1.TLSProfileIntermediateType]
	case profile.Type == configv1.TLSProfileCustomType:
		if profile.Custom == nil {
			return tlsSettings{}, errors.New("a Custom TLS security profile without its custom settings")
		}
		spec = &profile.Custom.TLSProfileSpec
	default:
		if spec = configv1.TLSProfiles[profile.Type]; spec == nil {
			return tlsSettings{}, fmt.Errorf("unknown TLS security profile type %q", profile.Type)
		}
	}
	version, err := crypto.TLSVersion(string(spec.MinTLSVersion))
	if err != nil {
		return tlsSettings{}, err
	}
	var suites []uint16
	for _, name := range crypto.OpenSSLToIANACipherSuites(spec.Ciphers) {
		if id, err := crypto.CipherSuite(name); err == nil {
			suites = append(suites, id)
		}
	}
	if len(suites) == 0 {
		return tlsSettings{}, fmt.Errorf("the TLS security profile names no cipher suite Go offers: %v", spec.Ciphers)
	}
	return tlsSettings{minVersion: version, cipherSuites: suites}, nil
}

// tlsSource holds the settings the metrics server applies to each connection: those of the
// flags, or those of the cluster's TLS security profile, followed as it changes
// (followClusterProfile). Until they are known, handshakes are refused.
type tlsSource struct {
	current atomic.Pointer[tlsSettings]
}

// fixedTLS is a source of settings that never change.
func fixedTLS(s tlsSettings) *tlsSource {
	src := &tlsSource{}
	src.current.Store(&s)
	return src
}

// metricsTLS configures the metrics server: every handshake gets the source's settings at
// that moment, and HTTP/1.1 only unless http2.
func metricsTLS(src *tlsSource, http2 bool) func(*tls.Config) {
	return func(c *tls.Config) {
		if !http2 {
			c.NextProtos = []string{"http/1.1"}
		}
		base := c
		c.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
			s := src.current.Load()
			if s == nil {
				return nil, errors.New("the cluster's TLS security profile is not read yet")
			}
			conn := base.Clone()
			conn.GetConfigForClient = nil
			conn.MinVersion, conn.CipherSuites = s.minVersion, s.cipherSuites
			return conn, nil
		}
	}
}

// apiServerResource is OpenShift's cluster-wide API server configuration, whose one object,
// cluster, holds the TLS security profile the cluster's components follow.
var apiServerResource = configv1.GroupVersion.WithResource("apiservers")

// clusterProfile is the manager runnable, on every replica (each serves metrics), that keeps
// src at the TLS security profile of the cluster's APIServer configuration on OpenShift;
// elsewhere (no apiservers.config.openshift.io) at fallback, once the API server's
// discovery says so.
type clusterProfile struct {
	src       *tlsSource
	discovery discovery.DiscoveryInterface
	client    dynamic.Interface
	fallback  tlsSettings
}

// newClusterProfile is the clusterProfile of src, whose clients are mgr's.
func newClusterProfile(mgr ctrl.Manager, src *tlsSource, fallback tlsSettings) (*clusterProfile, error) {
	disco, err := discovery.NewDiscoveryClientForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	client, err := dynamic.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, err
	}
	return &clusterProfile{src: src, discovery: disco, client: client, fallback: fallback}, nil
}

func (*clusterProfile) NeedLeaderElection() bool { return false }

// Start follows the profile until ctx ends. It reads and watches the one object by name,
// which is all its RBAC allows.
func (p *clusterProfile) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("tls-profile")
	var openShift bool
	if err := wait.PollUntilContextCancel(ctx, 2*time.Second, true, func(context.Context) (bool, error) {
		resources, err := p.discovery.ServerResourcesForGroupVersion(configv1.GroupVersion.String())
		switch {
		case apierrors.IsNotFound(err):
			return true, nil
		case err != nil:
			log.V(1).Info("Cannot read the API server's discovery yet", "error", err.Error())
			return false, nil
		}
		openShift = slices.ContainsFunc(resources.APIResources, func(r metav1.APIResource) bool { return r.Name == apiServerResource.Resource })
		return true, nil
	}); err != nil {
		return nil //nolint:nilerr // ctx ended: the manager is stopping
	}
	if !openShift {
		log.Info("No OpenShift APIServer configuration: the metrics server follows --tls-min-version and --tls-cipher-suites")
		p.src.current.Store(&p.fallback)
		<-ctx.Done()
		return nil
	}

	informer := dynamicinformer.NewFilteredDynamicInformer(p.client, apiServerResource, "", 0, toolscache.Indexers{},
		func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", "cluster").String()
		}).Informer()
	follow := func(obj any) {
		var profile *configv1.TLSSecurityProfile // none, or deleted: Intermediate
		if u, ok := obj.(*unstructured.Unstructured); ok {
			var apiServer configv1.APIServer
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &apiServer); err != nil {
				log.Error(err, "Cannot read the cluster's APIServer configuration; the metrics server keeps its settings")
				return
			}
			profile = apiServer.Spec.TLSSecurityProfile
		}
		s, err := profileTLSSettings(profile)
		if err != nil {
			// The settings in use stay: a profile no client could use is a mistake to report,
			// not one to serve.
			log.Error(err, "Cannot follow the cluster's TLS security profile; the metrics server keeps its settings")
			return
		}
		if old := p.src.current.Swap(&s); old == nil || old.minVersion != s.minVersion || !slices.Equal(old.cipherSuites, s.cipherSuites) {
			log.Info("The metrics server follows the cluster's TLS security profile", "minVersion", tls.VersionName(s.minVersion), "cipherSuites", len(s.cipherSuites))
		}
	}
	if err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *toolscache.Reflector, err error) {
		log.Error(err, "Cannot list or watch the cluster's APIServer configuration (config.openshift.io apiservers, cluster): the metrics server keeps the TLS settings it has, and refuses handshakes while it has none")
	}); err != nil {
		return err
	}
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    follow,
		UpdateFunc: func(_, obj any) { follow(obj) },
		DeleteFunc: func(any) { follow(nil) },
	}); err != nil {
		return err
	}
	go informer.Run(ctx.Done())
	if toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) && len(informer.GetStore().List()) == 0 {
		follow(nil)
	}
	<-ctx.Done()
	return nil
}
