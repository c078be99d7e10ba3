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
	"fmt"

	cliflag "k8s.io/component-base/cli/flag"
)

// metricsTLS is the TLS configuration of the metrics server: the lowest protocol version
// and the TLS 1.2 cipher suites it accepts, by the names kube-apiserver's --tls-min-version
// and --tls-cipher-suites take (Go's defaults when cipherSuites is empty; TLS 1.3's suites
// are not configurable in Go), and HTTP/1.1 only unless http2.
func metricsTLS(minVersion string, cipherSuites []string, http2 bool) (func(*tls.Config), error) {
	version, err := cliflag.TLSVersion(minVersion)
	if err != nil {
		return nil, fmt.Errorf("--tls-min-version: %w", err)
	}
	suites, err := cliflag.TLSCipherSuites(cipherSuites)
	if err != nil {
		return nil, fmt.Errorf("--tls-cipher-suites: %w", err)
	}
	return func(c *tls.Config) {
		c.MinVersion = version
		if len(suites) > 0 {
			c.CipherSuites = suites
		}
		if !http2 {
			c.NextProtos = []string{"http/1.1"}
		}
	}, nil
}
