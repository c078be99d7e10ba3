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
	"crypto/tls"
	"net"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// TestMetricsTLS serves controller-runtime's metrics server, with its self-signed
// certificate, under the TLS options of the flags, and shakes hands with it.
func TestMetricsTLS(t *testing.T) {
	g := NewWithT(t)
	_, err := metricsTLS("TLSv1.2", nil, false)
	g.Expect(err).To(MatchError(ContainSubstring("--tls-min-version")))
	_, err = metricsTLS("VersionTLS12", []string{"TLS_NO_SUCH_SUITE"}, false)
	g.Expect(err).To(MatchError(ContainSubstring("--tls-cipher-suites")))

	// serve starts a metrics server with the options of the flags and returns its address.
	serve := func(minVersion string, suites []string) string {
		opts, err := metricsTLS(minVersion, suites, false)
		g.Expect(err).NotTo(HaveOccurred())
		l, err := net.Listen("tcp", "127.0.0.1:0")
		g.Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		g.Expect(l.Close()).To(Succeed())
		server, err := metricsserver.NewServer(metricsserver.Options{
			BindAddress: addr, SecureServing: true, TLSOpts: []func(*tls.Config){opts},
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
	// handshake connects with client's TLS settings and returns the version agreed.
	handshake := func(addr string, client *tls.Config) (uint16, string, error) {
		client.InsecureSkipVerify = true //nolint:gosec // the server's certificate is self-signed; only the negotiation is under test
		c, err := tls.Dial("tcp", addr, client)
		if err != nil {
			return 0, "", err
		}
		defer func() { _ = c.Close() }()
		state := c.ConnectionState()
		return state.Version, state.NegotiatedProtocol, nil
	}

	tls13 := serve("VersionTLS13", nil)
	_, _, err = handshake(tls13, &tls.Config{MaxVersion: tls.VersionTLS12})
	g.Expect(err).To(HaveOccurred(), "a TLS 1.2 client is refused at --tls-min-version=VersionTLS13")
	version, _, err := handshake(tls13, &tls.Config{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(version).To(Equal(uint16(tls.VersionTLS13)))

	suite := "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"
	one := serve("VersionTLS12", []string{suite})
	_, _, err = handshake(one, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}})
	g.Expect(err).To(HaveOccurred(), "a TLS 1.2 client without %s is refused", suite)
	version, protocol, err := handshake(one, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}, NextProtos: []string{"h2", "http/1.1"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(version).To(Equal(uint16(tls.VersionTLS12)))
	g.Expect(protocol).To(Equal("http/1.1"), "HTTP/2 stays off without --enable-http2")
}
