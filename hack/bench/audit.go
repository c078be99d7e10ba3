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
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/example/foo-operator/test/framework"
)

// readAudit hands each event of the audit log at path to f, after those of the backups
// kube-apiserver rotated it into, as framework.ReadAudit reads them. framework.ReadAudit
// holds every event: at 10,000 Foos a run's log holds millions (kube-controller-manager's,
// kwok's, the scheduler's), gigabytes in memory, of which the benchmark keeps the
// contender's and counts a few others.
func readAudit(path string, f func(framework.AuditEvent)) error {
	ext := filepath.Ext(path)
	backups, err := filepath.Glob(strings.TrimSuffix(path, ext) + "-*" + ext)
	if err != nil {
		return err
	}
	slices.Sort(backups)
	for _, file := range append(backups, path) {
		if err := readAuditFile(file, f); err != nil {
			return err
		}
	}
	return nil
}

// readAuditFile hands each event of one audit log file to f.
func readAuditFile(path string, f func(framework.AuditEvent)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var e framework.AuditEvent
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return fmt.Errorf("audit log %s: %w", path, err)
		}
		f(e)
	}
	return scanner.Err()
}

// receivedTimes is when each request of l was received, sorted.
func receivedTimes(l framework.AuditLog) []time.Time {
	out := make([]time.Time, len(l))
	for i, e := range l {
		out[i] = e.Received.Time
	}
	slices.SortFunc(out, time.Time.Compare)
	return out
}
