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

// Command foo-scorecard-tests is the operator's custom scorecard test program, written as
// operator-sdk's "Writing Custom Scorecard Tests" describes. `operator-sdk scorecard` runs it
// in a pod of the namespace it tests in, with the bundle untarred at /bundle:
//
//	foo-scorecard-tests [--bundle /bundle] [--namespace NS] [--step-timeout 90s] foo-serves
//
// It prints one v1alpha3 TestStatus as JSON on stdout and exits 0; the verdict is the
// result's state (pass, fail, or error when the test could not start). Its one test,
// foo-serves, creates the CSV's alm-examples Foo under a unique name, waits for it to be
// Ready, asks every Ready pod for / over HTTP, scales the Foo through /scale and deletes it,
// waiting for the garbage collector to delete its Deployment. The result's Errors name the
// step that failed and what it observed; its Log holds every step with its duration. After a
// failure the test deletes its Foo, best effort.
//
// It needs no more than this Role in its namespace, bound to the scorecard pod's service
// account (config/scorecard/rbac). It makes no cluster-scoped call (client discovery reads
// only the non-resource /api and /apis paths, open to every authenticated user) and opens no
// watch:
//
//	rules:
//	- apiGroups: [samplecontroller.example.com]
//	  resources: [foos]
//	  verbs: [create, get, delete]
//	- apiGroups: [samplecontroller.example.com]
//	  resources: [foos/scale]
//	  verbs: [get, update]
//	- apiGroups: [apps]
//	  resources: [deployments]
//	  verbs: [get]
//	- apiGroups: [""]
//	  resources: [pods]
//	  verbs: [list]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// fooServesName is the name of the one test of this program, its entrypoint argument.
const fooServesName = "foo-serves"

// options are the command-line flags.
type options struct {
	bundleDir   string
	namespace   string
	stepTimeout time.Duration
}

func main() {
	name, opts, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(2)
	}
	// The pod's log, stdout and stderr together, is the result that scorecard decodes: keep
	// controller-runtime from writing to stderr (it does when no logger is ever set).
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := printStatus(os.Stdout, runTest(ctx, name, opts)); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

// parseArgs reads the test name and the flags, which may come before or after it.
func parseArgs(args []string) (string, options, error) {
	opts := options{}
	fs := flag.NewFlagSet("foo-scorecard-tests", flag.ContinueOnError)
	fs.StringVar(&opts.bundleDir, "bundle", "/bundle", "the bundle directory, where scorecard mounts it")
	fs.StringVar(&opts.namespace, "namespace", "", "the namespace to test in; the pod's own when empty")
	fs.DurationVar(&opts.stepTimeout, "step-timeout", 90*time.Second, "how long each step may take")
	if err := fs.Parse(args); err != nil {
		return "", opts, err
	}
	name := fs.Arg(0)
	if fs.NArg() > 0 {
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", opts, err
		}
	}
	if fs.NArg() > 0 {
		return "", opts, fmt.Errorf("one test name expected, got also %q", fs.Args())
	}
	return name, opts, nil
}

// runTest runs the named test. A name it does not know fails, listing the tests it knows, as
// the guide's sample does.
func runTest(ctx context.Context, name string, opts options) scapiv1alpha3.TestStatus {
	if name != fooServesName {
		return statusOf(scapiv1alpha3.TestResult{
			Name:   name,
			State:  scapiv1alpha3.FailState,
			Errors: []string{fmt.Sprintf("unknown test %q: this image runs %s", name, fooServesName)},
		})
	}
	return statusOf(fooServes(ctx, opts))
}

// statusOf is the status of one test run: its result, stamped now.
func statusOf(result scapiv1alpha3.TestResult) scapiv1alpha3.TestStatus {
	result.CreationTimestamp = metav1.Now()
	return scapiv1alpha3.TestStatus{Results: []scapiv1alpha3.TestResult{result}}
}

// printStatus writes status as operator-sdk scorecard reads it from the pod's log.
func printStatus(w io.Writer, status scapiv1alpha3.TestStatus) error {
	out, err := json.MarshalIndent(status, "", "    ")
	if err != nil {
		return fmt.Errorf("encode test status: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}
