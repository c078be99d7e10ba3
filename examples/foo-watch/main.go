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

// foo-watch lists and watches Foos through the generated shared informer and lister of
// github.com/example/foo-operator/pkg/generated, and prints each Foo's Ready condition when
// it changes. It imports the Foo API and its client only, not controller-runtime.
//
//	go run ./examples/foo-watch --kubeconfig .kwok/kubeconfig [--namespace NS]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/pkg/generated/clientset/versioned"
	"github.com/example/foo-operator/pkg/generated/informers/externalversions"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "The kubeconfig of the cluster; in-cluster when empty.")
	namespace := flag.String("namespace", "", "The namespace whose Foos to watch; all when empty.")
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	clientset, err := versioned.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := watch(ctx, clientset, *namespace, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// watch prints a line for every Foo the informer lists, a summary from the lister once the
// informer has synced, and then a line whenever a Foo appears or its Ready condition
// changes, until ctx ends.
func watch(ctx context.Context, clientset versioned.Interface, namespace string, out io.Writer) error {
	out = &lockedWriter{w: out} // the informer's handler and this function both print
	factory := externalversions.NewSharedInformerFactoryWithOptions(clientset, 0, externalversions.WithNamespace(namespace))
	foos := factory.Samplecontroller().V1alpha1().Foos()
	if _, err := foos.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { fmt.Fprintln(out, ready(obj.(*samplev1alpha1.Foo))) },
		UpdateFunc: func(oldObj, newObj any) {
			if was, is := ready(oldObj.(*samplev1alpha1.Foo)), ready(newObj.(*samplev1alpha1.Foo)); was != is {
				fmt.Fprintln(out, is)
			}
		},
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), foos.Informer().HasSynced) {
		return ctx.Err()
	}
	listed, err := foos.Lister().Foos(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	readyCount := 0
	for _, foo := range listed {
		if meta.IsStatusConditionTrue(foo.Status.Conditions, samplev1alpha1.ReadyCondition) {
			readyCount++
		}
	}
	fmt.Fprintf(out, "synced: %d Foos, %d Ready\n", len(listed), readyCount)
	<-ctx.Done()
	return nil
}

// ready describes a Foo's Ready condition in one line.
func ready(foo *samplev1alpha1.Foo) string {
	c := meta.FindStatusCondition(foo.Status.Conditions, samplev1alpha1.ReadyCondition)
	if c == nil {
		return fmt.Sprintf("%s/%s Ready=Unknown (no condition yet)", foo.Namespace, foo.Name)
	}
	return fmt.Sprintf("%s/%s Ready=%s %s: %s", foo.Namespace, foo.Name, c.Status, c.Reason, c.Message)
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
