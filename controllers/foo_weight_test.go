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

package controllers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prometheus/procfs"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// BenchmarkFooWriteAPIServerCPU measures the CPU kube-apiserver spends on one write of a Foo,
// by the status the Foo carries: the operator's (four conditions, the Deployment's counts
// and selector; its managedFields entry for them) or the one field hack/bench's bare client
// writes (availableReplicas). The writes are those of make bench's scale of every Foo: the
// benchmark's merge patch of spec.replicas, then the status write of the contender: the
// operator's JSON patch of its whole status at the Foo's resourceVersion, answered with
// metadata, as reconcileStatus sends it, or the bare client's merge patch of one field. The
// metric apiserver-µs/op is kube-apiserver's utime + stime over the writes, divided by
// their number; 8 writers at once, no client-side limit, each writing its own Foos. Run
// with `make bench-writes`.
func BenchmarkFooWriteAPIServerCPU(b *testing.B) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	if err := samplev1alpha1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		b.Fatalf("start envtest (make bench-writes builds kube-apiserver and etcd and sets KUBEBUILDER_ASSETS): %v", err)
	}
	b.Cleanup(func() { _ = env.Stop() })
	cfg.QPS = -1 // no client-side limit
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		b.Fatal(err)
	}
	apiServer, err := childProcess("kube-apiserver")
	if err != nil {
		b.Fatal(err)
	}

	// A multiple of writers Foos a side: writer w writes the Foos w, w + writers, ..., and no
	// other writer writes them (the operator's status write carries the resourceVersion).
	const foosPerSide, writers = 400, 8
	sides := []weightSide{bareClientSide{}, operatorSide{}}
	foosOf := make([][]*samplev1alpha1.Foo, len(sides))
	for i, side := range sides {
		if foosOf[i], err = createWeighedFoos(c, side, foosPerSide); err != nil {
			b.Fatal(err)
		}
	}
	// Each kind of write on one side, then at once on the other, so that the two runs
	// compared meet the machine's speed of the same few seconds.
	for _, write := range []string{"spec", "status"} {
		for i, side := range sides {
			foos := foosOf[i]
			b.Run(fmt.Sprintf("status=%s/write=%s", side.name(), write), func(b *testing.B) {
				before, err := cpuSeconds(apiServer)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				var wg sync.WaitGroup
				errs := make([]error, writers)
				for w := range writers {
					wg.Go(func() {
						for i := w; i < b.N && errs[w] == nil; i += writers {
							foo := foos[i%len(foos)]
							if write == "spec" {
								errs[w] = scaleWeighedFoo(c, foo)
							} else {
								errs[w] = side.writeStatus(c, foo)
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				after, err := cpuSeconds(apiServer)
				if err != nil {
					b.Fatal(err)
				}
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((after-before)*1e6/float64(b.N), "apiserver-µs/op")
			})
		}
	}
}

// weightSide is the status one side of BenchmarkFooWriteAPIServerCPU writes to its Foos.
type weightSide interface {
	name() string
	// writeStatus writes foo's status as the side's contender does when its Deployment's
	// available replicas changed, and keeps in foo what the write left.
	writeStatus(c client.Client, foo *samplev1alpha1.Foo) error
}

// bareClientSide writes the status as hack/bench's bare client does: availableReplicas alone.
type bareClientSide struct{}

func (bareClientSide) name() string { return "bare-client" }

func (bareClientSide) writeStatus(c client.Client, foo *samplev1alpha1.Foo) error {
	patch := fmt.Appendf(nil, `{"status":{"availableReplicas":%d}}`, nextAvailable(foo))
	return c.Status().Patch(context.Background(), foo, client.RawPatch(types.MergePatchType, patch), client.FieldOwner("bench-bare-client"))
}

// operatorSide writes the status reconcileStatus writes: computeStatus's, for the
// Deployment rolled out to the Foo's replicas, with reconcileStatus's patchStatus.
type operatorSide struct{}

func (operatorSide) name() string { return "operator" }

func (operatorSide) writeStatus(c client.Client, foo *samplev1alpha1.Foo) error {
	d := newDeployment(foo, withRollout(*foo.Spec.Replicas, nextAvailable(foo), true))
	d.Generation = foo.Generation
	d.Status.ObservedGeneration = d.Generation
	status := computeStatus(foo, observation{deployment: d}, metav1.Now().Rfc3339Copy())
	resourceVersion, err := patchStatus(context.Background(), c, foo, status)
	if err != nil {
		return err
	}
	foo.Status, foo.ResourceVersion = status, resourceVersion
	return nil
}

// nextAvailable is the available replicas a status write reports: the Foo's replicas, or
// one fewer when its status reports them already, so that every write changes the status
// (the API server stores no write that changes nothing, nor sends it to watchers).
func nextAvailable(foo *samplev1alpha1.Foo) int32 {
	if foo.Status.AvailableReplicas == *foo.Spec.Replicas {
		return *foo.Spec.Replicas - 1
	}
	return *foo.Spec.Replicas
}

// createWeighedFoos creates n Foos in a namespace of side's, as the benchmark does, and
// writes the side's status to each once, so that every Foo carries it and its
// managedFields entry before the writes measured.
func createWeighedFoos(c client.Client, side weightSide, n int) ([]*samplev1alpha1.Foo, error) {
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "weight-" + side.name()}}
	if err := c.Create(ctx, ns); err != nil {
		return nil, err
	}
	foos := make([]*samplev1alpha1.Foo, n)
	for i := range foos {
		foo := newFoo(fmt.Sprintf("foo-%05d", i), withNamespace(ns.Name))
		foo.Spec.PodDisruptionBudget = samplev1alpha1.PodDisruptionBudgetDisabled // as hack/bench creates them
		if err := c.Create(ctx, foo, client.FieldOwner("bench-driver")); err != nil {
			return nil, err
		}
		if err := side.writeStatus(c, foo); err != nil {
			return nil, err
		}
		foos[i] = foo
	}
	return foos, nil
}

// scaleWeighedFoo is the benchmark's scale of foo: a merge patch of spec.replicas, between 1
// and 2.
func scaleWeighedFoo(c client.Client, foo *samplev1alpha1.Foo) error {
	replicas := 3 - *foo.Spec.Replicas
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	return c.Patch(context.Background(), foo, client.RawPatch(types.MergePatchType, patch), client.FieldOwner("bench-driver"))
}

// childProcess is this process's child whose command is name.
func childProcess(name string) (procfs.Proc, error) {
	procs, err := procfs.AllProcs()
	if err != nil {
		return procfs.Proc{}, err
	}
	for _, p := range procs {
		if stat, err := p.Stat(); err == nil && stat.Comm == name && stat.PPID == os.Getpid() {
			return p, nil
		}
	}
	return procfs.Proc{}, fmt.Errorf("no child process %s of process %d", name, os.Getpid())
}

// cpuSeconds is the CPU (utime + stime) process p has used.
func cpuSeconds(p procfs.Proc) (float64, error) {
	stat, err := p.Stat()
	return stat.CPUTime(), err
}
