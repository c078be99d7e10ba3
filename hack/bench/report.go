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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// readingGuide says where the operator's figures differ from the bare client's, and why.
const readingGuide = `Reading the tables:

- The operator's writes beyond the bare client's are an event for each change it makes to a Deployment
  (created, scaled, drift corrected), and the in-progress status of rollouts that take longer than
  ` + "`--progress-report-delay`" + ` (15 s; faster ones are reported once, when they complete). With hundreds of
  Foos changing at once, kube-controller-manager takes longer than that for most of them.
- Memory: the anonymous part is what the process allocated; the rest of the RSS are pages of its executable.
  The operator's fixed part is larger (controller-runtime's manager, the authenticated metrics endpoint,
  leader election, events); it caches only its own Deployments, so other objects in the cluster do not
  change it (B7), while both client-go peers cache every Deployment.

`

// report writes the Markdown tables of runs on machine to path, the plots beside it, and the tables
// to standard output.
func report(runs []result, machine, path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\nRun of `make bench` on %s: %s.\n\n", time.Now().UTC().Format("2006-01-02"), machine)
	fmt.Fprintf(&b, "Each contender runs on a fresh local cluster (kwok, one simulated node, the real kube-controller-manager); ")
	fmt.Fprintf(&b, "write requests are counted from kube-apiserver's audit log by user agent. ")
	fmt.Fprintf(&b, "kube-controller-manager keeps its default client limits (20 requests per second, bursts of 30, for each of its controllers): ")
	fmt.Fprintf(&b, "the time from the contender's part (every Deployment asks for the Foo's replicas) to every Foo reporting them is the Deployment and ReplicaSet controllers'. ")
	fmt.Fprintf(&b, "The bare client makes only the writes converging needs (create each Deployment, set its replicas, one status write per change).\n\n")
	fmt.Fprintf(&b, "![convergence time and RSS against the number of Foos](%s)\n\n", filepath.Base(plotPath(path)))
	b.WriteString(readingGuide)

	var ns []int
	for _, r := range runs {
		if !slices.Contains(ns, r.n) {
			ns = append(ns, r.n)
		}
	}
	for _, n := range ns {
		var row []result
		for _, r := range runs {
			if r.n == n {
				row = append(row, r)
			}
		}
		fmt.Fprintf(&b, "## %d Foos\n\n| | %s |\n|---|%s\n", n, strings.Join(names(row), " | "), strings.Repeat("---|", len(row)))
		line := func(label string, f func(r result) string) {
			cells := make([]string, len(row))
			for i, r := range row {
				cells[i] = f(r)
			}
			fmt.Fprintf(&b, "| %s | %s |\n", label, strings.Join(cells, " | "))
		}
		line("B1 converge (all Foos report 1 available replica)", func(r result) string { return seconds(r.converge) })
		line("B1 the contender's part (all Deployments created)", func(r result) string { return seconds(r.convergeOwn) })
		line("B2 writes per Foo to converge", func(r result) string { return perFoo(r.convergeWrites, r.n) })
		line("B3 writes while idle", func(r result) string { return fmt.Sprintf("%d in %v", total(r.idleWrites), r.idle) })
		line("B4 CPU while idle (periodic resyncs included)", func(r result) string { return seconds(r.idleCPU) })
		line("B5 restart: until a pass over every Foo", func(r result) string { return seconds(r.restart) })
		line("B5 CPU of that restart", func(r result) string { return seconds(r.restartCPU) })
		line("B5 writes per Foo after the restart", func(r result) string { return perFoo(r.restartWrites, r.n) })
		line("B6 RSS after convergence", func(r result) string { return r.mem.String() })
		line("B6 RSS after the restart", func(r result) string { return r.restartMem.String() })
		line(fmt.Sprintf("B7 RSS after a restart with %d unrelated Deployments and ConfigMaps", unrelatedObjects), func(r result) string {
			return fmt.Sprintf("%s: RSS %+.1f%%, anonymous %+.1f%%", r.unrelatedMem, change(r.restartMem.rss, r.unrelatedMem.rss), change(r.restartMem.anon, r.unrelatedMem.anon))
		})
		line("B9 scale every Foo 1 → 2", func(r result) string { return seconds(r.scale) })
		line("B9 the contender's part (all Deployments scaled)", func(r result) string { return seconds(r.scaleOwn) })
		line("B9 writes per Foo to scale", func(r result) string { return perFoo(r.scaleWrites, r.n) })
		line("B8 someone scales every Deployment 2 → 3: time until set back", func(r result) string { return seconds(r.drift) })
		line("B8 corrective writes per Foo (until the Foos settle)", func(r result) string { return perFoo(r.driftWrites, r.n) })
		line("kube-controller-manager writes while converging", func(r result) string { return fmt.Sprint(r.kcmWrites) })
		b.WriteString("\n")
	}
	slopes(&b, runs)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(b.String())
	return plotRuns(runs, plotPath(path))
}

