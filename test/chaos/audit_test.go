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
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// auditEvent is what the suite reads of kube-apiserver's audit events.
type auditEvent struct {
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string              `json:"username"`
		Extra    map[string][]string `json:"extra"`
	} `json:"user"`
	ObjectRef struct {
		APIGroup    string `json:"apiGroup"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	Received metav1.MicroTime `json:"requestReceivedTimestamp"`
}

func (e auditEvent) write() bool {
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// resource is the event's "group/resource[/subresource]".
func (e auditEvent) resource() string {
	r := e.ObjectRef.APIGroup + "/" + e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return r
}

// readAudit reads the cluster's audit log.
func readAudit() []auditEvent {
	matches, err := filepath.Glob(filepath.Join(clusterDir, "clusters", "*", "logs", "audit.log"))
	Expect(err).NotTo(HaveOccurred())
	Expect(matches).To(HaveLen(1))
	f, err := os.Open(matches[0])
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	var events []auditEvent
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var e auditEvent
		Expect(json.Unmarshal(scanner.Bytes(), &e)).To(Succeed())
		events = append(events, e)
	}
	Expect(scanner.Err()).NotTo(HaveOccurred())
	return events
}

// writesBy returns the writes of a replica received in [from, to).
func writesBy(events []auditEvent, replica string, from, to time.Time) []auditEvent {
	var out []auditEvent
	for _, e := range requestsBy(events, replica, from, to) {
		if e.write() {
			out = append(out, e)
		}
	}
	return out
}

// requestsBy returns the requests of the replicas called name (sent with their token, see
// identity) received in [from, to).
func requestsBy(events []auditEvent, name string, from, to time.Time) []auditEvent {
	GinkgoHelper()
	credential := credentialOf(name)
	Expect(credential).NotTo(BeEmpty(), "replicas called %s ran", name)
	var out []auditEvent
	for _, e := range events {
		if slices.Contains(e.User.Extra["authentication.kubernetes.io/credential-id"], credential) &&
			!e.Received.Time.Before(from) && e.Received.Time.Before(to) {
			out = append(out, e)
		}
	}
	return out
}
