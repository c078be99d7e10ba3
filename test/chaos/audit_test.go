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
	credential := credentialOf(name)
	Expect(credential).NotTo(BeEmpty(), "replicas called %s ran", name)
	return events.ByCredential(credential).Between(from, to)
}

// writesBy returns the writes of the replicas called name received in [from, to).
func writesBy(events framework.AuditLog, name string, from, to time.Time) framework.AuditLog {
	GinkgoHelper()
	return requestsBy(events, name, from, to).Writes()
}