// slopes writes each contender's memory per Foo: the slope of RSS after convergence
// between the smallest and the largest number of Foos.
func slopes(b *strings.Builder, runs []result) {
	first, last := map[string]result{}, map[string]result{}
	var order []string
	for _, r := range runs {
		if f, ok := first[r.contender]; !ok {
			first[r.contender], order = r, append(order, r.contender)
		} else if r.n < f.n {
			first[r.contender] = r
		}
		if l, ok := last[r.contender]; !ok || r.n > l.n {
			last[r.contender] = r
		}
	}
	header := false
	for _, name := range order {
		f, l := first[name], last[name]
		if f.n == l.n {
			continue
		}
		if !header {
			b.WriteString("## Memory per Foo (B6 slope)\n\n| | RSS per Foo | anonymous memory per Foo | RSS at 0 Foos (extrapolated) | anonymous at 0 Foos |\n|---|---|---|---|---|\n")
			header = true
		}
		slope := float64(l.mem.rss-f.mem.rss) / float64(l.n-f.n)
		anonSlope := float64(l.mem.anon-f.mem.anon) / float64(l.n-f.n)
		fmt.Fprintf(b, "| %s | %.1f KiB | %.1f KiB | %.0f MiB | %.0f MiB |\n", name, slope/1024, anonSlope/1024,
			(float64(f.mem.rss)-slope*float64(f.n))/(1<<20), (float64(f.mem.anon)-anonSlope*float64(f.n))/(1<<20))
	}
	if header {
		b.WriteString("\n")
	}
}

func seconds(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// change is the relative change from a to b in percent.
func change(a, b int64) float64 { return 100 * (float64(b)/float64(a) - 1) }

func names(rs []result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.contender
	}
	return out
}

func total(m map[string]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

// perFoo is the writes per Foo, with the breakdown by verb and resource.
func perFoo(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.2f", k, float64(m[k])/float64(n))
	}
	return fmt.Sprintf("**%.2f** (%s)", float64(total(m))/float64(n), strings.Join(parts, ", "))
}

// machineFacts describes the machine and the commit measured.
func machineFacts() string {
	facts := []string{fmt.Sprintf("%d CPUs", runtime.NumCPU()), runtime.Version()}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		first, _, _ := strings.Cut(string(raw), "\n")
		facts = append(facts, strings.Join(strings.Fields(first), " "))
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		facts = append(facts, "commit "+strings.TrimSpace(string(out)))
	}
	return strings.Join(facts, ", ")
}

func plotPath(md string) string { return strings.TrimSuffix(md, filepath.Ext(md)) + ".svg" }

// plotRuns draws convergence time and RSS against the number of Foos, one line per contender.
func plotRuns(runs []result, path string) error {
	byContender := map[string][]result{}
	var order []string
	for _, r := range runs {
		if _, ok := byContender[r.contender]; !ok {
			order = append(order, r.contender)
		}
		byContender[r.contender] = append(byContender[r.contender], r)
	}
	panel := func(title, y string, value func(result) float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, "Foos", y
		var lines []any
		for _, name := range order {
			pts := make(plotter.XYs, len(byContender[name]))
			for i, r := range byContender[name] {
				pts[i] = plotter.XY{X: float64(r.n), Y: value(r)}
			}
			lines = append(lines, name, pts)
		}
		return p, plotutil.AddLinePoints(p, lines...)
	}
	converge, err := panel("B1 convergence", "seconds", func(r result) float64 { return r.converge.Seconds() })
	if err != nil {
		return err
	}
	mem, err := panel("B6 RSS after convergence", "MiB", func(r result) float64 { return float64(r.mem.rss) / (1 << 20) })
	if err != nil {
		return err
	}
	img := vgsvg.New(12*vg.Inch, 4.5*vg.Inch)
	canvases := plot.Align([][]*plot.Plot{{converge, mem}}, draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter}, draw.New(img))
	converge.Draw(canvases[0][0])
	mem.Draw(canvases[0][1])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = img.WriteTo(f)
	return err
}
