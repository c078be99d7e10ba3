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
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// serveMetrics starts controller-runtime's metrics server, with its self-signed certificate
// unless extra sets another, whose TLS settings come from src, until the test ends, and
// returns its address.
func serveMetrics(t *testing.T, src *tlsSource, extra ...func(*tls.Config)) string {
	g := NewWithT(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	addr := l.Addr().String()
	g.Expect(l.Close()).To(Succeed())
	server, err := metricsserver.NewServer(metricsserver.Options{
		BindAddress: addr, SecureServing: true, TLSOpts: append([]func(*tls.Config){metricsTLS(src, false)}, extra...),
	}, nil, nil)
	g.Expect(err).NotTo(HaveOccurred())
	go func() { _ = server.Start(t.Context()) }()
	g.Eventually(func() error {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
		}
		return err
	}).WithTimeout(10 * time.Second).Should(Succeed())
	return addr
}

// handshake connects with client's TLS settings and returns the version and protocol agreed.
func handshake(addr string, client *tls.Config) (uint16, string, error) {
	client.InsecureSkipVerify = true //nolint:gosec // the server's certificate is self-signed; only the negotiation is under test
	c, err := tls.Dial("tcp", addr, client)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = c.Close() }()
	state := c.ConnectionState()
	return state.Version, state.NegotiatedProtocol, nil
}

// tls12With is a TLS 1.2 client offering suite only.
func tls12With(suite uint16) *tls.Config {
	return &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{suite}}
}

// TestMetricsTLS serves the metrics server under the TLS options of the flags, and shakes
// hands with it.
func TestMetricsTLS(t *testing.T) {
	g := NewWithT(t)
	_, err := flagTLSSettings("TLSv1.2", nil)
	g.Expect(err).To(MatchError(ContainSubstring("--tls-min-version")))
	_, err = flagTLSSettings("VersionTLS12", []string{"TLS_NO_SUCH_SUITE"})
	g.Expect(err).To(MatchError(ContainSubstring("--tls-cipher-suites")))
	serve := func(minVersion string, suites []string) string {
		s, err := flagTLSSettings(minVersion, suites)
		g.Expect(err).NotTo(HaveOccurred())
		return serveMetrics(t, fixedTLS(s))
	}

	tls13 := serve("VersionTLS13", nil)
	_, _, err = handshake(tls13, &tls.Config{MaxVersion: tls.VersionTLS12})
	g.Expect(err).To(HaveOccurred(), "a TLS 1.2 client is refused at --tls-min-version=VersionTLS13")
	version, _, err := handshake(tls13, &tls.Config{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(version).To(Equal(uint16(tls.VersionTLS13)))

	suite := "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
	one := serve("VersionTLS12", []string{suite})
	_, _, err = handshake(one, tls12With(tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256))
	g.Expect(err).To(HaveOccurred(), "a TLS 1.2 client without %s is refused", suite)
	client := tls12With(tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384)
	client.NextProtos = []string{"h2", "http/1.1"}
	version, protocol, err := handshake(one, client)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(version).To(Equal(uint16(tls.VersionTLS12)))
	g.Expect(protocol).To(Equal("http/1.1"), "HTTP/2 stays off without --enable-http2")

	_, _, err = handshake(serveMetrics(t, &tlsSource{}), &tls.Config{})
	g.Expect(err).To(HaveOccurred(), "no handshake before the settings are known")
}

// TestProfileTLSSettings checks the settings of OpenShift's TLS security profiles.
func TestProfileTLSSettings(t *testing.T) {
	g := NewWithT(t)
	intermediate, err := profileTLSSettings(nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(intermediate.minVersion).To(Equal(uint16(tls.VersionTLS12)), "no profile: Intermediate, OpenShift's default")
	g.Expect(intermediate.cipherSuites).To(ContainElements(tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256))
	g.Expect(intermediate.cipherSuites).NotTo(ContainElement(tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA), "Old's CBC suites")

	modern, err := profileTLSSettings(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(modern.minVersion).To(Equal(uint16(tls.VersionTLS13)))

	old, err := profileTLSSettings(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileOldType})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(old.minVersion).To(Equal(uint16(tls.VersionTLS10)))
	g.Expect(old.cipherSuites).To(ContainElement(tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA))

	custom, err := profileTLSSettings(customProfile("VersionTLS12", "ECDHE-RSA-AES256-GCM-SHA384", "NO-SUCH-CIPHER"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(custom).To(Equal(tlsSettings{minVersion: tls.VersionTLS12, cipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}}))

	_, err = profileTLSSettings(&configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType})
	g.Expect(err).To(MatchError(ContainSubstring("without its custom settings")))
	_, err = profileTLSSettings(customProfile("VersionTLS12", "NO-SUCH-CIPHER"))
	g.Expect(err).To(MatchError(ContainSubstring("names no cipher suite Go offers")))
	_, err = profileTLSSettings(&configv1.TLSSecurityProfile{Type: "Paranoid"})
	g.Expect(err).To(MatchError(ContainSubstring(`unknown TLS security profile type "Paranoid"`)))
}

func customProfile(minVersion string, ciphers ...string) *configv1.TLSSecurityProfile {
	return &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: configv1.TLSProtocolVersion(minVersion), Ciphers: ciphers},
	}}
}

