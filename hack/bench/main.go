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

// Command bench measures the operator side by side with kubernetes/sample-controller and a
// bare client (the least work that converges Foos), each on a fresh local cluster (kwok,
// hack/local-cluster.sh) whose kube-apiserver writes an audit log of every write request.
// Run it with `make bench`.
//
//	bench [-n 100,500] [-idle 60s] [-contenders operator,sample-controller,bare-client] [-operator-args FLAGS] [-out docs/benchmarks.md]
//	bench bare-client -kubeconfig FILE   # the bare client contender, run by bench as a process
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// operatorArgs are more flags for the operator.
var operatorArgs = flag.String("operator-args", "", "more flags for the operator, space-separated (for example --progress-report-delay=60s)")

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bare-client" {
		if err := runBareClient(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "Error:", err)
			os.Exit(1)
		}
		return
	}
	sizes := flag.String("n", "100,500,2000", "comma-separated numbers of Foos")
	idle := flag.Duration("idle", time.Minute, "how long the idle-writes scenario watches a converged cluster")
	names := flag.String("contenders", "operator,sample-controller,bare-client", "comma-separated contenders")
	out := flag.String("out", "docs/benchmarks.md", "the Markdown report (its plot is written beside it)")
	flag.Parse()

	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "Error: -n %q: want positive numbers\n", *sizes)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	machine := machineFacts() // before the runs: the commit measured
	var runs []result
	for _, n := range ns {
		for _, name := range strings.Split(*names, ",") {
			c, ok := contenders[strings.TrimSpace(name)]
			if !ok {
				fmt.Fprintf(os.Stderr, "Error: unknown contender %q\n", name)
				os.Exit(2)
			}
			r, err := measure(c, n, *idle)
			if err != nil {
				fmt.Fprintf(os.Stderr, "Error: %s with %d Foos: %v\n", c.name, n, err)
				os.Exit(1)
			}
			runs = append(runs, r)
		}
	}
	if err := report(runs, machine, *out); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

// progress prints what the benchmark is doing, with the time.
func progress(format string, args ...any) {
	fmt.Printf("%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
