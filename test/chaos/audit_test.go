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
	"fmt"
	"maps"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/framework"
)

// readAudit reads the cluster's audit log.
func readAudit() framework.AuditLog {
	GinkgoHelper()
	path, err := cluster.AuditLog()
	Expect(err).NotTo(HaveOccurred())
	events, err := framework.ReadAudit(path)
	Expect(err).NotTo(HaveOccurred())
	return events
}

// requestsBy returns the requests of the replicas called name (sent with their token, see
// identity) received in [from, to).
func requestsBy(events framework.AuditLog, name string, from, to time.Time) framework.AuditLog {
	GinkgoHelper()
	credentials := credentialsOf(name)
	Expect(credentials).NotTo(BeEmpty(), "replicas called %s ran", name)
	return events.ByCredential(credentials...).Between(from, to)
}

// requestTrail lists the requests of the replicas called name since from, one line each
// (time, verb, URI, status): what a failed spec shows of what they did.
func requestTrail(name string, from time.Time) string {
	var b strings.Builder
	for _, e := range requestsBy(readAudit(), name, from, time.Now()) {
		fmt.Fprintf(&b, "%s %s %s %d\n", e.Received.Format("15:04:05.000"), e.Verb, e.RequestURI, e.ResponseStatus.Code)
	}
	return b.String()
}

// writesBy returns the writes of the replicas called name received in [from, to).
func writesBy(events framework.AuditLog, name string, from, to time.Time) framework.AuditLog {
	GinkgoHelper()
	return requestsBy(events, name, from, to).Writes()
}

// expectNoDuplicateCreates checks that no Deployment of ns was created more than once, and
// reports how many were.
func expectNoDuplicateCreates(scenario string, events framework.AuditLog, ns string) {
	GinkgoHelper()
	duplicates := duplicateCreates(events, ns)
	Expect(duplicates).To(BeEmpty(), "Deployments created more than once")
	figures.add(scenario, "Deployments created more than once (audit log)", len(duplicates))
}

// duplicateCreates are the Deployments of ns that were created more than once, with how
// many times: the answers 201 Created to a create, or to the server-side apply that creates.
func duplicateCreates(events framework.AuditLog, ns string) map[string]int {
	created := map[string]int{}
	for _, e := range events {
		if e.Stage == "ResponseComplete" && e.ObjectRef.Namespace == ns && e.Resource() == "apps/deployments" && e.ResponseStatus.Code == http.StatusCreated {
			created[e.ObjectRef.Name]++
		}
	}
	maps.DeleteFunc(created, func(_ string, n int) bool { return n == 1 })
	return created
}
