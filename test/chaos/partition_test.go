//go:build chaos

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

package chaos

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// partitionSpecs are scenario 4: the leader cut off from the API server for 30 s and
// (unless CHAOS_SHORT is set) 3 minutes, longer than its Lease lasts, while a second replica
// still reaches it, and alone.
func partitionSpecs() {
	cuts := []time.Duration{30 * time.Second}
	if !short() {
		cuts = append(cuts, 3*time.Minute)
	}
	for _, cut := range cuts {
		partitionSpec(cut)
		partitionAloneSpec(cut)
	}
}

func partitionSpec(cut time.Duration) {
	It(fmt.Sprintf("stops the leader partitioned for %v before the other replica starts, so two leaders never write", cut), func() {
		const n = 300
		scenario := fmt.Sprintf("4. Partition: the leader cut off from the API server for %v while %d Foos converge, another replica reaching it", cut, n)
		ns := env.CreateNamespace("partition-"+cut.String(), false)
		network := newPartition()
		partitionedName := "manager-partitioned-" + cut.String()
		// Its token's kubeconfig, made before it starts, names the proxy as the API server.
		_, err := identity(partitionedName, network.addr())
		Expect(err).NotTo(HaveOccurred())
		old := supervise(partitionedName)
		Eventually(old.leads).WithTimeout(time.Minute).Should(BeTrue())
		other := startReplica("manager-reachable-" + cut.String())

		createFoos(ns, 0, n)
		Eventually(deploymentsIn(ns)).Should(BeNumerically(">=", n/5))
		partitioned := time.Now()
		network.cut()
		Eventually(other.leads).WithTimeout(time.Minute).Should(BeTrue())
		time.Sleep(time.Until(partitioned.Add(cut)))
		network.heal()
		converged := expectConverged(ns, n)
		time.Sleep(5 * time.Second) // the audit log is written asynchronously

		events := readAudit()
		first := firstWrite(events, other.name, partitioned)
		leader := old.all()[0]
		Expect(leader.Done).To(BeClosed(), "the partitioned leader exited when it could not renew its Lease")
		figures.add(scenario, "time from the cut to the partitioned leader stopping (it exits when it cannot renew the Lease)", leader.Exited.Sub(partitioned).Round(100*time.Millisecond))
		figures.add(scenario, "time from the cut to the other replica's first write", first.Sub(partitioned).Round(100*time.Millisecond))
		Expect(leader.Exited).To(BeTemporally("<", first), "the old leader stopped before the new one wrote")
		figures.add(scenario, "margin between the old leader stopping and the new leader's first write", first.Sub(leader.Exited).Round(100*time.Millisecond))
		// Requests the proxy forwarded just before the cut may reach the API server's handlers
		// just after it: the partitioned replica still led then. Once the other replica has
		// written, none may arrive, neither during the cut nor after the heal (the restarted
		// replica comes back as a follower).
		late := writesBy(events, old.name, first, time.Now())
		Expect(late).To(BeEmpty(), "no write of the partitioned replica reached the API server after the other replica's first write")
		figures.add(scenario, "writes of the partitioned replica received after the cut (forwarded before it)", len(writesBy(events, old.name, partitioned, first)))
		figures.add(scenario, "writes of the partitioned replica received after the other replica's first write (during the cut and after it, restarted)", len(late))
		figures.add(scenario, "Foos converged", fmt.Sprintf("%d of %d", converged, n))
		expectNoDuplicateCreates(scenario, events, ns)
	})
}

// partitionAloneSpec cuts the only replica off: once the network heals, it must resume at
// once, since the Lease it held is still its own (main.go podLeaderLock).
func partitionAloneSpec(cut time.Duration) {
	It(fmt.Sprintf("resumes within 5 s of a %v partition of its only replica healing, restarting as its pod would", cut), Slow, func() {
		const n = 200
		scenario := fmt.Sprintf("4. Partition: the only replica cut off from the API server for %v while %d Foos converge", cut, n)
		ns := env.CreateNamespace("partition-alone-"+cut.String(), false)
		network := newPartition()
		name := "manager-alone-" + cut.String()
		_, err := identity(name, network.addr())
		Expect(err).NotTo(HaveOccurred())
		operator := supervise(name)
		Eventually(operator.leads).WithTimeout(time.Minute).Should(BeTrue())

		createFoos(ns, 0, n)
		Eventually(deploymentsIn(ns)).Should(BeNumerically(">=", n/5))
		network.cut()
		time.Sleep(cut)
		network.heal()
		healed := time.Now()
		converged := expectConverged(ns, n)
		time.Sleep(5 * time.Second) // the audit log is written asynchronously

		events := readAudit()
		first := firstWrite(events, name, healed).Sub(healed)
		figures.add(scenario, "time from the heal to the operator's first write (renewing its Lease)", first.Round(100*time.Millisecond))
		Expect(first).To(BeNumerically("<=", 5*time.Second), "the operator writes within 5 s of the heal")
		figures.add(scenario, "operator restarts (it exits when it cannot renew its Lease)", operator.restarts())
		figures.add(scenario, "Foos converged", fmt.Sprintf("%d of %d", converged, n))
		expectNoDuplicateCreates(scenario, events, ns)
	})
}

// partition is a TCP proxy to the API server that a spec cuts and heals. While cut it drops
// every byte both ways, as a partitioned network drops packets; at heal it closes the
// connections that lost data, as TCP gives up on them. Nothing sent during the cut arrives
// later, and a client that kept running through it reaches the server again after the heal.
type partition struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	isCut  bool
	broken map[*link]bool // connections that lost data
}

// link is one proxied connection.
type link struct{ client, server net.Conn }

func (l *link) close() {
	l.client.Close()
	l.server.Close()
}

// newPartition starts a proxy to the API server until the spec ends.
func newPartition() *partition {
	GinkgoHelper()
	server, err := url.Parse(cfg.Host)
	Expect(err).NotTo(HaveOccurred())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	p := &partition{ln: ln, target: server.Host, broken: map[*link]bool{}}
	go p.serve()
	DeferCleanup(ln.Close)
	return p
}

// addr is the proxy's URL, the server of a kubeconfig.
func (p *partition) addr() string { return "https://" + p.ln.Addr().String() }

func (p *partition) serve() {
	for {
		client, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		l := &link{client: client, server: server}
		go p.pipe(l, server, client)
		go p.pipe(l, client, server)
	}
}

// pipe copies src to dst, dropping what it reads while the network is cut.
func (p *partition) pipe(l *link, dst, src net.Conn) {
	defer l.close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			drop := p.isCut
			if drop {
				p.broken[l] = true
			}
			p.mu.Unlock()
			if !drop {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *partition) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isCut = true
}

func (p *partition) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isCut = false
	for l := range p.broken {
		l.close()
	}
	clear(p.broken)
}
