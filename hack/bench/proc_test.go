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
	"testing"
	"time"
)

// TestParseCPUTime checks utime + stime of a /proc/PID/stat whose command holds spaces and
// a parenthesis.
func TestParseCPUTime(t *testing.T) {
	stat := "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 1234 0 0 0 150 25 0 0 20 0 12 0 123456 1000000 2000 18446744073709551615\n"
	got, err := parseCPUTime(stat)
	if err != nil || got != 1750*time.Millisecond {
		t.Errorf("got %v, %v, want 1.75s (175 ticks)", got, err)
	}
	if _, err := parseCPUTime("4242 (cmd) S 1 2"); err == nil {
		t.Error("too few fields: want an error")
	}
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	if _, err := parseCPUTime(string(raw)); err != nil {
		t.Errorf("/proc/self/stat: %v", err)
	}
}

// TestParseMemory checks VmRSS, RssAnon and VmHWM of a /proc/PID/status.
func TestParseMemory(t *testing.T) {
	status := "Name:\tmanager\nVmPeak:\t 1300000 kB\nVmHWM:\t   60000 kB\nVmRSS:\t   55000 kB\nRssAnon:\t   18000 kB\nRssFile:\t   37000 kB\n"
	got, err := parseMemory(status)
	if err != nil || got != (memory{rss: 55000 << 10, anon: 18000 << 10, hwm: 60000 << 10}) {
		t.Errorf("got %+v, %v", got, err)
	}
	if _, err := parseMemory("Name:\tmanager\nVmRSS:\t 1 kB\n"); err == nil {
		t.Error("no RssAnon nor VmHWM: want an error")
	}
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	if m, err := parseMemory(string(raw)); err != nil || m.hwm < m.rss {
		t.Errorf("/proc/self/status: got %+v, %v, want VmHWM at least VmRSS", m, err)
	}
}

// TestParseCPUStat checks the idle (and I/O wait) and interrupt ticks of /proc/stat: its
// first line, which sums all CPUs, or the lines of the CPUs asked for.
func TestParseCPUStat(t *testing.T) {
	stat := "cpu  100 5 40 9000 60 7 300 0 0 0\ncpu0 50 2 20 4500 30 3 100 0 0 0\ncpu1 50 3 20 4400 20 4 200 0 0 0\n"
	for _, c := range []struct {
		cpus []int
		want cpuStat
	}{
		{nil, cpuStat{idle: 90600 * time.Millisecond, interrupts: 3070 * time.Millisecond}},         // 9000 + 60, 7 + 300 ticks
		{[]int{0}, cpuStat{idle: 45300 * time.Millisecond, interrupts: 1030 * time.Millisecond}},    // 4500 + 30, 3 + 100
		{[]int{1}, cpuStat{idle: 44200 * time.Millisecond, interrupts: 2040 * time.Millisecond}},    // 4400 + 20, 4 + 200
		{[]int{0, 1}, cpuStat{idle: 89500 * time.Millisecond, interrupts: 3070 * time.Millisecond}}, // both
	} {
		if got, err := parseCPUStat(stat, c.cpus); err != nil || got != c.want {
			t.Errorf("CPUs %v: got %+v, %v, want %+v", c.cpus, got, err, c.want)
		}
	}
	if _, err := parseCPUStat("cpu0 50 2 20 4500 30 3 100\n", nil); err == nil {
		t.Error("no cpu line: want an error")
	}
	if _, err := parseCPUStat(stat, []int{2}); err == nil {
		t.Error("no cpu2 line: want an error")
	}
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skip(err)
	}
	if _, err := parseCPUStat(string(raw), []int{0}); err != nil {
		t.Errorf("/proc/stat: %v", err)
	}
}

// TestClusterCPUSince checks a phase's CPU times: each process's and the idle time's
// difference.
func TestClusterCPUSince(t *testing.T) {
	before := clusterCPU{processes: map[string]time.Duration{"etcd": time.Second, contenderProcess: 2 * time.Second}, cpuStat: cpuStat{idle: 10 * time.Second, interrupts: time.Second}}
	after := clusterCPU{processes: map[string]time.Duration{"etcd": 4 * time.Second, contenderProcess: 3 * time.Second}, cpuStat: cpuStat{idle: 11 * time.Second, interrupts: 3 * time.Second}}
	got := after.since(before)
	if got.processes["etcd"] != 3*time.Second || got.processes[contenderProcess] != time.Second || got.cpuStat != (cpuStat{idle: time.Second, interrupts: 2 * time.Second}) || len(got.processes) != 2 {
		t.Errorf("got %+v", got)
	}
}
