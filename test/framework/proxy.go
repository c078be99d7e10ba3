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
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// EgressProxy is a cluster's HTTPS proxy, as OpenShift's cluster-wide Proxy names it and OLM
// passes it to operators (HTTPS_PROXY): it tunnels CONNECT requests and records, per client
// address, the addresses each asked for. It listens on the host's address, which pods reach.
type EgressProxy struct {
	URL string

	server  *http.Server
	mu      sync.Mutex
	tunnels map[string][]string // client IP → the host:ports it connected to
	conns   []net.Conn
}

// StartEgressProxy starts an EgressProxy listening on host (an address pods reach), until
// Close.
func StartEgressProxy(host string) (*EgressProxy, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	p := &EgressProxy{URL: "http://" + l.Addr().String(), tunnels: map[string][]string{}}
	p.server = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.server.Serve(l) }()
	return p, nil
}

// Close stops the proxy and closes its tunnels.
func (p *EgressProxy) Close() {
	_ = p.server.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns { // hijacked: the server no longer tracks them
		_ = c.Close()
	}
}

func (p *EgressProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "this proxy only tunnels (CONNECT)", http.StatusMethodNotAllowed)
		return
	}
	upstream, err := net.DialTimeout("tcp", r.Host, 10*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	conn, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		_ = upstream.Close()
		return
	}
	client, _, _ := net.SplitHostPort(r.RemoteAddr)
	p.mu.Lock()
	p.tunnels[client] = append(p.tunnels[client], r.Host)
	p.conns = append(p.conns, conn, upstream)
	p.mu.Unlock()
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = conn.Close()
		_ = upstream.Close()
		return
	}
	go func() {
		_, _ = io.Copy(upstream, buffered) // what the client sent, buffered or not yet read
		_ = upstream.Close()
	}()
	_, _ = io.Copy(conn, upstream)
	_ = conn.Close()
}

// TunnelsOf is what the client at ip tunnelled to, one entry per CONNECT.
func (p *EgressProxy) TunnelsOf(ip string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.tunnels[ip]...)
}

// String lists who tunnelled where, for failure messages.
func (p *EgressProxy) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for client, hosts := range p.tunnels {
		b.WriteString(client + " → " + strings.Join(hosts, ", ") + "\n")
	}
	return b.String()
}
