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
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AuditEvent is what the suites and the benchmark read of a kube-apiserver audit event.
type AuditEvent struct {
	// Stage is ResponseComplete, or ResponseStarted when a long-running request (a watch)
	// began, where the audit policy records that stage.
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
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
	// Annotations hold the authorizer's decision and reason, among others.
	Annotations map[string]string `json:"annotations"`
}

// Unauthorized reports whether the authorizer refused the request. A 403 may also come
// from admission (an object created in a namespace being deleted), which is not a
// permission missing.
func (e AuditEvent) Unauthorized() bool {
	return e.Annotations["authorization.k8s.io/decision"] == "forbid"
}

// IsWrite reports whether the request writes.
func (e AuditEvent) IsWrite() bool {
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// Resource is "group/resource[/subresource]".
func (e AuditEvent) Resource() string {
	r := e.ObjectRef.APIGroup + "/" + e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return r
}

// ReadAudit reads the audit log at path, after the backups kube-apiserver rotated it into:
// every 100 MB by default (--audit-log-maxsize), path's name with the time of rotation
// before its extension (audit-2026-11-25T09-30-00.000.log), which sorts in time order.
// Reading path alone would lose whatever came before the last rotation.
func ReadAudit(path string) (AuditLog, error) {
	var events AuditLog
	err := EachAuditEvent(path, func(e AuditEvent) { events = append(events, e) })
	return events, err
}

// EachAuditEvent hands each event of the audit log at path to f, in the order ReadAudit
// reads them, without holding them: a log of millions of events needs no more memory than
// f keeps.
func EachAuditEvent(path string, f func(AuditEvent)) error {
	ext := filepath.Ext(path)
	backups, err := filepath.Glob(strings.TrimSuffix(path, ext) + "-*" + ext)
	if err != nil {
		return err
	}
	slices.Sort(backups)
	for _, file := range append(backups, path) {
		if err := eachAuditEventOf(file, f); err != nil {
			return err
		}
	}
	return nil
}

// eachAuditEventOf hands each event of one audit log file to f. A last line without its
// newline is one kube-apiserver is still writing (a log read while the cluster runs): it is
// left for a later read, once complete.
func eachAuditEventOf(path string, f func(AuditEvent)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	reader := bufio.NewReaderSize(file, 1<<20)
	for {
		line, err := reader.ReadBytes('\n')
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("audit log %s: %w", path, err)
		}
		var e AuditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("audit log %s: %w", path, err)
		}
		f(e)
	}
}

// AuditLog is a list of audit events, filtered by its methods.
type AuditLog []AuditEvent

// Where is the events for which keep is true.
func (l AuditLog) Where(keep func(AuditEvent) bool) AuditLog {
	var out AuditLog
	for _, e := range l {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Between is the events received in [from, to).
func (l AuditLog) Between(from, to time.Time) AuditLog {
	return l.Where(func(e AuditEvent) bool { return !e.Received.Time.Before(from) && e.Received.Time.Before(to) })
}

// ByCredential is the requests sent with a token whose CredentialID is one of ids.
func (l AuditLog) ByCredential(ids ...string) AuditLog {
	return l.Where(func(e AuditEvent) bool {
		return slices.ContainsFunc(e.User.Extra["authentication.kubernetes.io/credential-id"], func(id string) bool { return slices.Contains(ids, id) })
	})
}

// ByUserAgent is the requests whose user agent starts with prefix.
func (l AuditLog) ByUserAgent(prefix string) AuditLog {
	return l.Where(func(e AuditEvent) bool { return strings.HasPrefix(e.UserAgent, prefix) })
}

// Writes is the write requests.
func (l AuditLog) Writes() AuditLog { return l.Where(AuditEvent.IsWrite) }

// Requests is one event of each request: a watch's ResponseStarted (it completes only
// when it ends) and every other request's ResponseComplete.
func (l AuditLog) Requests() AuditLog {
	return l.Where(func(e AuditEvent) bool {
		if e.Verb == "watch" {
			return e.Stage == "ResponseStarted"
		}
		return e.Stage == "ResponseComplete"
	})
}

// Count counts the requests by "verb group/resource[/subresource]".
func (l AuditLog) Count() map[string]int {
	out := map[string]int{}
	for _, e := range l {
		out[e.Verb+" "+e.Resource()]++
	}
	return out
}
