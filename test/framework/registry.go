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

package framework

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Registry is an image registry (distribution, bin/registry) serving TLS on an address of
// this machine with a certificate of a CA of its own: a user's private registry.
type Registry struct {
	// Host is its host:port, the registry part of its images' names.
	Host string
	// CA is the file of its CA's certificate.
	CA string
	// CABundle is the host's CA certificates and CA: SSL_CERT_FILE for clients on the host.
	CABundle string
	process  *Process
}

// certificates makes, in the working directory, a CA (ca.crt) and the registry's serving
// certificate for the IP address $2 (registry.crt, registry.key), with openssl.
const certificates = `set -e
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=registry CA $1" -keyout ca.key -out ca.crt 2>/dev/null
openssl req -new -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout registry.key -out registry.csr 2>/dev/null
openssl x509 -req -in registry.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
	-extfile <(printf 'subjectAltName=IP:%s\n' "$2") -out registry.crt 2>/dev/null`

// StartRegistry starts a registry on ip, its state, certificates and log in dir; readOnly
// makes it refuse every push, as a registry in maintenance does.
func StartRegistry(dir, ip string, readOnly bool) (*Registry, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	r := &Registry{Host: net.JoinHostPort(ip, strconv.Itoa(port)), CA: filepath.Join(dir, "ca.crt"), CABundle: filepath.Join(dir, "ca-bundle.crt")}
	if out, err := Run(dir, nil, nil, "bash", "-c", certificates, "certificates", r.Host, ip); err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	if err := r.writeCABundle(); err != nil {
		return nil, err
	}
	config := fmt.Sprintf("version: 0.1\nlog: {level: info}\nstorage:\n  filesystem: {rootdirectory: %s}\n  maintenance: {readonly: {enabled: %t}}\nhttp:\n  addr: %q\n  tls: {certificate: %s, key: %s}\n",
		filepath.Join(dir, "data"), readOnly, r.Host, filepath.Join(dir, "registry.crt"), filepath.Join(dir, "registry.key"))
	if err := os.WriteFile(filepath.Join(dir, "registry.yaml"), []byte(config), 0o644); err != nil {
		return nil, err
	}
	r.process, err = Start(filepath.Join(dir, "registry.log"), []string{"OTEL_TRACES_EXPORTER=none"},
		filepath.Join(Root(), "bin", "registry"), "serve", filepath.Join(dir, "registry.yaml"))
	if err != nil {
		return nil, err
	}
	return r, r.waitServing()
}

// writeCABundle writes CABundle: the host's CA certificates and CA.
func (r *Registry) writeCABundle() error {
	system, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(r.CA)
	if err != nil {
		return err
	}
	return os.WriteFile(r.CABundle, append(system, ca...), 0o644)
}

// waitServing waits until the registry answers over TLS, verified with its CA.
func (r *Registry) waitServing() error {
	var out string
	var err error
	for range 60 {
		if out, err = Run(".", nil, nil, "curl", "-sf", "--cacert", r.CA, "https://"+r.Host+"/v2/"); err == nil {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("the registry at %s does not answer: %w %s\n%s", r.Host, err, out, r.process.Log())
}

// Stop stops the registry.
func (r *Registry) Stop() { r.process.Stop(10 * time.Second) }