// TestMetricsTLSFollowsClusterProfile runs clusterProfile against a real kube-apiserver
// (envtest, KUBEBUILDER_ASSETS as make test sets it): without OpenShift's APIServer
// configuration the metrics server follows the flags; with it (its CRD, from the
// openshift/api module) the cluster's profile, changed while it serves.
func TestMetricsTLSFollowsClusterProfile(t *testing.T) {
	g := NewWithT(t)
	fallback := tlsSettings{minVersion: tls.VersionTLS12}
	follow := func(env *envtest.Environment) *tlsSource {
		cfg, err := env.Start()
		g.Expect(err).NotTo(HaveOccurred(), "start envtest: run the tests with `make test`, which builds kube-apiserver and etcd and sets KUBEBUILDER_ASSETS")
		t.Cleanup(func() { _ = env.Stop() })
		disco, err := discovery.NewDiscoveryClientForConfig(cfg)
		g.Expect(err).NotTo(HaveOccurred())
		client, err := dynamic.NewForConfig(cfg)
		g.Expect(err).NotTo(HaveOccurred())
		src := &tlsSource{}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go func() {
			_ = (&clusterProfile{src: src, discovery: disco, client: client, fallback: fallback}).Start(ctx)
		}()
		return src
	}

	t.Run("without OpenShift: the flags", func(t *testing.T) {
		src := follow(&envtest.Environment{})
		addr := serveMetrics(t, src)
		g.Eventually(func() error {
			_, _, err := handshake(addr, tls12With(tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256))
			return err
		}).
			WithTimeout(20 * time.Second).Should(Succeed())
	})

	t.Run("on OpenShift: the cluster's profile, as it changes", func(t *testing.T) {
		dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/openshift/api").Output()
		g.Expect(err).NotTo(HaveOccurred())
		env := &envtest.Environment{
			CRDDirectoryPaths:     []string{filepath.Join(strings.TrimSpace(string(dir)), "config", "v1", "zz_generated.crd-manifests", "0000_10_config-operator_01_apiservers-Default.crd.yaml")},
			ErrorIfCRDPathMissing: true,
		}
		src := follow(env)
		client, err := dynamic.NewForConfig(env.Config)
		g.Expect(err).NotTo(HaveOccurred())
		apiServers := client.Resource(apiServerResource)
		modern := &configv1.APIServer{
			TypeMeta:   metav1.TypeMeta{APIVersion: configv1.GroupVersion.String(), Kind: "APIServer"},
			ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
			Spec:       configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType, Modern: &configv1.ModernTLSProfile{}}},
		}
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(modern)
		g.Expect(err).NotTo(HaveOccurred())
		stored, err := apiServers.Create(t.Context(), &unstructured.Unstructured{Object: raw}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())

		addr := serveMetrics(t, src)
		g.Eventually(func() (uint16, error) { v, _, err := handshake(addr, &tls.Config{}); return v, err }).
			WithTimeout(20 * time.Second).Should(Equal(uint16(tls.VersionTLS13)))
		_, _, err = handshake(addr, tls12With(tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256))
		g.Expect(err).To(HaveOccurred(), "a TLS 1.2 client under the Modern profile")

		// A Custom profile: TLS 1.2 with one suite.
		custom, err := runtime.DefaultUnstructuredConverter.ToUnstructured(customProfile("VersionTLS12", "ECDHE-RSA-AES256-GCM-SHA384"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(unstructured.SetNestedField(stored.Object, custom, "spec", "tlsSecurityProfile")).To(Succeed())
		_, err = apiServers.Update(t.Context(), stored, metav1.UpdateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Eventually(func() error {
			_, _, err := handshake(addr, tls12With(tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384))
			return err
		}).
			WithTimeout(20 * time.Second).Should(Succeed())
		_, _, err = handshake(addr, tls12With(tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256))
		g.Expect(err).To(HaveOccurred(), "a TLS 1.2 client without the profile's suite")
	})
}
