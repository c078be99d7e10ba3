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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCPUShares checks that the shares are disjoint, of one size, of the CPUs the benchmark
// may run on, and in the order of their interrupt time, the most first, and that asking for
// more shares than CPUs fails.
func TestCPUShares(t *testing.T) {
	all, err := cpuShares(1)
	if err != nil || len(all) != 1 || len(all[0]) == 0 {
		t.Fatalf("one share: got %v, %v", all, err)
	}
	if shares, err := cpuShares(0); err != nil || shares != nil {
		t.Errorf("no share: got %v, %v", shares, err)
	}
	if _, err := cpuShares(len(all[0]) + 1); err == nil {
		t.Errorf("%d shares of %d CPUs: want an error", len(all[0])+1, len(all[0]))
	}
	k := min(2, len(all[0]))
	shares, err := cpuShares(k)
	if err != nil || len(shares) != k {
		t.Fatalf("%d shares: got %v, %v", k, shares, err)
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	last := time.Duration(-1)
	for _, share := range shares {
		c, err := parseCPUStat(string(stat), share)
		if err != nil || last >= 0 && c.interrupts > last+time.Second { // the ticks since the shares were read
			t.Errorf("shares %v not in the order of their interrupt time, the most first (%v after %v, %v)", shares, c.interrupts, last, err)
		}
		last = c.interrupts
		if len(share) != len(shares[0]) {
			t.Errorf("shares of different sizes: %v", shares)
		}
		for _, cpu := range share {
			if slices.Contains(seen, cpu) || !slices.Contains(all[0], cpu) {
				t.Errorf("CPU %d twice or not the benchmark's: %v of %v", cpu, shares, all[0])
			}
			seen = append(seen, cpu)
		}
	}
}

// TestPin pins a running process of several threads (this test binary again, waiting on
// its standard input: see TestMain) and reads every thread's allowed CPUs back.
func TestPin(t *testing.T) {
	shares, err := cpuShares(1)
	if err != nil {
		t.Fatal(err)
	}
	cpu := shares[0][len(shares[0])-1]
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PIN_HELPER=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
	if err := pin(cmd.Process.Pid, []int{cpu}); err != nil {
		t.Fatal(err)
	}
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("threads of the helper: %v, %v", tasks, err)
	}
	for _, task := range tasks {
		raw, err := os.ReadFile(task)
		if err != nil {
			continue // a thread that ended
		}
		for line := range strings.Lines(string(raw)) {
			if name, value, ok := strings.Cut(line, ":"); ok && name == "Cpus_allowed_list" && strings.TrimSpace(value) != strconv.Itoa(cpu) {
				t.Errorf("%s: allowed CPUs %s, want %d", task, strings.TrimSpace(value), cpu)
			}
		}
	}
}

// TestMain runs the tests, or, as TestPin's process to pin, waits until its standard
// input closes.
func TestMain(m *testing.M) {
	if os.Getenv("PIN_HELPER") == "1" {
		_, _ = os.Stdin.Read(make([]byte, 1))
		os.Exit(0)
	}
	os.Exit(m.Run())
}
